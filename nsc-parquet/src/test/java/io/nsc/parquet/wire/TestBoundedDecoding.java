package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.slice.SliceOutput;
import io.airlift.slice.Slices;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
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
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimestampType.TIMESTAMP_NANOS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Decoding of blocks and page batches from untrusted bytes: every declared count and length is
 * checked against the bytes that remain and the budget before Trino's decoders allocate.
 */
final class TestBoundedDecoding
{
    private static final int MANY = 200_000_000;
    private static final List<Type> TYPES = List.of(TINYINT, SMALLINT, INTEGER, BIGINT, TIMESTAMP_NANOS, createDecimalType(30, 4), VARCHAR);

    @Test
    void testEveryEncodingRoundTripsWithAndWithoutNulls()
    {
        Random random = new Random(7);
        for (Type type : TYPES) {
            for (int nullEvery : new int[] {0, 1, 2, 9}) {
                for (int positions : new int[] {0, 1, 7, 8, 9, 100}) {
                    Block block = randomBlock(type, positions, nullEvery, random);
                    assertSameValues(roundTrip(block), block, type);
                    Block runLength = RunLengthEncodedBlock.create(randomBlock(type, 1, nullEvery, random), positions);
                    assertSameValues(roundTrip(runLength), runLength, type);
                    if (positions > 0) {
                        int[] ids = random.ints(3L * positions, 0, positions).toArray();
                        Block dictionary = DictionaryBlock.create(ids.length, block, ids);
                        assertSameValues(roundTrip(dictionary), dictionary, type);
                    }
                }
            }
        }
    }

    @Test
    void testEveryTruncationIsRefused()
    {
        Random random = new Random(11);
        for (Type type : TYPES) {
            Block block = randomBlock(type, 40, 3, random);
            Block dictionary = DictionaryBlock.create(50, randomBlock(type, 5, 2, random), random.ints(50, 0, 5).toArray());
            for (Block candidate : List.of(block, dictionary, RunLengthEncodedBlock.create(randomBlock(type, 1, 0, random), 30))) {
                byte[] encoded = encode(candidate);
                for (int length = 0; length < encoded.length; length++) {
                    byte[] truncated = java.util.Arrays.copyOf(encoded, length);
                    assertThatThrownBy(() -> new NscBlockEncodingSerde().readBlock(Slices.wrappedBuffer(truncated).getInput()))
                            .as("%s truncated to %s of %s bytes", type, truncated.length, encoded.length)
                            .isInstanceOf(IllegalArgumentException.class);
                }
            }
        }
    }

