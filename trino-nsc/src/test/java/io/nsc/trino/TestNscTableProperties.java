package io.nsc.trino;

import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.trino.write.RowGroupSize;
import io.trino.spi.TrinoException;
import io.trino.spi.session.PropertyMetadata;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestNscTableProperties
{
    private final Map<String, PropertyMetadata<?>> properties = new NscTableProperties().getTableProperties().stream()
            .collect(toImmutableMap(PropertyMetadata::getName, property -> property));

    @Test
    void testRowGroupSizeAsRowCount()
    {
        assertThat(RowGroupSize.parse("100000")).isEqualTo(RowGroupSize.ofRows(100_000));
        assertThat(RowGroupSize.parse(" 2000 ")).isEqualTo(RowGroupSize.ofRows(2000));
        assertThat(RowGroupSize.parse("1")).isEqualTo(RowGroupSize.ofRows(1));
        assertThat(RowGroupSize.parse("2147483647")).isEqualTo(RowGroupSize.ofRows(Integer.MAX_VALUE));
        assertThat(RowGroupSize.parse("2000").toSql()).isEqualTo("2000");
        assertThat(RowGroupSize.DEFAULT).isEqualTo(RowGroupSize.ofRows(100_000));
    }

    @Test
    void testRowGroupSizeAsDataSize()
    {
        assertThat(RowGroupSize.parse("64MB")).isEqualTo(RowGroupSize.ofBytes(64L << 20));
        assertThat(RowGroupSize.parse("64mb")).isEqualTo(RowGroupSize.ofBytes(64L << 20));
        assertThat(RowGroupSize.parse("64 MB")).isEqualTo(RowGroupSize.ofBytes(64L << 20));
        assertThat(RowGroupSize.parse("512kB")).isEqualTo(RowGroupSize.ofBytes(512L << 10));
        assertThat(RowGroupSize.parse("1.5MB")).isEqualTo(RowGroupSize.ofBytes(3L << 19));
        assertThat(RowGroupSize.parse("1GB")).isEqualTo(RowGroupSize.ofBytes(1L << 30));
        assertThat(RowGroupSize.parse("64MB").toSql()).isEqualTo("64MB");
        assertThat(RowGroupSize.parse("1024B").toSql()).isEqualTo("1kB");
        // the text written back parses to the same size
        assertThat(RowGroupSize.parse(RowGroupSize.parse("1.5MB").toSql())).isEqualTo(RowGroupSize.parse("1.5MB"));
    }

    @Test
    void testRowGroupSizeRefusesOtherText()
    {
        for (String text : List.of("", "abc", "-5", "0", "1e5", "64 MiB", "100 rows", "3000000000", "99999999999999999999", "0.5kB", "2GB", "12.5", "MB")) {
            assertThatThrownBy(() -> RowGroupSize.parse(text))
                    .as(text)
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                    .hasMessageContaining("row_group_size");
        }
        assertThatThrownBy(() -> RowGroupSize.parse("abc"))
                .hasMessage("Invalid row_group_size 'abc': use a row count such as '100000' or a data size such as '64MB'");
    }

    @Test
    void testSortedByDecoding()
    {
        PropertyMetadata<?> sortedBy = properties.get("sorted_by");
        assertThat(sortedBy.getDefaultValue()).isEqualTo(List.of());
        assertThat(sortedBy.decode(List.of("L_ShipDate", "l_orderkey"))).isEqualTo(List.of("l_shipdate", "l_orderkey"));
        assertThatThrownBy(() -> sortedBy.decode(List.of("a", "A")))
                .isInstanceOf(TrinoException.class)
                .hasMessage("sorted_by names column 'a' more than once");
        assertThatThrownBy(() -> sortedBy.decode(List.of(" ")))
                .hasMessage("sorted_by contains an empty column name");
        assertThatThrownBy(() -> NscTableProperties.checkSortedBy(List.of("a", "nope"), List.of("a", "b")))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                .hasMessage("sorted_by names column 'nope', which the table does not have (columns: a, b)");
    }

    @Test
    void testReplicationDecoding()
    {
        PropertyMetadata<?> replication = properties.get("replication");
        // unset is not 2: an unset replication is not stored, so SHOW CREATE TABLE does not show it
        assertThat(replication.getDefaultValue()).isNull();
        assertThat(replication.decode(3)).isEqualTo(3);
        assertThatThrownBy(() -> replication.decode(0))
                .isInstanceOf(TrinoException.class)
                .hasMessage("replication must be at least 1, got 0");
    }

    @Test
    void testMinReplicas()
    {
        PropertyMetadata<?> minReplicas = properties.get("min_replicas");
        assertThat(minReplicas.getDefaultValue()).isNull();
        assertThat(minReplicas.decode(2)).isEqualTo(2);
        assertThatThrownBy(() -> minReplicas.decode(0))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                .hasMessage("min_replicas must be at least 1, got 0");
        assertThatThrownBy(() -> minReplicas.decode(-3))
                .hasMessage("min_replicas must be at least 1, got -3");

        // unset: every replica must be written
        assertThat(NscTableProperties.resolveMinReplicas(Map.of(), 2)).isEqualTo(2);
        assertThat(NscTableProperties.resolveMinReplicas(Map.of("replication", 3), 3)).isEqualTo(3);
        assertThat(NscTableProperties.resolveMinReplicas(Map.of("replication", 3, "min_replicas", 1), 3)).isEqualTo(1);
        assertThat(NscTableProperties.resolveMinReplicas(Map.of("replication", 3, "min_replicas", 3), 3)).isEqualTo(3);
        assertThatThrownBy(() -> NscTableProperties.resolveMinReplicas(Map.of("replication", 3, "min_replicas", 4), 3))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                .hasMessage("min_replicas must be between 1 and the table's replication (3), got 4");
        assertThatThrownBy(() -> NscTableProperties.resolveMinReplicas(Map.of("min_replicas", 3), 2))
                .hasMessage("min_replicas must be between 1 and the table's replication (2, the default), got 3");
    }

    @Test
    void testCompressionCodecDecoding()
    {
        PropertyMetadata<?> codec = properties.get("compression_codec");
        // unset is not the catalog's default: a table that sets none follows nsc.compression-codec
        assertThat(codec.getDefaultValue()).isNull();
        assertThat(codec.decode("ZSTD")).isEqualTo(ParquetWriteCodec.ZSTD);
        assertThat(codec.decode("snappy")).isEqualTo(ParquetWriteCodec.SNAPPY);
        assertThat(codec.decode("None")).isEqualTo(ParquetWriteCodec.NONE);
        assertThat(codec.decode("gzip")).isEqualTo(ParquetWriteCodec.GZIP);
        assertThatThrownBy(() -> codec.decode("lz4"))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                .hasMessage("Invalid compression_codec: Compression codec 'lz4' is not supported: Trino 476 writes LZ4 Parquet pages that its own reader cannot decode; use one of NONE, SNAPPY, GZIP, ZSTD");
        assertThatThrownBy(() -> codec.decode("brotli"))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(INVALID_TABLE_PROPERTY.toErrorCode()))
                .hasMessage("Invalid compression_codec: Compression codec 'brotli' is not supported; use one of NONE, SNAPPY, GZIP, ZSTD");
        assertThat(NscTableProperties.getCompressionCodec(Map.of())).isEmpty();
    }

    @Test
    void testStoredRoundTrip()
    {
        Map<String, Object> set = ImmutableMap.of(
                "sorted_by", List.of("b", "a"),
                "row_group_size", RowGroupSize.ofBytes(64L << 20),
                "replication", 3,
                "min_replicas", 2,
                "compression_codec", ParquetWriteCodec.SNAPPY);
        Map<String, String> stored = NscTableProperties.toStored(set);
        assertThat(stored).containsExactlyInAnyOrderEntriesOf(Map.of("sorted_by", "b,a", "row_group_size", "64MB", "replication", "3", "min_replicas", "2", "compression_codec", "SNAPPY"));
        assertThat(NscTableProperties.fromStored("s.t", stored)).isEqualTo(set);

        // what CREATE TABLE passes when nothing is set: sorted_by and row_group_size at their defaults
        Map<String, String> defaults = NscTableProperties.toStored(ImmutableMap.of("sorted_by", List.of(), "row_group_size", RowGroupSize.DEFAULT));
        assertThat(defaults).isEqualTo(Map.of("row_group_size", "100000"));
        assertThat(NscTableProperties.fromStored("s.t", defaults)).isEqualTo(Map.of("row_group_size", RowGroupSize.DEFAULT));

        // a table loaded from existing files has no properties, and shows none
        assertThat(NscTableProperties.fromStored("s.t", Map.of())).isEmpty();
        assertThat(NscTableProperties.getRowGroupSize(Map.of())).isEqualTo(RowGroupSize.DEFAULT);
        assertThat(NscTableProperties.getSortedBy(Map.of())).isEmpty();
        assertThat(NscTableProperties.getReplication(Map.of())).isEmpty();
        assertThat(NscTableProperties.getMinReplicas(Map.of())).isEmpty();

        assertThatThrownBy(() -> NscTableProperties.fromStored("s.t", Map.of("compression_codec", "LZO")))
                .hasMessageStartingWith("Table s.t has malformed properties")
                .hasMessageEndingWith("Compression codec 'LZO' is not supported; use one of NONE, SNAPPY, GZIP, ZSTD");
        assertThatThrownBy(() -> NscTableProperties.fromStored("s.t", Map.of("replication", "two")))
                .hasMessageStartingWith("Table s.t has malformed properties");
        assertThatThrownBy(() -> NscTableProperties.fromStored("s.t", Map.of("min_replicas", "0")))
                .hasMessageStartingWith("Table s.t has malformed properties")
                .hasMessageEndingWith("min_replicas must be at least 1, got 0");
    }
}
