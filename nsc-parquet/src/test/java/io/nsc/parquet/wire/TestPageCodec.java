package io.nsc.parquet.wire;

import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.Type;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TimestampType.TIMESTAMP_NANOS;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestPageCodec
{
    private static final List<Type> TYPES = List.of(BIGINT, DOUBLE, VARCHAR, BOOLEAN, createDecimalType(30, 4), TIMESTAMP_NANOS);

    @ParameterizedTest
    @EnumSource(value = PageCompression.class, names = "UNRECOGNIZED", mode = EnumSource.Mode.EXCLUDE)
    void testPagesRoundTripWithNullsDictionariesAndEmptyPages(PageCompression compression)
    {
        PageCodec codec = new PageCodec(compression);
        Page first = randomPage(1000, new Random(1));
        Page empty = randomPage(0, new Random(2));
        Block dictionary = DictionaryBlock.create(4, utf8Block("a", "b"), new int[] {0, 1, 1, 0});
        Block runLength = RunLengthEncodedBlock.create(utf8Block("same"), 4);
        Page encoded = new Page(dictionary, runLength);
        Page noColumns = new Page(7);

        PageCodec.BatchBuilder batch = codec.newBatch();
        for (Page page : List.of(first, empty, encoded, noColumns)) {
            batch.add(page);
        }
        PageBatch message = batch.build();
        assertThat(message.getPositionCount()).isEqualTo(1011);

        List<Page> decoded = new PageCodec(compression).decode(message);
        assertThat(decoded).hasSize(4);
        assertSamePage(decoded.get(0), first, TYPES);
        assertThat(decoded.get(1).getPositionCount()).isZero();
        assertSamePage(decoded.get(2), encoded, List.of(VARCHAR, VARCHAR));
        assertThat(decoded.get(3).getPositionCount()).isEqualTo(7);
        assertThat(decoded.get(3).getChannelCount()).isZero();
        if (compression != PageCompression.PAGE_COMPRESSION_NONE) {
            assertThat(message.getData().size()).isLessThan(message.getUncompressedSize());
        }
    }

    @ParameterizedTest
    @EnumSource(value = PageCompression.class, names = "UNRECOGNIZED", mode = EnumSource.Mode.EXCLUDE)
    void testCorruptBatchIsRefused(PageCompression compression)
    {
        PageCodec.BatchBuilder batch = new PageCodec(compression).newBatch();
        batch.add(randomPage(100, new Random(3)));
        PageBatch message = batch.build();
        PageBatch wrongCount = message.toBuilder().setPositionCount(99).build();
        assertThatThrownBy(() -> new PageCodec(compression).decode(wrongCount)).isInstanceOf(IllegalArgumentException.class);
        PageBatch truncated = message.toBuilder().setData(message.getData().substring(0, message.getData().size() / 2)).build();
        assertThatThrownBy(() -> new PageCodec(compression).decode(truncated)).isInstanceOf(RuntimeException.class);
    }

    private static Page randomPage(int positions, Random random)
    {
        Block[] blocks = new Block[TYPES.size()];
        for (int channel = 0; channel < TYPES.size(); channel++) {
            Type type = TYPES.get(channel);
            BlockBuilder builder = type.createBlockBuilder(null, positions);
            for (int position = 0; position < positions; position++) {
                writeNativeValue(type, builder, random.nextInt(10) == 0 ? null : randomValue(type, random));
            }
            blocks[channel] = builder.build();
        }
        return new Page(positions, blocks);
    }

    private static Object randomValue(Type type, Random random)
    {
        if (type == BIGINT) {
            return random.nextLong();
        }
        if (type == DOUBLE) {
            return random.nextBoolean() ? Double.NaN : random.nextGaussian();
        }
        if (type == VARCHAR) {
            return utf8Slice("value " + random.nextInt(50));
        }
        if (type == BOOLEAN) {
            return random.nextBoolean();
        }
        if (type == TIMESTAMP_NANOS) {
            return new LongTimestamp(random.nextLong() >> 20, random.nextInt(1_000_000));
        }
        return Int128.valueOf(random.nextLong());
    }

    private static Block utf8Block(String... values)
    {
        BlockBuilder builder = VARCHAR.createBlockBuilder(null, values.length);
        for (String value : values) {
            VARCHAR.writeSlice(builder, utf8Slice(value));
        }
        return builder.build();
    }

    private static void assertSamePage(Page actual, Page expected, List<Type> types)
    {
        assertThat(actual.getPositionCount()).isEqualTo(expected.getPositionCount());
        assertThat(actual.getChannelCount()).isEqualTo(expected.getChannelCount());
        for (int channel = 0; channel < types.size(); channel++) {
            Type type = types.get(channel);
            for (int position = 0; position < expected.getPositionCount(); position++) {
                assertThat(readNativeValue(type, actual.getBlock(channel), position))
                        .as("channel %s position %s", channel, position)
                        .isEqualTo(readNativeValue(type, expected.getBlock(channel), position));
            }
        }
    }
}