    @Test
    void testCorruptedBytesFailCleanly()
    {
        // property: whatever a corrupted block holds, decoding ends in a block or one of the two documented exceptions
        Random random = new Random(13);
        int decoded = 0;
        for (int round = 0; round < 3000; round++) {
            Type type = TYPES.get(random.nextInt(TYPES.size()));
            Block block = randomBlock(type, random.nextInt(20), random.nextInt(4), random);
            if (block.getPositionCount() > 0 && random.nextBoolean()) {
                block = DictionaryBlock.create(10, block, random.ints(10, 0, block.getPositionCount()).toArray());
            }
            byte[] encoded = encode(block);
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                encoded[random.nextInt(encoded.length)] = (byte) random.nextInt(256);
            }
            try {
                Block result = new NscBlockEncodingSerde(new MemoryBudget("test", 1 << 20)).readBlock(Slices.wrappedBuffer(encoded).getInput());
                for (int position = 0; position < result.getPositionCount(); position++) {
                    result.isNull(position);
                }
                decoded++;
            }
            catch (IllegalArgumentException | MemoryLimitExceededException expected) {
                // refused
            }
        }
        assertThat(decoded).as("some corruptions leave a decodable block").isPositive();
    }

    @Test
    void testCountsTheBytesCannotHoldAreRefusedBeforeAllocating()
    {
        // each a few dozen bytes that claim 200M positions: Trino's decoders would allocate gigabytes first
        for (String name : List.of("BYTE_ARRAY", "SHORT_ARRAY", "INT_ARRAY", "LONG_ARRAY", "FIXED12", "INT128_ARRAY")) {
            assertRefused(encoded(name, out -> {
                out.writeInt(MANY);
                out.writeBoolean(false);
                out.writeLong(42);
            }), "truncated block");
            assertRefused(encoded(name, out -> {
                out.writeInt(MANY);
                out.writeBoolean(true);
                out.writeBytes(new byte[8]);
            }), "truncated block");
        }
        assertRefused(encoded("VARIABLE_WIDTH", out -> {
            out.writeInt(MANY);
            out.writeInt(MANY);
            out.writeInt(3);
        }), "truncated block");
        assertRefused(encoded("VARIABLE_WIDTH", out -> {
            out.writeInt(1);
            out.writeInt(1);
            out.writeInt(3);
            out.writeBoolean(false);
            out.writeInt(Integer.MAX_VALUE);
        }), "value bytes");
        assertRefused(encoded("DICTIONARY", out -> {
            out.writeInt(MANY);
            writeEncoded(out, "LONG_ARRAY", dictionary -> {
                dictionary.writeInt(1);
                dictionary.writeBoolean(false);
                dictionary.writeLong(5);
            });
        }), "truncated block");
        assertRefused(encoded("LONG_ARRAY", out -> out.writeInt(-1)), "negative position count");
        assertRefused(encoded("NO_SUCH_ENCODING", out -> out.writeInt(1)), "Unknown block encoding");
        assertRefused(Slices.wrappedBuffer(new byte[] {(byte) 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF}).getBytes(), "name length");
        // a dictionary id outside the dictionary
        assertRefused(encoded("DICTIONARY", out -> {
            out.writeInt(1);
            writeEncoded(out, "LONG_ARRAY", dictionary -> {
                dictionary.writeInt(1);
                dictionary.writeBoolean(false);
                dictionary.writeLong(5);
            });
            out.writeInt(1);
        }), "dictionary id");
    }

    @Test
    void testExpansionIsChargedToTheBudget()
    {
        // 200M positions of one value: tiny on the wire, gigabytes once iterated
        byte[] runLength = encoded("RLE", out -> {
            out.writeInt(MANY);
            writeEncoded(out, "LONG_ARRAY", value -> {
                value.writeInt(1);
                value.writeBoolean(false);
                value.writeLong(5);
            });
        });
        MemoryBudget budget = new MemoryBudget("Test scan", 64 << 20);
        assertThatThrownBy(() -> new NscBlockEncodingSerde(budget).readBlock(Slices.wrappedBuffer(runLength).getInput()))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessageContaining("Test scan exceeds its memory limit of 64MB");
        assertThat(budget.reservedBytes()).isZero();

        // a dictionary of one 1MB string named 10k times decodes to 10GB
        Block big = VARCHAR.createBlockBuilder(null, 1).writeEntry(Slices.allocate(1 << 20)).build();
        byte[] dictionary = encode(DictionaryBlock.create(10_000, big, new int[10_000]));
        assertThat(dictionary.length).isLessThan(2 << 20);
        assertThatThrownBy(() -> new NscBlockEncodingSerde(new MemoryBudget("Test scan", 256 << 20)).readBlock(Slices.wrappedBuffer(dictionary).getInput()))
                .isInstanceOf(MemoryLimitExceededException.class);
    }

    @Test
    void testPageBatchHeadersAreBoundedBeforeAllocating()
    {
        PageCodec codec = new PageCodec(PageCompression.PAGE_COMPRESSION_LZ4, new PageLimits(1 << 20, 8 << 20));
        PageCodec.BatchBuilder builder = codec.newBatch();
        builder.add(new Page(randomBlock(BIGINT, 100, 3, new Random(1))));
        PageBatch batch = builder.build();
        assertThat(codec.decode(batch)).hasSize(1);

        assertThatThrownBy(() -> codec.decode(batch.toBuilder().setUncompressedSize(Integer.MAX_VALUE).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the limit is 1048576");
        assertThatThrownBy(() -> codec.decode(batch.toBuilder().setUncompressedSize(-5).build())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.decode(batch.toBuilder().setPageCount(Integer.MAX_VALUE).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("claims 2147483647 pages");
        assertThatThrownBy(() -> codec.decode(batch.toBuilder().setData(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5})).build()))
                .isInstanceOf(IllegalArgumentException.class);

        // a page claiming 2^31-1 channels in a 20-byte batch
        PageCodec plain = new PageCodec(PageCompression.PAGE_COMPRESSION_NONE);
        DynamicSliceOutput data = new DynamicSliceOutput(32);
        data.writeInt(1);
        data.writeInt(Integer.MAX_VALUE);
        data.writeLong(0);
        data.writeInt(0);
        Slice bytes = data.slice();
        assertThatThrownBy(() -> plain.decode(PageBatch.newBuilder()
                .setCompression(PageCompression.PAGE_COMPRESSION_NONE)
                .setUncompressedSize(bytes.length())
                .setPageCount(1)
                .setPositionCount(1)
                .setData(ByteString.copyFrom(bytes.getBytes()))
                .build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channels");

        // decoded size over the limit
        PageCodec small = new PageCodec(PageCompression.PAGE_COMPRESSION_NONE, new PageLimits(1 << 20, 1000));
        PageCodec.BatchBuilder large = small.newBatch();
        large.add(new Page(randomBlock(BIGINT, 1000, 0, new Random(2))));
        assertThatThrownBy(() -> small.decode(large.build())).isInstanceOf(MemoryLimitExceededException.class);
    }

    @Test
    void testWireValuesCountBytesAndTypes()
    {
        WireValues values = new WireValues(100, MemoryBudget.unlimited());
        Block block = randomBlock(BIGINT, 3, 0, new Random(3));
        ByteString encoded = ByteString.copyFrom(encode(block));
        assertThat(values.read(BIGINT, encoded)).hasSize(3);
        assertThatThrownBy(() -> values.read(VARCHAR, encoded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("for a column of type varchar");
        assertThatThrownBy(() -> values.read(BIGINT, encoded))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceed 100 bytes");
        assertThatThrownBy(() -> WireValues.unbounded().read(BIGINT, encoded.concat(ByteString.copyFrom(new byte[] {0}))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bytes after a block");
    }

    private static void assertRefused(byte[] encoded, String message)
    {
        assertThatThrownBy(() -> new NscBlockEncodingSerde().readBlock(Slices.wrappedBuffer(encoded).getInput()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    private static byte[] encoded(String name, Consumer<SliceOutput> body)
    {
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        writeEncoded(output, name, body);
        return output.slice().getBytes();
    }

    private static void writeEncoded(SliceOutput output, String name, Consumer<SliceOutput> body)
    {
        output.writeInt(name.length());
        output.writeBytes(name.getBytes(US_ASCII));
        body.accept(output);
    }

    private static byte[] encode(Block block)
    {
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        new NscBlockEncodingSerde().writeBlock(output, block);
        return output.slice().getBytes();
    }

    private static Block roundTrip(Block block)
    {
        return new NscBlockEncodingSerde(new MemoryBudget("test", 64 << 20)).readBlock(Slices.wrappedBuffer(encode(block)).getInput());
    }

    private static Block randomBlock(Type type, int positions, int nullEvery, Random random)
    {
        BlockBuilder builder = type.createBlockBuilder(null, positions);
        for (int position = 0; position < positions; position++) {
            writeNativeValue(type, builder, nullEvery > 0 && random.nextInt(nullEvery) == 0 ? null : randomValue(type, random));
        }
        return builder.build();
    }

    private static Object randomValue(Type type, Random random)
    {
        if (type == VARCHAR) {
            return utf8Slice("v".repeat(random.nextInt(5)) + random.nextInt(100));
        }
        if (type == TIMESTAMP_NANOS) {
            return new LongTimestamp(random.nextLong() >> 20, random.nextInt(1_000_000));
        }
        if (type instanceof io.trino.spi.type.DecimalType) {
            return Int128.valueOf(random.nextLong());
        }
        if (type == TINYINT) {
            return (long) (byte) random.nextInt();
        }
        if (type == SMALLINT) {
            return (long) (short) random.nextInt();
        }
        if (type == INTEGER) {
            return (long) random.nextInt();
        }
        return random.nextLong();
    }

    private static void assertSameValues(Block actual, Block expected, Type type)
    {
        assertThat(actual.getPositionCount()).isEqualTo(expected.getPositionCount());
        List<Object> actualValues = new ArrayList<>();
        List<Object> expectedValues = new ArrayList<>();
        for (int position = 0; position < expected.getPositionCount(); position++) {
            actualValues.add(readNativeValue(type, actual, position));
            expectedValues.add(readNativeValue(type, expected, position));
        }
        assertThat(actualValues).as("%s", type).isEqualTo(expectedValues);
    }
}
