package io.nsc.parquet.stats;

import io.airlift.slice.Slices;
import io.nsc.protocol.stats.FilterValueType;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.Random;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static org.assertj.core.api.Assertions.assertThat;

final class TestBloomFilterHashes
{
    // parquet-mr's hashing is the reference: what every Parquet reader and writer computes
    private static final BlockSplitBloomFilter PARQUET = new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES);

    @Test
    void testHashesAreParquets()
    {
        Random random = new Random(3);
        for (long value : new long[] {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 42, -123456}) {
            assertThat(BloomFilterHashes.hash(FilterValueType.INT32, value)).isEqualTo(PARQUET.hash((int) value));
        }
        for (int i = 0; i < 1000; i++) {
            int value = random.nextInt();
            assertThat(BloomFilterHashes.hash(FilterValueType.INT32, (long) value)).isEqualTo(PARQUET.hash(value));
            long wide = random.nextLong();
            assertThat(BloomFilterHashes.hash(FilterValueType.INT64, wide)).isEqualTo(PARQUET.hash(wide));
        }
        for (String text : List.of("", "a", "needle", "ünïcödé", "x".repeat(1000))) {
            assertThat(BloomFilterHashes.hash(FilterValueType.BYTE_ARRAY, Slices.utf8Slice(text))).isEqualTo(PARQUET.hash(Binary.fromString(text)));
        }
    }

    @Test
    void testBlockValuesHashAsTheirSqlValues()
    {
        assertBlockHash(BIGINT, -7L);
        assertBlockHash(INTEGER, 123_456L);
        assertBlockHash(SMALLINT, -300L);
        assertBlockHash(TINYINT, -5L);
        assertBlockHash(DATE, 19_000L);
        assertBlockHash(createVarcharType(10), Slices.utf8Slice("abc"));
        assertBlockHash(VARBINARY, Slices.wrappedBuffer(new byte[] {0, 1, 2}));
    }

    @Test
    void testTypesWithoutAnExactEncodingAreNotHashed()
    {
        assertThat(BloomFilterHashes.valueType(DOUBLE)).isEmpty();
        assertThat(BloomFilterHashes.valueType(TIMESTAMP_MICROS)).isEmpty();
        assertThat(BloomFilterHashes.valueType(VARCHAR)).isEqualTo(Optional.of(FilterValueType.BYTE_ARRAY));
        assertThat(BloomFilterHashes.valueType(SMALLINT)).isEqualTo(Optional.of(FilterValueType.INT32));
    }

    private static void assertBlockHash(Type type, Object value)
    {
        BlockBuilder builder = type.createBlockBuilder(null, 1);
        if (value instanceof Long number) {
            type.writeLong(builder, number);
        }
        else {
            type.writeSlice(builder, (io.airlift.slice.Slice) value);
        }
        Block block = builder.build();
        FilterValueType valueType = BloomFilterHashes.valueType(type).orElseThrow();
        assertThat(BloomFilterHashes.hash(type, valueType, block, 0)).as(type.getDisplayName()).isEqualTo(BloomFilterHashes.hash(valueType, value));
    }
}
