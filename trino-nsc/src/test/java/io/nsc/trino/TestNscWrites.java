package io.nsc.trino;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Sets;
import io.airlift.units.Duration;
import io.grpc.ManagedChannel;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.storage.server.StorageServer;
import io.trino.Session;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.reader.MetadataReader;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.NscSessionProperties.STATS_PRUNING_ENABLED;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_EMPTY;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.testing.QueryAssertions.assertEqualsIgnoreOrder;
import static io.trino.testing.assertions.Assert.assertEventually;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Writes through SQL: CREATE SCHEMA / TABLE, CREATE TABLE AS and INSERT from other catalogs, every
 * writable type, the table properties, the errors a user can run into, and what a failed
 * statement leaves behind (nothing visible).
 */
final class TestNscWrites
        extends AbstractTestQueryFramework
{
    // a catalog over the same cluster whose page sinks write files of 64kB, so that a statement
    // uploads files long before it ends
    private static final String SMALL_BUFFER_CATALOG = "nsc_small_buffer";
    // a catalog over the same cluster whose tables that set no compression_codec are uncompressed
    private static final String UNCOMPRESSED_CATALOG = "nsc_uncompressed";

    private TestingNscCluster cluster;
    private Path smallBufferTempDir;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(3));
        smallBufferTempDir = Files.createDirectories(cluster.root().resolve("small-buffer-writes"));
        return NscQueryRunner.create(cluster, Map.of(), Map.of(
                SMALL_BUFFER_CATALOG, ImmutableMap.of(
                        "nsc.writer-buffer-size", "1MB",
                        "nsc.writer-target-file-size", "64kB",
                        "nsc.writer-temp-dir", smallBufferTempDir.toString()),
                UNCOMPRESSED_CATALOG, ImmutableMap.of("nsc.compression-codec", "NONE")));
    }

    @Test
    void testCreateInsertSelectShowDrop()
    {
        assertUpdate("CREATE SCHEMA nsc.round_trip");
        assertThat(computeActual("SHOW SCHEMAS FROM nsc").getOnlyColumnAsSet()).contains("round_trip");

        assertUpdate("CREATE TABLE nsc.round_trip.items (id bigint, name varchar, price decimal(12,2), code char(3)) " +
                "WITH (sorted_by = ARRAY['Name', 'id'], row_group_size = '64MB', replication = 3, min_replicas = 2)");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.round_trip.items")).isEqualTo("""
                CREATE TABLE nsc.round_trip.items (
                   id bigint,
                   name varchar,
                   price decimal(12, 2),
                   code char(3)
                )
                WITH (
                   min_replicas = 2,
                   replication = 3,
                   row_group_size = '64MB',
                   sorted_by = ARRAY['name','id']
                )""");
        assertThat(query("SELECT count(*) FROM nsc.round_trip.items")).matches("VALUES BIGINT '0'");

        assertUpdate("INSERT INTO nsc.round_trip.items VALUES (3, 'c', 3.30, 'x'), (1, 'a', 1.10, 'yy'), (2, NULL, NULL, NULL)", 3);
        assertThat(query("SELECT * FROM nsc.round_trip.items"))
                .matches("SELECT CAST(id AS bigint), CAST(name AS varchar), CAST(price AS decimal(12,2)), CAST(code AS char(3)) " +
                        "FROM (VALUES (3, 'c', 3.30, 'x'), (1, 'a', 1.10, 'yy'), (2, NULL, NULL, NULL)) AS v(id, name, price, code)");
        // a query right after an INSERT sees its rows
        assertUpdate("INSERT INTO nsc.round_trip.items (id, name) VALUES (4, 'd')", 1);
        assertThat(query("SELECT count(*), sum(id), count(price) FROM nsc.round_trip.items")).matches("VALUES (BIGINT '4', BIGINT '10', BIGINT '2')");
        assertThat(query("SELECT id FROM nsc.round_trip.items WHERE code = 'yy'")).matches("VALUES BIGINT '1'");

        // nothing set: only the row-group size the table was created with
        assertUpdate("CREATE TABLE IF NOT EXISTS nsc.round_trip.plain (a integer)");
        assertUpdate("CREATE TABLE IF NOT EXISTS nsc.round_trip.plain (a integer)");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.round_trip.plain")).isEqualTo("""
                CREATE TABLE nsc.round_trip.plain (
                   a integer
                )
                WITH (
                   row_group_size = '100000'
                )""");
        assertThat(query("SHOW TABLES FROM nsc.round_trip")).skippingTypesCheck().matches("VALUES 'items', 'plain'");

        assertUpdate("DROP TABLE nsc.round_trip.items");
        assertUpdate("DROP TABLE nsc.round_trip.plain");
        assertThat(computeActual("SHOW TABLES FROM nsc.round_trip").getRowCount()).isZero();
        assertUpdate("DROP SCHEMA nsc.round_trip");
        assertThat(computeActual("SHOW SCHEMAS FROM nsc").getOnlyColumnAsSet()).doesNotContain("round_trip");
    }

    @Test
    void testSortedCreateTableAsSelectPrunesAndInsertAppends()
    {
        assertUpdate("CREATE SCHEMA nsc.sorted");
        // sorting is per file: one writer per node keeps the file count (and so the pruning) steady
        Session oneWriterPerNode = Session.builder(getSession())
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
        assertUpdate(oneWriterPerNode, "CREATE TABLE nsc.sorted.lineitem WITH (sorted_by = ARRAY['l_shipdate'], row_group_size = '2000') AS SELECT * FROM tpch.tiny.lineitem", 60175);
        assertSameRows("SELECT * FROM nsc.sorted.lineitem", "SELECT * FROM tpch.tiny.lineitem");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.sorted.lineitem")).endsWith("""
                WITH (
                   row_group_size = '2000',
                   sorted_by = ARRAY['l_shipdate']
                )""");

        // about 1% of the rows: each file is sorted by l_shipdate, so most row groups are pruned
        String sql = "SELECT count(*), sum(l_extendedprice) FROM nsc.sorted.lineitem WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25'";
        // raw reads, so that the bytes received are the surviving row groups' chunks
        QueryCounters pruned = QueryCounters.run(getDistributedQueryRunner(), rawReads(), sql);
        assertThat(pruned.result().getMaterializedRows())
                .isEqualTo(computeActual(sql.replace("nsc.sorted.lineitem", "tpch.tiny.lineitem")).getMaterializedRows());
        long total = pruned.splitMetric(ROW_GROUPS_TOTAL);
        long scanned = total - pruned.splitMetric(ROW_GROUPS_PRUNED_BY_STATS);
        assertThat(total).isGreaterThanOrEqualTo(60175 / 2000);
        assertThat(scanned).isPositive();
        assertThat(scanned * 4).as("%s of %s row groups scanned", scanned, total).isLessThan(total);
        QueryCounters unpruned = QueryCounters.run(getDistributedQueryRunner(), withoutPruning(), sql);
        assertThat(unpruned.result().getMaterializedRows()).isEqualTo(pruned.result().getMaterializedRows());
        assertThat(pruned.physicalInputBytes() * 3)
                .as("bytes read: %s with pruning, %s without", pruned.physicalInputBytes(), unpruned.physicalInputBytes())
                .isLessThan(unpruned.physicalInputBytes());

        // INSERT appends (sorted too) and the next query sees the new rows
        long inserted = (long) computeScalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE l_orderkey < 1000");
        assertUpdate("INSERT INTO nsc.sorted.lineitem SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 1000", inserted);
        assertThat(query("SELECT count(*), sum(l_quantity) FROM nsc.sorted.lineitem"))
                .matches("SELECT count(*), sum(l_quantity) FROM (SELECT * FROM tpch.tiny.lineitem UNION ALL SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 1000)");
        assertThat(query("SELECT count(*) FROM nsc.sorted.lineitem WHERE l_orderkey < 1000"))
                .matches("SELECT 2 * count(*) FROM tpch.tiny.lineitem WHERE l_orderkey < 1000");

        // an INSERT that writes nothing is fine
        assertUpdate("INSERT INTO nsc.sorted.lineitem SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 0", 0);

        // from nsc into nsc, by data size
        assertUpdate("CREATE TABLE nsc.sorted.orders WITH (row_group_size = '1MB', replication = 1) AS SELECT * FROM tpch.tiny.orders", 15000);
        assertUpdate("CREATE TABLE nsc.sorted.orders_copy AS SELECT * FROM nsc.sorted.orders", 15000);
        assertSameRows("SELECT * FROM nsc.sorted.orders_copy", "SELECT * FROM tpch.tiny.orders");

        assertUpdate("DROP TABLE nsc.sorted.lineitem");
        assertUpdate("DROP TABLE nsc.sorted.orders");
        assertUpdate("DROP TABLE nsc.sorted.orders_copy");
        assertUpdate("DROP SCHEMA nsc.sorted");
    }

    // Every writable type, with NULLs, NaN, infinities, -0.0 and each type's extremes. Instants in
    // other zones come back in UTC (Parquet keeps the instant, not the zone), hence AT TIME ZONE.
    private static final String TYPE_COLUMNS = """
            CAST(id AS integer) id, CAST(b AS boolean) c_boolean, CAST(ti AS tinyint) c_tinyint, CAST(si AS smallint) c_smallint,
            CAST(i AS integer) c_integer, CAST(bi AS bigint) c_bigint, CAST(r AS real) c_real, CAST(d AS double) c_double,
            CAST(d9 AS decimal(9,2)) c_decimal_9_2, CAST(d18 AS decimal(18,4)) c_decimal_18_4, CAST(d38 AS decimal(38,10)) c_decimal_38_10,
            CAST(v AS varchar) c_varchar, CAST(v10 AS varchar(10)) c_varchar_10, CAST(c5 AS char(5)) c_char_5, CAST(vb AS varbinary) c_varbinary,
            CAST(dt AS date) c_date, CAST(t AS time(6)) c_time, CAST(ts3 AS timestamp(3)) c_ts_ms, CAST(ts6 AS timestamp(6)) c_ts_us,
            CAST(ts9 AS timestamp(9)) c_ts_ns, CAST(tz3 AS timestamp(3) with time zone) c_tstz_ms, CAST(tz6 AS timestamp(6) with time zone) c_tstz_us,
            CAST(u AS uuid) c_uuid
            """;
    private static final String TYPE_VALUES = """
            (VALUES
            (0, true, 1, 100, 1000, 1000000000000, REAL '1.5', DOUBLE '1.5', DECIMAL '1234567.89', DECIMAL '12345678901234.5678',
                DECIMAL '1234567890123456789012345678.0123456789', 'hello', 'ten chars!', 'ab', X'0001', DATE '2024-01-15', TIME '12:34:56.789123',
                TIMESTAMP '2023-11-14 22:13:20.123', TIMESTAMP '2023-11-14 22:13:20.123456', TIMESTAMP '2023-11-14 22:13:20.123456789',
                TIMESTAMP '2023-11-14 22:13:20.123 UTC', TIMESTAMP '2020-06-30 20:00:00.123456 America/New_York', UUID '01234567-89ab-cdef-0123-456789abcdef'),
            (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            (2, false, -128, -32768, -2147483648, -9223372036854775808, REAL '-3.4028235E38', DOUBLE '-1.7976931348623157E308', DECIMAL '-9999999.99',
                DECIMAL '-99999999999999.9999', DECIMAL '-9999999999999999999999999999.9999999999', '', '', '', X'', DATE '0001-01-01', TIME '00:00:00.000000',
                TIMESTAMP '0001-01-01 00:00:00.000', TIMESTAMP '0001-01-01 00:00:00.000000', TIMESTAMP '1677-09-21 00:12:43.145225000',
                TIMESTAMP '0001-01-01 00:00:00.000 UTC', TIMESTAMP '0001-01-01 00:00:00.000000 UTC', UUID '00000000-0000-0000-0000-000000000000'),
            (3, true, 127, 32767, 2147483647, 9223372036854775807, REAL '3.4028235E38', DOUBLE '1.7976931348623157E308', DECIMAL '9999999.99',
                DECIMAL '99999999999999.9999', DECIMAL '9999999999999999999999999999.9999999999', 'ünïcödé ✓ 日本 😀', 'zzzzzzzzzz', 'zzzzz', X'FFFFFFFF',
                DATE '9999-12-31', TIME '23:59:59.999999', TIMESTAMP '9999-12-31 23:59:59.999', TIMESTAMP '9999-12-31 23:59:59.999999',
                TIMESTAMP '2262-04-11 23:47:16.854775807', TIMESTAMP '9999-12-31 23:59:59.999 UTC', TIMESTAMP '9999-12-31 23:59:59.999999 UTC',
                UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
            (4, false, 0, 0, 0, 0, CAST(nan() AS real), nan(), DECIMAL '0.00', DECIMAL '0.0001', DECIMAL '-0.0000000001', 'abcdefgh1', 'a', 'ab  ', X'80',
                DATE '1970-01-01', TIME '00:00:00.000001', TIMESTAMP '1969-12-31 23:59:59.999', TIMESTAMP '1969-12-31 23:59:59.999999',
                TIMESTAMP '1969-12-31 23:59:59.999999999', TIMESTAMP '1970-01-01 01:00:00.001 +01:00', TIMESTAMP '1969-12-31 23:59:59.999999 UTC',
                UUID '80000000-0000-0000-8000-000000000000'),
            (5, true, 5, 7, 42, 1, CAST(infinity() AS real), -infinity(), DECIMAL '-0.01', DECIMAL '-1.0000', DECIMAL '922337203.6854775808', 'abcdefgh2', ' ', 'a b',
                X'7F', DATE '2000-02-29', TIME '12:00:00.000000', TIMESTAMP '1970-01-01 00:00:00.001', TIMESTAMP '1970-01-01 00:00:00.000001',
                TIMESTAMP '1970-01-01 00:00:00.000000001', TIMESTAMP '2023-11-14 14:13:20.123 America/Los_Angeles', TIMESTAMP '1970-01-01 00:00:00.000001 UTC',
                UUID '07f6e5d4-c3b2-a189-07f6-e5d4c3b2a189'),
            (6, NULL, 9, NULL, 9, NULL, REAL '-0.0', DOUBLE '-0.0', NULL, DECIMAL '9.0000', NULL, 'same', NULL, 'same', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                UUID '99999999-9999-9999-9999-999999999999'))
            AS v(id, b, ti, si, i, bi, r, d, d9, d18, d38, v, v10, c5, vb, dt, t, ts3, ts6, ts9, tz3, tz6, u)
            """;
    private static final String TYPE_ROWS = "SELECT " + TYPE_COLUMNS + " FROM " + TYPE_VALUES;
    private static final String TYPE_ROWS_IN_UTC = "SELECT " + TYPE_COLUMNS
            .replace("CAST(tz3 AS timestamp(3) with time zone) c_tstz_ms", "CAST(tz3 AS timestamp(3) with time zone) AT TIME ZONE 'UTC' c_tstz_ms")
            .replace("CAST(tz6 AS timestamp(6) with time zone) c_tstz_us", "CAST(tz6 AS timestamp(6) with time zone) AT TIME ZONE 'UTC' c_tstz_us") + " FROM " + TYPE_VALUES;

    @Test
    void testCompressionCodecOfTheTableElseTheCatalog()
            throws IOException
    {
        assertUpdate("CREATE SCHEMA nsc.codecs");
        String orders = "SELECT o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_orderdate, o_comment FROM tpch.tiny.orders";
        // set on the table: shown, stored, and what CTAS and INSERT write, whatever the catalog's default
        long firstHalf = (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey < 30000");
        assertUpdate("CREATE TABLE %s.codecs.snappy WITH (compression_codec = 'snappy') AS %s WHERE o_orderkey < 30000".formatted(UNCOMPRESSED_CATALOG, orders), firstHalf);
        assertUpdate("INSERT INTO nsc.codecs.snappy %s WHERE o_orderkey >= 30000".formatted(orders), 15000 - firstHalf);
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.codecs.snappy")).contains("compression_codec = 'SNAPPY'");
        assertThat(fileCodecs("codecs", "snappy")).containsOnly(CompressionCodecName.SNAPPY);
        assertThat(query("SELECT * FROM nsc.codecs.snappy")).matches(orders);

        // a DELETE that rewrites files keeps the table's codec, not the catalog's (NONE here)
        Set<Object> filesBefore = computeActual("SELECT file_id FROM nsc.codecs.\"snappy$files\"").getOnlyColumnAsSet();
        assertUpdate("DELETE FROM %s.codecs.snappy WHERE o_custkey %% 7 = 0".formatted(UNCOMPRESSED_CATALOG), (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_custkey % 7 = 0"));
        // files with rows to delete were rewritten (a small file may hold none and stay as it was)
        Set<Object> filesAfter = computeActual("SELECT file_id FROM nsc.codecs.\"snappy$files\"").getOnlyColumnAsSet();
        assertThat(Sets.difference(filesAfter, filesBefore)).isNotEmpty();
        assertThat(fileCodecs("codecs", "snappy")).containsOnly(CompressionCodecName.SNAPPY);
        assertThat(query("SELECT * FROM nsc.codecs.snappy")).matches(orders + " WHERE o_custkey % 7 <> 0");

        // unset: the catalog's nsc.compression-codec at each write, and not shown
        assertUpdate("CREATE TABLE %s.codecs.plain AS %s".formatted(UNCOMPRESSED_CATALOG, orders), 15000);
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.codecs.plain")).doesNotContain("compression_codec");
        assertThat(fileCodecs("codecs", "plain")).containsOnly(CompressionCodecName.UNCOMPRESSED);
        assertUpdate("INSERT INTO nsc.codecs.plain %s".formatted(orders), 15000);
        assertThat(fileCodecs("codecs", "plain")).containsOnly(CompressionCodecName.UNCOMPRESSED, CompressionCodecName.ZSTD);
        assertThat(query("SELECT count(*), sum(o_totalprice) FROM nsc.codecs.plain")).matches("SELECT 2 * count(*), 2 * sum(o_totalprice) FROM tpch.tiny.orders");

        assertThat(query("CREATE TABLE nsc.codecs.lz4 WITH (compression_codec = 'LZ4') AS " + orders))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("Invalid compression_codec: Compression codec 'LZ4' is not supported: Trino 476 writes LZ4 Parquet pages that its own reader cannot decode; use one of NONE, SNAPPY, GZIP, ZSTD");
        assertThat(query("CREATE TABLE nsc.codecs.brotli (a bigint) WITH (compression_codec = 'BROTLI')"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("Invalid compression_codec: Compression codec 'BROTLI' is not supported; use one of NONE, SNAPPY, GZIP, ZSTD");
        assertThat(computeActual("SHOW TABLES FROM nsc.codecs").getOnlyColumnAsSet()).containsOnly("snappy", "plain");

        assertUpdate("DROP TABLE nsc.codecs.snappy");
        assertUpdate("DROP TABLE nsc.codecs.plain");
        assertUpdate("DROP SCHEMA nsc.codecs");
    }

    /** The codecs of the column chunks of the table's current files, read from the storage nodes' copies. */
    private Set<CompressionCodecName> fileCodecs(String schema, String table)
            throws IOException
    {
        Set<String> fileNames = computeActual("SELECT file_id FROM nsc.%s.\"%s$files\"".formatted(schema, table)).getOnlyColumnAsSet().stream()
                .map(fileId -> fileId + ".parquet")
                .collect(toImmutableSet());
        List<Path> copies;
        try (Stream<Path> paths = Files.walk(cluster.root())) {
            copies = paths.filter(path -> fileNames.contains(path.getFileName().toString())).toList();
        }
        assertThat(copies.stream().map(path -> path.getFileName().toString()).collect(toImmutableSet())).isEqualTo(fileNames);
        ImmutableSet.Builder<CompressionCodecName> codecs = ImmutableSet.builder();
        for (Path copy : copies) {
            try (LocalParquetDataSource source = LocalParquetDataSource.open(copy, ParquetReaderOptions.defaultOptions())) {
                MetadataReader.readFooter(source, Optional.empty()).getBlocks().stream()
                        .flatMap(block -> block.columns().stream())
                        .forEach(column -> codecs.add(column.getCodec()));
            }
        }
        return codecs.build();
    }

    @Test
    void testEveryTypeRoundTrips()
    {
        assertUpdate("CREATE SCHEMA nsc.types");
        assertUpdate("CREATE TABLE nsc.types.ctas AS " + TYPE_ROWS, 7);
        assertThat(query("SELECT * FROM nsc.types.ctas")).matches(utcRows());
        assertThat(computeActual("DESCRIBE nsc.types.ctas").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .contains("c_varchar_10 varchar(10)", "c_char_5 char(5)", "c_time time(6)", "c_ts_ns timestamp(9)", "c_tstz_ms timestamp(3) with time zone", "c_uuid uuid");

        // the same rows through CREATE TABLE + INSERT, sorted by every column (the engine's ordering of each type)
        assertUpdate("CREATE TABLE nsc.types.inserted (LIKE nsc.types.ctas) WITH (sorted_by = ARRAY['c_double', 'c_real', 'c_char_5', 'c_boolean', 'c_tinyint', 'c_smallint', " +
                "'c_integer', 'c_bigint', 'c_decimal_9_2', 'c_decimal_18_4', 'c_decimal_38_10', 'c_varchar', 'c_varchar_10', 'c_varbinary', 'c_date', 'c_time', " +
                "'c_ts_ms', 'c_ts_us', 'c_ts_ns', 'c_tstz_ms', 'c_tstz_us', 'c_uuid', 'id'], row_group_size = '3')");
        assertUpdate("INSERT INTO nsc.types.inserted " + TYPE_ROWS, 7);
        assertUpdate("INSERT INTO nsc.types.inserted SELECT * FROM nsc.types.ctas", 7);
        assertThat(query("SELECT * FROM nsc.types.inserted")).matches(utcRows() + " UNION ALL " + utcRows());

        // filters select the same rows as on the values themselves: char pads, NaN is no number, instants compare across zones
        for (String predicate : List.of(
                "c_char_5 = 'ab'", "c_char_5 = CAST('ab' AS char(5))", "c_char_5 < 'ab!'", "c_char_5 = 'same '", "c_varchar = ' '",
                "is_nan(c_real)", "c_double > 0", "c_double = 0", "c_real < 0", "c_decimal_38_10 > DECIMAL '922337203.6854775807'",
                "c_ts_ns > TIMESTAMP '1970-01-01 00:00:00.000000000'", "c_tstz_ms = TIMESTAMP '2023-11-14 22:13:20.123 UTC'",
                "c_tstz_us = TIMESTAMP '2020-07-01 00:00:00.123456 UTC'", "c_time > TIME '12:00:00'", "c_uuid > UUID '80000000-0000-0000-0000-000000000000'",
                "c_varbinary > X'7F'", "c_boolean IS NULL")) {
            assertThat(query("SELECT id FROM nsc.types.inserted WHERE " + predicate))
                    .as(predicate)
                    .matches("SELECT id FROM (%s UNION ALL %s) WHERE %s".formatted(TYPE_ROWS, TYPE_ROWS, predicate));
        }

        // trino-parquet keeps timestamp(9) as nanoseconds in an INT64: the statement fails, nothing is left
        assertThat(query("CREATE TABLE nsc.types.too_early AS SELECT TIMESTAMP '1600-01-01 00:00:00.000000000' AS ts"))
                .failure()
                .hasErrorCode(NUMERIC_VALUE_OUT_OF_RANGE)
                .hasMessageContaining("timestamp(9) values must lie between");
        assertThat(query("SHOW TABLES FROM nsc.types")).skippingTypesCheck().matches("VALUES 'ctas', 'inserted'");

        assertUpdate("DROP TABLE nsc.types.ctas");
        assertUpdate("DROP TABLE nsc.types.inserted");
        assertUpdate("DROP SCHEMA nsc.types");
    }

    @Test
    void testFilesAndRowGroupsTablesShowTheCurrentVersion()
    {
        assertUpdate("CREATE SCHEMA nsc.files");
        assertUpdate("CREATE TABLE nsc.files.t WITH (row_group_size = '10') AS SELECT * FROM tpch.tiny.nation", 25);
        assertThat(computeActual("DESCRIBE nsc.files.\"t$files\"").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .containsExactly("file_id varchar", "row_count bigint", "size_bytes bigint", "row_groups integer", "replicas array(varchar)", "removed_row_groups integer");
        // the rows and row groups of every file, each on two distinct storage nodes (replication 2, the default)
        assertThat(query("SELECT sum(row_count), bool_and(size_bytes > 0), bool_and(row_groups = CAST(ceiling(row_count / 10e0) AS integer)), " +
                "bool_and(cardinality(replicas) = 2 AND replicas[1] <> replicas[2]), count(DISTINCT file_id) = count(*) FROM nsc.files.\"t$files\""))
                .matches("VALUES (BIGINT '25', true, true, true, true)");

        // the row groups of those files: 10 rows each but the last of a file, laid out one after the other
        assertThat(query("SELECT sum(row_count), bool_and(row_count BETWEEN 1 AND 10), bool_and(start_offset > 0 AND compressed_bytes > 0), " +
                "count(*) = (SELECT sum(row_groups) FROM nsc.files.\"t$files\") FROM nsc.files.\"t$row_groups\""))
                .matches("VALUES (BIGINT '25', true, true, true)");
        assertThat(query("SELECT count(*) FROM (SELECT file_id, row_group, start_offset, lag(start_offset + compressed_bytes) OVER (PARTITION BY file_id ORDER BY row_group) AS previous_end " +
                "FROM nsc.files.\"t$row_groups\") WHERE start_offset < previous_end"))
                .matches("VALUES BIGINT '0'");

        long filesBefore = (long) computeScalar("SELECT count(*) FROM nsc.files.\"t$files\"");
        assertUpdate("INSERT INTO nsc.files.t SELECT * FROM tpch.tiny.nation WHERE n_regionkey = 0", 5);
        assertThat(query("SELECT sum(row_count) FROM nsc.files.\"t$files\"")).matches("VALUES BIGINT '30'");
        assertThat((long) computeScalar("SELECT count(*) FROM nsc.files.\"t$files\"")).isGreaterThan(filesBefore);

        assertThat(query("SELECT * FROM nsc.files.\"missing$files\""))
                .failure().hasMessageContaining("Table 'nsc.files.\"missing$files\"' does not exist");
        assertUpdate("DROP TABLE nsc.files.t");
        assertUpdate("DROP SCHEMA nsc.files");
    }

    @Test
    void testRenameReplaceTruncateAndDropCascadeTouchNoFile()
    {
        assertUpdate("CREATE SCHEMA nsc.operations");
        assertUpdate("CREATE TABLE nsc.operations.t WITH (row_group_size = '10') AS SELECT * FROM tpch.tiny.nation", 25);
        List<Object> files = computeActual("SELECT file_id FROM nsc.operations.\"t$files\" ORDER BY 1").getOnlyColumnAsSet().stream().toList();

        // a rename moves the table, not its files
        assertUpdate("CREATE SCHEMA nsc.operations_moved");
        assertUpdate("ALTER TABLE nsc.operations.t RENAME TO nsc.operations_moved.nations");
        assertThat(computeActual("SELECT file_id FROM nsc.operations_moved.\"nations$files\" ORDER BY 1").getOnlyColumnAsSet().stream().toList()).isEqualTo(files);
        assertThat(query("SELECT * FROM nsc.operations_moved.nations")).matches("SELECT * FROM tpch.tiny.nation");
        assertThat(query("SELECT * FROM nsc.operations.t")).failure().hasMessageContaining("Table 'nsc.operations.t' does not exist");
        assertUpdate("ALTER SCHEMA nsc.operations_moved RENAME TO operations_renamed");
        assertThat(query("SELECT count(*) FROM nsc.operations_renamed.nations")).matches("VALUES BIGINT '25'");

        // CREATE OR REPLACE: new columns, rows and properties under the same name, in one commit
        long replicasBefore = (long) computeScalar("SELECT sum(replica_count) FROM nsc.system.nodes");
        assertUpdate("CREATE OR REPLACE TABLE nsc.operations_renamed.nations WITH (replication = 3) AS SELECT r_regionkey AS k, r_name AS name FROM tpch.tiny.region", 5);
        assertThat(query("SELECT k, name FROM nsc.operations_renamed.nations")).matches("SELECT r_regionkey, r_name FROM tpch.tiny.region");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.operations_renamed.nations")).contains("replication = 3").doesNotContain("n_nationkey");
        long newFiles = (long) computeScalar("SELECT count(*) FROM nsc.operations_renamed.\"nations$files\"");
        // the replaced table's replicas leave the catalog's placement at once (its files stay for snapshot reads)
        assertThat((long) computeScalar("SELECT sum(replica_count) FROM nsc.system.nodes")).isEqualTo(replicasBefore - 2L * files.size() + 3 * newFiles);
        assertUpdate("CREATE OR REPLACE TABLE nsc.operations_renamed.nations (x bigint)");
        assertThat(query("SELECT count(*) FROM nsc.operations_renamed.nations")).matches("VALUES BIGINT '0'");

        // TRUNCATE: the same definition, no rows, no files; the next INSERT lands in the empty table
        assertUpdate("COMMENT ON TABLE nsc.operations_renamed.nations IS 'kept'");
        assertUpdate("INSERT INTO nsc.operations_renamed.nations VALUES 1, 2", 2);
        assertUpdate("TRUNCATE TABLE nsc.operations_renamed.nations");
        assertThat(query("SELECT count(*) FROM nsc.operations_renamed.nations")).matches("VALUES BIGINT '0'");
        assertThat(query("SELECT count(*) FROM nsc.operations_renamed.\"nations$files\"")).matches("VALUES BIGINT '0'");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.operations_renamed.nations")).contains("x bigint", "COMMENT 'kept'");
        assertUpdate("INSERT INTO nsc.operations_renamed.nations VALUES 3", 1);
        assertThat(query("SELECT x FROM nsc.operations_renamed.nations")).matches("VALUES BIGINT '3'");

        // DROP SCHEMA CASCADE: every table of the schema, in one transaction
        assertUpdate("CREATE TABLE nsc.operations_renamed.second AS SELECT * FROM tpch.tiny.region", 5);
        assertThat(query("DROP SCHEMA nsc.operations_renamed")).failure().hasMessageContaining("Cannot drop non-empty schema 'operations_renamed'");
        assertUpdate("DROP SCHEMA nsc.operations_renamed CASCADE");
        assertThat(computeActual("SHOW SCHEMAS FROM nsc").getOnlyColumnAsSet()).doesNotContain("operations_renamed");
        assertUpdate("DROP SCHEMA nsc.operations");
    }

    @Test
    void testComments()
    {
        assertUpdate("CREATE SCHEMA nsc.comments");
        assertUpdate("CREATE TABLE nsc.comments.t (id bigint COMMENT 'the key', name varchar) COMMENT 'people'");
        assertUpdate("COMMENT ON COLUMN nsc.comments.t.name IS 'given name, ''quoted'' 🙂'");
        assertUpdate("INSERT INTO nsc.comments.t VALUES (1, 'a')", 1);
        // a write keeps the comments, and both show where clients read them
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.comments.t")).contains(
                "id bigint COMMENT 'the key'", "name varchar COMMENT 'given name, ''quoted'' 🙂'", "COMMENT 'people'");
        assertThat(query("SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'comments' AND table_name = 't'"))
                .matches("VALUES CAST('people' AS varchar)");
        assertThat(query("SELECT column_name, comment FROM nsc.information_schema.columns WHERE table_schema = 'comments' AND table_name = 't'"))
                .matches("VALUES (CAST('id' AS varchar), CAST('the key' AS varchar)), ('name', 'given name, ''quoted'' 🙂')");

        assertUpdate("COMMENT ON TABLE nsc.comments.t IS NULL");
        assertUpdate("COMMENT ON COLUMN nsc.comments.t.id IS NULL");
        assertThat((String) computeScalar("SHOW CREATE TABLE nsc.comments.t")).doesNotContain("COMMENT 'people'", "the key");
        assertThat(query("SELECT * FROM nsc.comments.t")).matches("VALUES (BIGINT '1', CAST('a' AS varchar))");

        assertThat(query("COMMENT ON TABLE nsc.comments.t IS '%s'".formatted("x".repeat(65_537))))
                .failure().hasMessage("A comment is longer than 65536 characters");

        assertUpdate("CREATE TABLE nsc.comments.copy COMMENT 'a copy' AS SELECT * FROM nsc.comments.t", 1);
        assertThat(query("SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'comments' AND table_name = 'copy'"))
                .matches("VALUES CAST('a copy' AS varchar)");
        assertUpdate("DROP TABLE nsc.comments.copy");
        assertUpdate("DROP TABLE nsc.comments.t");
        assertUpdate("DROP SCHEMA nsc.comments");
    }

    @Test
    void testNodesTableShowsTheStorageNodes()
    {
        assertThat(computeActual("DESCRIBE nsc.system.nodes").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .containsExactly("node_id varchar", "address varchar", "alive boolean", "draining boolean", "last_heartbeat timestamp(3) with time zone",
                        "capacity_bytes bigint", "free_bytes bigint", "file_count bigint", "replica_count bigint");
        assertThat(query("SELECT count(*), count(DISTINCT node_id), count(DISTINCT address), bool_and(alive), bool_or(draining), " +
                "bool_and(last_heartbeat > current_timestamp - INTERVAL '1' MINUTE), bool_and(capacity_bytes > 0 AND free_bytes BETWEEN 0 AND capacity_bytes) " +
                "FROM nsc.system.nodes"))
                .matches("VALUES (BIGINT '3', BIGINT '3', BIGINT '3', true, false, true, true)");

        // a write with replication 3 places one more replica on every node, at the address readers use
        assertUpdate("CREATE SCHEMA nsc.nodes");
        long replicasBefore = (long) computeScalar("SELECT sum(replica_count) FROM nsc.system.nodes");
        assertUpdate("CREATE TABLE nsc.nodes.t WITH (replication = 3) AS SELECT * FROM tpch.tiny.region", 5);
        long files = (long) computeScalar("SELECT count(*) FROM nsc.nodes.\"t$files\"");
        assertThat((long) computeScalar("SELECT sum(replica_count) FROM nsc.system.nodes")).isEqualTo(replicasBefore + 3 * files);
        assertThat(query("SELECT count(*) FROM nsc.nodes.\"t$files\" CROSS JOIN UNNEST(replicas) AS r(address) WHERE address NOT IN (SELECT address FROM nsc.system.nodes)"))
                .matches("VALUES BIGINT '0'");

        // Trino counts the schema of the connector's system tables as existing (the metadata service refuses the name too)
        assertThat(query("CREATE SCHEMA nsc.system")).failure().hasMessageContaining("Schema 'nsc.system' already exists");
        assertUpdate("DROP TABLE nsc.nodes.t");
        assertUpdate("DROP SCHEMA nsc.nodes");
    }

    @Test
    void testOtherTimePrecisionsAreStoredAtTheNextOne()
    {
        assertUpdate("CREATE SCHEMA nsc.precisions");
        assertUpdate("CREATE TABLE nsc.precisions.t (t0 time(0), t3 time(3), ts0 timestamp(0), ts4 timestamp(4), ts7 timestamp(7), " +
                "tz1 timestamp(1) with time zone, tz5 timestamp(5) with time zone)");
        assertThat(computeActual("DESCRIBE nsc.precisions.t").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .containsExactly("t0 time(6)", "t3 time(6)", "ts0 timestamp(3)", "ts4 timestamp(6)", "ts7 timestamp(9)",
                        "tz1 timestamp(3) with time zone", "tz5 timestamp(6) with time zone");
        assertUpdate("INSERT INTO nsc.precisions.t VALUES (TIME '12:34:56', TIME '12:34:56.789', TIMESTAMP '2020-01-02 03:04:05', " +
                "TIMESTAMP '2020-01-02 03:04:05.1234', TIMESTAMP '2020-01-02 03:04:05.1234567', TIMESTAMP '2020-01-02 03:04:05.1 UTC', TIMESTAMP '2020-01-02 03:04:05.12345 UTC')", 1);
        // every value kept exactly, at the stored precision
        assertThat(query("SELECT * FROM nsc.precisions.t")).matches("VALUES (TIME '12:34:56.000000', TIME '12:34:56.789000', TIMESTAMP '2020-01-02 03:04:05.000', " +
                "TIMESTAMP '2020-01-02 03:04:05.123400', TIMESTAMP '2020-01-02 03:04:05.123456700', TIMESTAMP '2020-01-02 03:04:05.100 UTC', TIMESTAMP '2020-01-02 03:04:05.123450 UTC')");
        assertThat(query("SELECT count(*) FROM nsc.precisions.t WHERE t3 = TIME '12:34:56.789' AND ts4 = TIMESTAMP '2020-01-02 03:04:05.1234'")).matches("VALUES BIGINT '1'");

        assertUpdate("CREATE TABLE nsc.precisions.ctas AS SELECT TIME '12:34:56.789' AS t3, TIMESTAMP '2020-01-02 03:04:05' AS ts0", 1);
        assertThat(computeActual("DESCRIBE nsc.precisions.ctas").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .containsExactly("t3 time(6)", "ts0 timestamp(3)");
        assertThat(query("SELECT * FROM nsc.precisions.ctas")).matches("VALUES (TIME '12:34:56.789000', TIMESTAMP '2020-01-02 03:04:05.000')");

        assertUpdate("DROP TABLE nsc.precisions.t");
        assertUpdate("DROP TABLE nsc.precisions.ctas");
        assertUpdate("DROP SCHEMA nsc.precisions");
    }

    @Test
    void testBadInputGetsClearErrorsAndLeavesNothing()
    {
        assertUpdate("CREATE SCHEMA nsc.errors");
        assertUpdate("CREATE TABLE nsc.errors.existing (a bigint)");

        assertThat(query("CREATE TABLE nsc.errors.t (a bigint, m map(varchar, bigint))"))
                .failure().hasErrorCode(NOT_SUPPORTED)
                .hasMessage("Unsupported column type: map(varchar, bigint)");
        // nsc stores no time finer than microseconds: rounding would change the value
        assertThat(query("CREATE TABLE nsc.errors.t AS SELECT 1 AS a, TIME '12:00:00.123456789' AS t"))
                .failure().hasErrorCode(NOT_SUPPORTED)
                .hasMessage("Unsupported column type: time(9)");
        // the cluster is short of nodes, the value is fine: never fewer replicas than asked for
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (replication = 5)"))
                .failure().hasErrorCode(NSC_NOT_ENOUGH_STORAGE_NODES)
                .hasMessage("replication 5 needs 5 live storage nodes, but only 3 are live");
        assertThat(query("CREATE TABLE nsc.errors.t WITH (replication = 5) AS SELECT 1 AS a"))
                .failure().hasErrorCode(NSC_NOT_ENOUGH_STORAGE_NODES)
                .hasMessage("replication 5 needs 5 live storage nodes, but only 3 are live");
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (replication = 0)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("replication must be at least 1, got 0");
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (min_replicas = 0)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("min_replicas must be at least 1, got 0");
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (replication = 2, min_replicas = 3)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessage("min_replicas must be between 1 and the table's replication (2), got 3");
        assertThat(query("CREATE TABLE nsc.errors.t WITH (min_replicas = 3) AS SELECT 1 AS a"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessage("min_replicas must be between 1 and the table's replication (2, the default), got 3");
        // a bad property is reported before the cluster's shortage
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (replication = 5, min_replicas = 6)"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessage("min_replicas must be between 1 and the table's replication (5), got 6");
        assertThat(query("CREATE TABLE nsc.no_such_schema.t (a bigint)"))
                .failure().hasErrorCode(SCHEMA_NOT_FOUND)
                .hasMessage("Schema no_such_schema not found");
        assertThat(query("CREATE TABLE nsc.no_such_schema.t AS SELECT 1 AS a"))
                .failure().hasErrorCode(SCHEMA_NOT_FOUND)
                .hasMessage("Schema no_such_schema not found");
        assertThat(query("CREATE TABLE nsc.errors.existing AS SELECT 1 AS a"))
                .failure().hasErrorCode(TABLE_ALREADY_EXISTS)
                .hasMessageContaining("nsc.errors.existing' already exists");
        assertThat(query("CREATE TABLE nsc.errors.existing (a bigint)"))
                .failure().hasErrorCode(TABLE_ALREADY_EXISTS);
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (row_group_size = 'lots')"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("Invalid row_group_size 'lots': use a row count such as '100000' or a data size such as '64MB'");
        assertThat(query("CREATE TABLE nsc.errors.t WITH (row_group_size = '0') AS SELECT 1 AS a"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("row_group_size must be between 1 and 2147483647 rows, got '0'");
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (sorted_by = ARRAY['b'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessage("sorted_by names column 'b', which the table does not have (columns: a)");
        assertThat(query("CREATE TABLE nsc.errors.t WITH (sorted_by = ARRAY['a', 'nope']) AS SELECT 1 AS a"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("sorted_by names column 'nope'");
        assertThat(query("CREATE TABLE nsc.errors.t (a bigint) WITH (partitioned_by = ARRAY['a'])"))
                .failure().hasErrorCode(INVALID_TABLE_PROPERTY)
                .hasMessageContaining("table property 'partitioned_by' does not exist");
        assertThat(query("CREATE TABLE nsc.errors.\"Bad-Name\" (a bigint)"))
                .failure().hasErrorCode(NOT_SUPPORTED)
                .hasMessageContaining("Invalid table name 'bad-name'");
        assertThat(query("INSERT INTO nsc.errors.missing VALUES 1"))
                .failure().hasMessageContaining("Table 'nsc.errors.missing' does not exist");

        assertThat(query("DROP SCHEMA nsc.errors"))
                .failure().hasErrorCode(SCHEMA_NOT_EMPTY)
                .hasMessageContaining("Cannot drop non-empty schema 'errors'");

        // nothing above left a table behind
        assertThat(query("SHOW TABLES FROM nsc.errors")).skippingTypesCheck().matches("VALUES 'existing'");
        assertUpdate("DROP TABLE nsc.errors.existing");
        assertUpdate("DROP SCHEMA nsc.errors");
    }

    @Test
    void testFailedStatementLeavesNoVisibleData()
            throws IOException
    {
        assertUpdate("CREATE SCHEMA nsc.failures");
        assertUpdate("CREATE TABLE nsc.failures.target (id bigint, digest varchar, at timestamp(9)) WITH (row_group_size = '1000')");
        assertUpdate("INSERT INTO nsc.failures.target VALUES (0, 'kept', TIMESTAMP '2000-01-01 00:00:00.000000000')", 1);
        // The statements fail in the writer, on the last row: its timestamp does not fit Parquet's
        // INT64 nanoseconds. The rows come from one unnested array, one split read in order, and
        // reach the writer in that order, so the small-buffer writer (files of 64kB, row groups of
        // 1000 rows, about 40kB of digests each) has uploaded files of the earlier rows by then,
        // however the statement is scheduled.
        Session writersInline = Session.builder(getSession())
                .setSystemProperty("task_concurrency", "1")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .setSystemProperty("redistribute_writes", "false")
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .build();
        String failingSelect = """
                SELECT x AS id, to_hex(sha256(to_utf8(CAST(x AS varchar)))) AS digest,
                    CASE WHEN x = 10000 THEN TIMESTAMP '3000-01-01 00:00:00.000000000' ELSE TIMESTAMP '2000-01-01 00:00:00.000000000' + x * INTERVAL '1' SECOND END AS at
                FROM UNNEST(sequence(1, 10000)) AS rows(x)""";

        long uploadedBefore = bytesUploaded();
        assertThat(query(writersInline, "CREATE TABLE nsc_small_buffer.failures.failed WITH (row_group_size = '1000') AS " + failingSelect))
                .failure().hasErrorCode(NUMERIC_VALUE_OUT_OF_RANGE);
        assertThat(bytesUploaded()).as("files were uploaded before the failure").isGreaterThan(uploadedBefore);
        assertThat(query("SHOW TABLES FROM nsc.failures")).skippingTypesCheck().matches("VALUES 'target'");

        uploadedBefore = bytesUploaded();
        assertThat(query(writersInline, "INSERT INTO nsc_small_buffer.failures.target " + failingSelect))
                .failure().hasErrorCode(NUMERIC_VALUE_OUT_OF_RANGE);
        assertThat(bytesUploaded()).as("files were uploaded before the failure").isGreaterThan(uploadedBefore);
        assertThat(query("SELECT id, digest FROM nsc.failures.target")).matches("VALUES (BIGINT '0', VARCHAR 'kept')");

        // the page sinks deleted their local files, the uploaded ones and the aborted ones (the
        // client may hear of the failure before every writer task has finished aborting)
        assertEventually(new Duration(30, SECONDS), () -> {
            try (Stream<Path> files = Files.list(smallBufferTempDir)) {
                assertThat(files.toList()).isEmpty();
            }
        });

        assertUpdate("DROP TABLE nsc.failures.target");
        assertUpdate("DROP SCHEMA nsc.failures");
    }

    // assertj's any-order comparison is quadratic: tens of thousands of rows take minutes
    private void assertSameRows(String actual, String expected)
    {
        MaterializedResult actualRows = computeActual(actual);
        MaterializedResult expectedRows = computeActual(expected);
        assertThat(actualRows.getTypes()).isEqualTo(expectedRows.getTypes());
        assertEqualsIgnoreOrder(actualRows.getMaterializedRows(), expectedRows.getMaterializedRows());
    }

    private static String utcRows()
    {
        return TYPE_ROWS_IN_UTC;
    }

    private Session rawReads()
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.RAW.name()).build();
    }

    private Session withoutPruning()
    {
        return Session.builder(rawReads()).setCatalogSessionProperty("nsc", STATS_PRUNING_ENABLED, "false").build();
    }

    /** Bytes every storage node received through uploads, summed. */
    private long bytesUploaded()
    {
        long bytes = 0;
        for (StorageServer node : cluster.storageNodes()) {
            ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + node.grpcPort(), cluster.clientSecurity());
            try {
                bytes += StorageServiceGrpc.newBlockingStub(channel).getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getBytesUploaded();
            }
            finally {
                GrpcChannels.close(channel);
            }
        }
        return bytes;
    }
}
