package io.nsc.trino;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.io.Resources;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.tools.load.LoadException;
import io.nsc.tools.load.LoadOptions;
import io.nsc.tools.load.ParquetLoader;
import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.nsc.trino.NscSessionProperties.STATS_PRUNING_ENABLED;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static java.lang.String.join;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every Parquet primitive type Trino maps, read back through nsc exactly as written, from files
 * of two writers: pyarrow (the committed fixtures of nsc-protocol: every codec, data page v1 and
 * v2, dictionary and plain encoding) and Trino's own ParquetWriter (written here, one table per
 * codec). Then filters over each type must select the same rows from nsc as from the same values
 * in a VALUES relation, with the coordinator's stats pruning on and off: both run in the same
 * Trino, so only nsc's pruning could make them differ.
 *
 * <p>LZ4 is the odd codec out: the LZ4 Trino 476 reads is parquet-mr's (Hadoop framing), which
 * neither writer produces. pyarrow writes LZ4_RAW, which the loader reframes as Hadoop's LZ4, and
 * Trino's writer bare LZ4 blocks under the LZ4 codec, which the loader refuses. The
 * {@code trino_lz4} table holds Trino's pages recompressed in Hadoop framing
 * ({@link TrinoParquetFiles#recompressWithHadoopLz4}).
 *
 * <p>Parquet has no char(n): Trino's writer stores a char column as a plain string, which any
 * reader (nsc too) maps back to varchar, so no loaded file can give a char(n) column and none is
 * tested here (the connector's own writes of char(n) are, in TestNscWrites).
 *
 * <p>In nsc-tools rather than next to the connector because it loads with the tools' loader, and
 * nsc-tools depends on trino-nsc (not the other way round).
 */
final class TestNscTypes
        extends AbstractTestQueryFramework
{
    private static final String SCHEMA = "types";
    private static final String TABLE_PLACEHOLDER = "<table>";

    private static final List<Column> TRINO_COLUMNS = columns(
            "id integer",
            "c_boolean boolean",
            "c_tinyint tinyint",
            "c_smallint smallint",
            "c_integer integer",
            "c_bigint bigint",
            "c_real real",
            "c_double double",
            "c_decimal_9_2 decimal(9,2)",
            "c_decimal_18_4 decimal(18,4)",
            "c_decimal_38_10 decimal(38,10)",
            "c_varchar varchar",
            "c_varbinary varbinary",
            "c_date date",
            // Trino's writer has no time(3) or time(9): it writes TIME(MICROS) only
            "c_time_us time(6)",
            "c_timestamp_ms timestamp(3)",
            "c_timestamp_us timestamp(6)",
            "c_timestamp_ns timestamp(9)",
            "c_timestamptz_ms timestamp(3) with time zone",
            "c_timestamptz_us timestamp(6) with time zone",
            "c_uuid uuid");

    // One file (one row group) per inner list. Each row is the SQL of its values, in column order.
    private static final List<List<String>> TRINO_ROW_GROUPS = List.of(
            // ordinary values, a row of NULLs, empty strings, instants given in other zones
            List.of(
                    "0, true, TINYINT '1', SMALLINT '100', 1000, BIGINT '1000000000000', REAL '1.5', DOUBLE '1.5', DECIMAL '1234567.89', DECIMAL '12345678901234.5678', " +
                            "DECIMAL '1234567890123456789012345678.0123456789', 'hello', X'0001', DATE '2024-01-15', TIME '12:34:56.789123', " +
                            "TIMESTAMP '2023-11-14 22:13:20.123', TIMESTAMP '2023-11-14 22:13:20.123456', TIMESTAMP '2023-11-14 22:13:20.123456789', " +
                            "TIMESTAMP '2023-11-14 22:13:20.123 UTC', TIMESTAMP '2023-11-14 22:13:20.123456 UTC', UUID '01234567-89ab-cdef-0123-456789abcdef'",
                    "1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
                    "2, false, TINYINT '-1', SMALLINT '-100', -1000, BIGINT '-1000000000000', REAL '-2.25', DOUBLE '-2.25', DECIMAL '-0.01', DECIMAL '-1.0000', " +
                            "DECIMAL '-0.0000000001', '', X'', DATE '1970-01-01', TIME '00:00:00.000000', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000', TIMESTAMP '1970-01-01 00:00:00.000000', TIMESTAMP '1970-01-01 00:00:00.000000000', " +
                            "TIMESTAMP '1970-01-01 01:00:00.000 +01:00', TIMESTAMP '2020-06-30 20:00:00.123456 America/New_York', UUID '00000000-0000-0000-0000-000000000000'"),
            // the extremes of each type, -0.0, the smallest subnormals, 4-byte UTF-8; timestamp(9)
            // starts a microsecond after the INT64 nanosecond minimum, which Trino's writer
            // overflows on (it scales micros to nanos first); pyarrow's file has the minimum
            List.of(
                    "3, true, TINYINT '-128', SMALLINT '-32768', -2147483648, BIGINT '-9223372036854775808', REAL '-0.0', DOUBLE '-0.0', DECIMAL '-9999999.99', " +
                            "DECIMAL '-99999999999999.9999', DECIMAL '-9999999999999999999999999999.9999999999', 'ünïcödé ✓ 日本 😀', X'FFFFFFFFFFFFFFFFFFFF', " +
                            "DATE '0001-01-01', TIME '00:00:00.000000', TIMESTAMP '0001-01-01 00:00:00.000', TIMESTAMP '0001-01-01 00:00:00.000000', " +
                            "TIMESTAMP '1677-09-21 00:12:43.145225000', TIMESTAMP '0001-01-01 00:00:00.000 UTC', TIMESTAMP '0001-01-01 00:00:00.000000 UTC', " +
                            "UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff'",
                    "4, true, TINYINT '127', SMALLINT '32767', 2147483647, BIGINT '9223372036854775807', REAL '3.4028235E38', DOUBLE '1.7976931348623157E308', " +
                            "DECIMAL '9999999.99', DECIMAL '99999999999999.9999', DECIMAL '9999999999999999999999999999.9999999999', 'zzz', X'7F', " +
                            "DATE '9999-12-31', TIME '23:59:59.999999', TIMESTAMP '9999-12-31 23:59:59.999', TIMESTAMP '9999-12-31 23:59:59.999999', " +
                            "TIMESTAMP '2262-04-11 23:47:16.854775807', TIMESTAMP '9999-12-31 23:59:59.999 UTC', TIMESTAMP '9999-12-31 23:59:59.999999 UTC', " +
                            "UUID '80000000-0000-0000-8000-000000000000'",
                    "5, false, TINYINT '0', SMALLINT '0', 0, BIGINT '0', REAL '1.4E-45', DOUBLE '4.9E-324', DECIMAL '0.00', DECIMAL '0.0000', " +
                            "DECIMAL '0.0000000000', 'it''s', X'80', DATE '1969-12-31', TIME '00:00:00.000001', " +
                            "TIMESTAMP '1969-12-31 23:59:59.999', TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP '1969-12-31 23:59:59.999999999', " +
                            "TIMESTAMP '1969-12-31 23:59:59.999 UTC', TIMESTAMP '1969-12-31 23:59:59.999999 UTC', NULL"),
            // NaN and infinities, strings sharing their 8-byte prefix, timestamps a nanosecond
            // around the epoch, a long decimal just inside and just outside the 64-bit key
            List.of(
                    "6, false, TINYINT '5', SMALLINT '7', 42, BIGINT '1', CAST(nan() AS real), nan(), DECIMAL '1.00', DECIMAL '0.0001', DECIMAL '1.5000000000', " +
                            "'abcdefgh1', NULL, DATE '2000-02-29', TIME '12:00:00.000000', TIMESTAMP '1970-01-01 00:00:00.001', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000001', TIMESTAMP '1969-12-31 23:59:59.999999001', TIMESTAMP '1970-01-01 00:00:00.001 UTC', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000001 UTC', UUID '07f6e5d4-c3b2-a189-07f6-e5d4c3b2a189'",
                    "7, NULL, TINYINT '5', NULL, 43, BIGINT '2', CAST(infinity() AS real), DOUBLE '1e300', DECIMAL '2.00', DECIMAL '0.0001', " +
                            "DECIMAL '922337203.6854775807', 'abcdefgh2', NULL, DATE '2000-02-29', TIME '12:00:00.000000', TIMESTAMP '1970-01-01 00:00:00.002', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000002', TIMESTAMP '1970-01-01 00:00:00.000001001', TIMESTAMP '1970-01-01 00:00:00.002 UTC', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000002 UTC', UUID '091a2b3c-4d5e-6f78-091a-2b3c4d5e6f78'",
                    "8, false, TINYINT '5', SMALLINT '8', NULL, BIGINT '3', CAST(-infinity() AS real), -infinity(), DECIMAL '3.00', DECIMAL '0.0002', " +
                            "DECIMAL '922337203.6854775808', 'abcdefgh10', NULL, DATE '2000-03-01', TIME '12:00:00.000001', TIMESTAMP '1970-01-01 00:00:00.003', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000003', TIMESTAMP '1970-01-01 00:00:00.000000999', TIMESTAMP '1970-01-01 00:00:00.003 UTC', " +
                            "TIMESTAMP '1970-01-01 00:00:00.000003 UTC', UUID '0a3d70a3-d70a-3d67-0a3d-70a3d70a3d67'"),
            // one value per column, and a NaN between two equal floats: min = max = 2.0 while a
            // row is NaN, which no min/max shows
            List.of(
                    "9, true, TINYINT '9', SMALLINT '9', 9, BIGINT '9', REAL '2.0', DOUBLE '2.0', DECIMAL '9.00', DECIMAL '9.0000', DECIMAL '9.0000000000', " +
                            "'same', X'09', DATE '2009-09-09', TIME '09:09:09.090909', TIMESTAMP '2009-09-09 09:09:09.009', TIMESTAMP '2009-09-09 09:09:09.000009', " +
                            "TIMESTAMP '2009-09-09 09:09:09.000000009', TIMESTAMP '2009-09-09 09:09:09.009 UTC', TIMESTAMP '2009-09-09 09:09:09.000009 UTC', " +
                            "UUID '99999999-9999-9999-9999-999999999999'",
                    "10, true, TINYINT '9', SMALLINT '9', 9, BIGINT '9', CAST(nan() AS real), nan(), DECIMAL '9.00', DECIMAL '9.0000', DECIMAL '9.0000000000', " +
                            "'same', X'09', DATE '2009-09-09', TIME '09:09:09.090909', TIMESTAMP '2009-09-09 09:09:09.009', TIMESTAMP '2009-09-09 09:09:09.000009', " +
                            "TIMESTAMP '2009-09-09 09:09:09.000000009', TIMESTAMP '2009-09-09 09:09:09.009 UTC', TIMESTAMP '2009-09-09 09:09:09.000009 UTC', " +
                            "UUID '99999999-9999-9999-9999-999999999999'",
                    "11, true, TINYINT '9', SMALLINT '9', 9, BIGINT '9', REAL '2.0', DOUBLE '2.0', DECIMAL '9.00', DECIMAL '9.0000', DECIMAL '9.0000000000', " +
                            "'same', X'09', DATE '2009-09-09', TIME '09:09:09.090909', TIMESTAMP '2009-09-09 09:09:09.009', TIMESTAMP '2009-09-09 09:09:09.000009', " +
                            "TIMESTAMP '2009-09-09 09:09:09.000000009', TIMESTAMP '2009-09-09 09:09:09.009 UTC', TIMESTAMP '2009-09-09 09:09:09.000009 UTC', " +
                            "UUID '99999999-9999-9999-9999-999999999999'"));

    // Trino's writer's codecs; "lz4" is added from the uncompressed files (see TrinoParquetFiles)
    private static final Map<String, CompressionCodec> TRINO_CODECS = ImmutableMap.of(
            "uncompressed", CompressionCodec.UNCOMPRESSED,
            "snappy", CompressionCodec.SNAPPY,
            "gzip", CompressionCodec.GZIP,
            "zstd", CompressionCodec.ZSTD);

    // Filters per column: comparisons at the extremes and around the values in the files, so
    // that min/max keys, lossy keys (strings, nanoseconds, long decimals), NaN and null counts
    // all decide some row group.
    private static final Map<String, List<String>> PREDICATES = ImmutableMap.<String, List<String>>builder()
            .put("c_boolean", List.of("c_boolean", "NOT c_boolean", "c_boolean = false", "c_boolean <> true", "c_boolean IN (false)", "c_boolean IS NULL", "c_boolean IS NOT NULL"))
            .put("c_tinyint", integerPredicates("c_tinyint", "TINYINT '5'", "-128", "127", "BETWEEN -1 AND 1", "IN (-128, 127, 9)"))
            .put("c_smallint", integerPredicates("c_smallint", "SMALLINT '7'", "-32768", "32767", "BETWEEN 0 AND 8", "IN (-100, 100, 8)"))
            .put("c_integer", integerPredicates("c_integer", "42", "-2147483648", "2147483647", "BETWEEN 0 AND 1000", "IN (-1000, 43)"))
            .put("c_bigint", integerPredicates("c_bigint", "BIGINT '1'", "BIGINT '-9223372036854775808'", "BIGINT '9223372036854775807'", "BETWEEN 1 AND 3", "IN (0, -1000000000000)"))
            .put("c_real", floatingPredicates("c_real", "REAL"))
            .put("c_double", ImmutableList.<String>builder()
                    .addAll(floatingPredicates("c_double", "DOUBLE"))
                    .add("c_double = 1e300", "c_double > 1e299", "c_double = -infinity()", "c_double > 1.7976931348623157E308", "c_double < 1e-323 AND c_double > 0")
                    .build())
            .put("c_decimal_9_2", List.of(
                    "c_decimal_9_2 = 1234567.89", "c_decimal_9_2 < 0", "c_decimal_9_2 BETWEEN 1 AND 2", "c_decimal_9_2 IN (9999999.99, -9999999.99)",
                    "c_decimal_9_2 <> 1.00", "c_decimal_9_2 > 9999999.98", "c_decimal_9_2 = DECIMAL '1.001'", "c_decimal_9_2 >= DECIMAL '2.995'",
                    "c_decimal_9_2 IS NULL", "c_decimal_9_2 IS NOT NULL"))
            .put("c_decimal_18_4", List.of(
                    "c_decimal_18_4 = 0.0001", "c_decimal_18_4 < -99999999999999.9998", "c_decimal_18_4 BETWEEN 0.0001 AND 0.0002",
                    "c_decimal_18_4 IN (12345678901234.5678, 99999999999999.9999)", "c_decimal_18_4 <> 0.0001", "c_decimal_18_4 > 0.00015",
                    "c_decimal_18_4 IS NULL", "c_decimal_18_4 IS NOT NULL"))
            .put("c_decimal_38_10", List.of(
                    "c_decimal_38_10 = DECIMAL '922337203.6854775807'", "c_decimal_38_10 = DECIMAL '922337203.6854775808'",
                    "c_decimal_38_10 > DECIMAL '922337203.6854775807'", "c_decimal_38_10 >= DECIMAL '922337203.6854775808'",
                    "c_decimal_38_10 < DECIMAL '-9999999999999999999999999999.9999999998'", "c_decimal_38_10 > DECIMAL '9999999999999999999999999999.9999999998'",
                    "c_decimal_38_10 BETWEEN 1 AND 2", "c_decimal_38_10 IN (0, DECIMAL '1234567890123456789012345678.0123456789')",
                    "c_decimal_38_10 <> DECIMAL '1.5'", "c_decimal_38_10 IS NULL", "c_decimal_38_10 IS NOT NULL"))
            .put("c_varchar", List.of(
                    "c_varchar = 'abcdefgh2'", "c_varchar = 'abcdefgh'", "c_varchar > 'abcdefgh1'", "c_varchar < 'abcdefgh2'",
                    "c_varchar BETWEEN 'abcdefgh10' AND 'abcdefgh2'", "c_varchar > 'abcdefgh' AND c_varchar < 'abcdefgh10'", "c_varchar LIKE 'abcdefgh1%'",
                    "c_varchar IN ('hello', 'it''s', 'same')", "c_varchar <> 'abcdefgh1'", "c_varchar = ''", "c_varchar < 'a'", "c_varchar > 'zz'",
                    "c_varchar >= 'ü'", "c_varchar IS NULL", "c_varchar IS NOT NULL"))
            .put("c_varbinary", List.of(
                    "c_varbinary = X'80'", "c_varbinary = X''", "c_varbinary > X'7F'", "c_varbinary < X'01'", "c_varbinary BETWEEN X'00' AND X'7F'",
                    "c_varbinary IN (X'0001', X'FFFFFFFFFFFFFFFFFFFF')", "c_varbinary <> X'80'", "c_varbinary > X'FFFFFFFFFFFFFFFF'",
                    "c_varbinary = X'FFFFFFFFFFFFFFFF'", "c_varbinary IS NULL", "c_varbinary IS NOT NULL"))
            .put("c_date", List.of(
                    "c_date = DATE '2000-02-29'", "c_date < DATE '0001-01-02'", "c_date > DATE '9999-12-30'",
                    "c_date BETWEEN DATE '1969-12-31' AND DATE '1970-01-01'", "c_date IN (DATE '2024-01-15', DATE '2000-03-01')", "c_date <> DATE '2000-02-29'",
                    "c_date IS NULL", "c_date IS NOT NULL"))
            .put("c_time_ms", List.of(
                    "c_time_ms = TIME '12:00:00.001'", "c_time_ms < TIME '00:00:00.001'", "c_time_ms > TIME '23:59:59.998'",
                    "c_time_ms BETWEEN TIME '12:00:00' AND TIME '12:00:00.001'", "c_time_ms IN (TIME '12:34:56.789', TIME '00:00:00.001')",
                    "c_time_ms <> TIME '12:00:00.000'", "c_time_ms = TIME '12:00:00.0005'", "c_time_ms > TIME '12:00:00.0005'",
                    "c_time_ms IS NULL", "c_time_ms IS NOT NULL"))
            .put("c_time_us", List.of(
                    "c_time_us = TIME '00:00:00.000001'", "c_time_us < TIME '00:00:00.000001'", "c_time_us > TIME '23:59:59.999998'",
                    "c_time_us BETWEEN TIME '12:00:00' AND TIME '12:00:00.000001'", "c_time_us IN (TIME '12:34:56.789123', TIME '09:09:09.090909')",
                    "c_time_us <> TIME '12:00:00.000000'", "c_time_us > TIME '12:00:00.0000005'", "c_time_us IS NULL", "c_time_us IS NOT NULL"))
            .put("c_timestamp_ms", List.of(
                    "c_timestamp_ms = TIMESTAMP '1970-01-01 00:00:00.002'", "c_timestamp_ms < TIMESTAMP '0001-01-01 00:00:00.001'",
                    "c_timestamp_ms > TIMESTAMP '9999-12-31 23:59:59.998'",
                    "c_timestamp_ms BETWEEN TIMESTAMP '1969-12-31 23:59:59.999' AND TIMESTAMP '1970-01-01 00:00:00.001'",
                    "c_timestamp_ms > TIMESTAMP '1970-01-01 00:00:00.0015'", "c_timestamp_ms = TIMESTAMP '1970-01-01 00:00:00.0015'",
                    "c_timestamp_ms IN (TIMESTAMP '2023-11-14 22:13:20.123', TIMESTAMP '1970-01-01 00:00:00.003')",
                    "c_timestamp_ms <> TIMESTAMP '1970-01-01 00:00:00.000'", "c_timestamp_ms IS NULL", "c_timestamp_ms IS NOT NULL"))
            .put("c_timestamp_us", List.of(
                    "c_timestamp_us = TIMESTAMP '1970-01-01 00:00:00.000002'", "c_timestamp_us < TIMESTAMP '0001-01-01 00:00:00.000001'",
                    "c_timestamp_us > TIMESTAMP '9999-12-31 23:59:59.999998'",
                    "c_timestamp_us BETWEEN TIMESTAMP '1969-12-31 23:59:59.999999' AND TIMESTAMP '1970-01-01 00:00:00.000001'",
                    "c_timestamp_us > TIMESTAMP '1970-01-01 00:00:00.0000015'", "c_timestamp_us >= TIMESTAMP '1970-01-01 00:00:00.000002999'",
                    "c_timestamp_us IN (TIMESTAMP '2023-11-14 22:13:20.123456', TIMESTAMP '1970-01-01 00:00:00.000003')",
                    "c_timestamp_us <> TIMESTAMP '1970-01-01 00:00:00.000000'", "c_timestamp_us IS NULL", "c_timestamp_us IS NOT NULL"))
            .put("c_timestamp_ns", List.of(
                    "c_timestamp_ns = TIMESTAMP '1970-01-01 00:00:00.000000999'", "c_timestamp_ns > TIMESTAMP '1970-01-01 00:00:00.000000999'",
                    "c_timestamp_ns >= TIMESTAMP '1970-01-01 00:00:00.000001000'", "c_timestamp_ns < TIMESTAMP '1970-01-01 00:00:00.000000000'",
                    "c_timestamp_ns BETWEEN TIMESTAMP '1969-12-31 23:59:59.999999002' AND TIMESTAMP '1970-01-01 00:00:00.000000998'",
                    "c_timestamp_ns = TIMESTAMP '1677-09-21 00:12:43.145224192'", "c_timestamp_ns < TIMESTAMP '1677-09-21 00:12:43.145225001'", "c_timestamp_ns > TIMESTAMP '2262-04-11 23:47:16.854775806'",
                    "c_timestamp_ns > TIMESTAMP '1970-01-01 00:00:00.0000010005'",
                    "c_timestamp_ns IN (TIMESTAMP '1970-01-01 00:00:00.000001001', TIMESTAMP '2023-11-14 22:13:20.123456789')",
                    "c_timestamp_ns <> TIMESTAMP '1969-12-31 23:59:59.999999001'", "c_timestamp_ns IS NULL", "c_timestamp_ns IS NOT NULL"))
            .put("c_time_ns", List.of(
                    "c_time_ns = TIME '12:00:00.000000001'", "c_time_ns < TIME '00:00:00.000000001'", "c_time_ns > TIME '23:59:59.999999998'",
                    "c_time_ns BETWEEN TIME '12:00:00.000000000' AND TIME '12:00:00.000000999'",
                    "c_time_ns IN (TIME '12:34:56.789123456', TIME '00:00:00.000000001')",
                    "c_time_ns <> TIME '00:00:00.000000000'", "c_time_ns > TIME '12:00:00.000000998'", "c_time_ns IS NULL", "c_time_ns IS NOT NULL"))
            .put("c_timestamptz_ns", List.of(
                    "c_timestamptz_ns = TIMESTAMP '1970-01-01 00:00:00.000000999 UTC'", "c_timestamptz_ns = TIMESTAMP '1970-01-01 01:00:00.000001001 +01:00'",
                    "c_timestamptz_ns < TIMESTAMP '1677-09-21 00:12:43.145224193 UTC'", "c_timestamptz_ns > TIMESTAMP '2262-04-11 23:47:16.854775806 UTC'",
                    "c_timestamptz_ns BETWEEN TIMESTAMP '1969-12-31 23:59:59.999999999 UTC' AND TIMESTAMP '1970-01-01 00:00:00.000000999 UTC'",
                    "c_timestamptz_ns > TIMESTAMP '1970-01-01 00:00:00.000001000 UTC'",
                    "c_timestamptz_ns IN (TIMESTAMP '2023-11-14 14:13:20.123456789 America/Los_Angeles', TIMESTAMP '1969-12-31 23:59:59.999999001 UTC')",
                    "c_timestamptz_ns <> TIMESTAMP '1970-01-01 00:00:00.000000000 UTC'", "c_timestamptz_ns IS NULL", "c_timestamptz_ns IS NOT NULL"))
            .put("c_timestamptz_ms", List.of(
                    "c_timestamptz_ms = TIMESTAMP '1970-01-01 00:00:00.002 UTC'", "c_timestamptz_ms = TIMESTAMP '1970-01-01 01:00:00.002 +01:00'",
                    "c_timestamptz_ms < TIMESTAMP '0001-01-01 00:00:00.001 UTC'", "c_timestamptz_ms > TIMESTAMP '9999-12-31 23:59:59.998 UTC'",
                    "c_timestamptz_ms BETWEEN TIMESTAMP '1969-12-31 23:59:59.999 UTC' AND TIMESTAMP '1970-01-01 00:00:00.001 UTC'",
                    "c_timestamptz_ms > TIMESTAMP '1970-01-01 00:00:00.0015 UTC'",
                    "c_timestamptz_ms IN (TIMESTAMP '2023-11-14 14:13:20.123 America/Los_Angeles', TIMESTAMP '1970-01-01 00:00:00.003 UTC')",
                    "c_timestamptz_ms <> TIMESTAMP '1970-01-01 00:00:00.000 UTC'", "c_timestamptz_ms IS NULL", "c_timestamptz_ms IS NOT NULL"))
            .put("c_timestamptz_us", List.of(
                    "c_timestamptz_us = TIMESTAMP '1970-01-01 00:00:00.000002 UTC'", "c_timestamptz_us = TIMESTAMP '2020-07-01 00:00:00.123456 UTC'",
                    "c_timestamptz_us < TIMESTAMP '0001-01-01 00:00:00.000001 UTC'", "c_timestamptz_us > TIMESTAMP '9999-12-31 23:59:59.999998 UTC'",
                    "c_timestamptz_us BETWEEN TIMESTAMP '1969-12-31 23:59:59.999999 UTC' AND TIMESTAMP '1970-01-01 00:00:00.000001 UTC'",
                    "c_timestamptz_us > TIMESTAMP '1970-01-01 00:00:00.0000015 UTC'",
                    "c_timestamptz_us IN (TIMESTAMP '2023-11-14 22:13:20.123456 UTC', TIMESTAMP '1970-01-01 09:00:00.000003 +09:00')",
                    "c_timestamptz_us <> TIMESTAMP '1970-01-01 00:00:00.000000 UTC'", "c_timestamptz_us IS NULL", "c_timestamptz_us IS NOT NULL"))
            .put("c_uuid", List.of(
                    "c_uuid = UUID '07f6e5d4-c3b2-a189-07f6-e5d4c3b2a189'", "c_uuid < UUID '05b05b05-b05b-05ab-05b0-5b05b05b05ab'",
                    "c_uuid > UUID '80000000-0000-0000-0000-000000000000'",
                    "c_uuid BETWEEN UUID '01234567-89ab-cdef-0123-456789abcdef' AND UUID '07f6e5d4-c3b2-a189-07f6-e5d4c3b2a189'",
                    "c_uuid IN (UUID '00000000-0000-0000-0000-000000000000', UUID '0a3d70a3-d70a-3d67-0a3d-70a3d70a3d67')",
                    "c_uuid <> UUID '99999999-9999-9999-9999-999999999999'", "c_uuid IS NULL", "c_uuid IS NOT NULL"))
            .buildOrThrow();

    private TestingNscCluster cluster;
    private Path files;
    private Expected pyarrow;
    private Expected trino;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        files = Files.createDirectories(cluster.root().resolve("files"));
        QueryRunner queryRunner = NscQueryRunner.create(cluster, Map.of());

        pyarrow = pyarrowExpected();
        for (String variant : pyarrowVariants().toList()) {
            load("pyarrow_" + variant, copyFixture(variant + ".parquet"), LoadOptions.defaults());
        }

        trino = new Expected(TRINO_COLUMNS, TRINO_ROW_GROUPS.stream().flatMap(List::stream).collect(toImmutableList()));
        List<String> names = TRINO_COLUMNS.stream().map(Column::name).collect(toImmutableList());
        for (Map.Entry<String, CompressionCodec> codec : TRINO_CODECS.entrySet()) {
            Path directory = Files.createDirectories(files.resolve("trino_" + codec.getKey()));
            for (int rowGroup = 0; rowGroup < TRINO_ROW_GROUPS.size(); rowGroup++) {
                MaterializedResult rows = queryRunner.execute(new Expected(TRINO_COLUMNS, TRINO_ROW_GROUPS.get(rowGroup)).query());
                TrinoParquetFiles.write(directory.resolve("part-%s.parquet".formatted(rowGroup)), names, rows, codec.getValue());
            }
            load("trino_" + codec.getKey(), directory, LoadOptions.defaults());
        }
        Path lz4 = Files.createDirectories(files.resolve("trino_lz4"));
        for (int rowGroup = 0; rowGroup < TRINO_ROW_GROUPS.size(); rowGroup++) {
            String file = "part-%s.parquet".formatted(rowGroup);
            TrinoParquetFiles.recompressWithHadoopLz4(files.resolve("trino_uncompressed").resolve(file), lz4.resolve(file));
        }
        load("trino_lz4", lz4, LoadOptions.defaults());
        return queryRunner;
    }

    static Stream<String> pyarrowVariants()
    {
        // lz4: pyarrow writes LZ4_RAW, which the loader gives Hadoop's framing
        Stream<String> variants = Stream.of("none", "snappy", "gzip", "zstd", "lz4")
                .flatMap(codec -> Stream.of("v1", "v2").flatMap(pageVersion -> Stream.of("dict", "plain")
                        .map(encoding -> "all_types_%s_%s_%s".formatted(codec, pageVersion, encoding))));
        return Stream.concat(Stream.of("all_types"), variants);
    }

    @ParameterizedTest
    @MethodSource("pyarrowVariants")
    void testPyarrowRoundTrip(String variant)
    {
        assertThat(query("SELECT %s FROM nsc.%s.pyarrow_%s".formatted(selectList(pyarrow.columns(), false), SCHEMA, variant)))
                .matches("SELECT %s FROM %s".formatted(selectList(pyarrow.columns(), true), pyarrow.relation()));
        // decoded by the storage node and sent as Trino pages
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT %s FROM nsc.%s.pyarrow_%s".formatted(selectList(pyarrow.columns(), false), SCHEMA, variant)))
                .matches("SELECT %s FROM %s".formatted(selectList(pyarrow.columns(), true), pyarrow.relation()));
    }

    @Test
    void testNanosecondTimeAndTimestampWithTimeZone()
    {
        // Trino 476's reader cannot decode TIME(NANOS) or UTC-adjusted TIMESTAMP(NANOS) into these
        // types; nsc decodes the INT64 nanos and converts, so they keep full precision
        assertThat(query("SELECT column_name, data_type FROM information_schema.columns " +
                "WHERE table_schema = 'types' AND table_name = 'pyarrow_all_types' AND column_name IN ('c_time_ns', 'c_timestamptz_ns')"))
                .skippingTypesCheck()
                .matches("VALUES ('c_time_ns', 'time(9)'), ('c_timestamptz_ns', 'timestamp(9) with time zone')");
        assertThat(query("SELECT count(*) FROM nsc.%s.pyarrow_all_types WHERE c_time_ns IS NOT NULL AND c_timestamptz_ns IS NOT NULL".formatted(SCHEMA)))
                .matches("SELECT count(*) FROM %s WHERE c_time_ns IS NOT NULL AND c_timestamptz_ns IS NOT NULL".formatted(pyarrow.relation()));
    }

    static Stream<String> trinoCodecs()
    {
        return Stream.concat(TRINO_CODECS.keySet().stream(), Stream.of("lz4"));
    }

    @ParameterizedTest
    @MethodSource("trinoCodecs")
    void testTrinoWriterRoundTrip(String codec)
    {
        assertThat(query("SELECT %s FROM nsc.%s.trino_%s".formatted(selectList(trino.columns(), false), SCHEMA, codec)))
                .matches("SELECT %s FROM %s".formatted(selectList(trino.columns(), true), trino.relation()));
    }

    @Test
    void testTrinoWriterLz4IsReframed()
            throws IOException
    {
        // Trino 476's writer compresses LZ4 pages as bare LZ4 blocks, while its reader (like
        // parquet-mr) expects codec LZ4 in Hadoop's framing: its own LZ4 files do not decode.
        // The footer names the writer: the parser refuses the file as it is, the loader gives its
        // pages the framing.
        Path directory = Files.createDirectories(files.resolve("trino_lz4_block"));
        Expected expected = new Expected(TRINO_COLUMNS, TRINO_ROW_GROUPS.getFirst());
        MaterializedResult rows = computeActual(expected.query());
        Path file = directory.resolve("part-0.parquet");
        TrinoParquetFiles.write(file, TRINO_COLUMNS.stream().map(Column::name).toList(), rows, CompressionCodec.LZ4);
        assertThatThrownBy(() -> ParquetFooterParser.parse(file))
                .hasMessageContaining("LZ4 pages written by Trino's Parquet writer are not Hadoop-framed");
        load("trino_lz4_block", file, LoadOptions.defaults());
        assertThat(query("SELECT %s FROM nsc.%s.trino_lz4_block".formatted(selectList(trino.columns(), false), SCHEMA)))
                .matches("SELECT %s FROM %s".formatted(selectList(trino.columns(), true), expected.relation()));

        // The same pages under another writer's name pass the footer checks; the loader's decode
        // check still catches them.
        Path disguised = Files.createDirectories(files.resolve("trino_lz4_disguised")).resolve("part-0.parquet");
        TrinoParquetFiles.withCreatedBy(file, disguised, "parquet-mr version 1.15.2 (build n/a)");
        assertThatThrownBy(() -> load("trino_lz4_disguised", disguised, LoadOptions.defaults()))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining(disguised.toString())
                .hasMessageContaining("corrupt data in column id, row group 0")
                .hasMessageEndingWith("nothing was loaded");

        // Loaded without verification, the bad pages reach the reader: the query must fail as
        // bad data in that nsc file, not as an engine error. The column is decoded lazily, after
        // the page source handed out the page, which is where a raw decoder error used to escape.
        load("trino_lz4_block_unverified", disguised, LoadOptions.defaults().withVerify(false));
        assertThat(query("SELECT id FROM nsc.%s.trino_lz4_block_unverified".formatted(SCHEMA)))
                .failure()
                .hasErrorCode(NSC_BAD_DATA)
                .hasMessageMatching("Cannot decode nsc file [0-9a-f]{32}: .*");
    }

    static Stream<Arguments> predicateColumns()
    {
        List<String> pyarrowColumns = pyarrowExpected().columns().stream()
                .map(Column::name)
                .filter(name -> !name.equals("id"))
                .toList();
        List<String> trinoColumns = TRINO_COLUMNS.stream()
                .map(Column::name)
                .filter(name -> !name.equals("id"))
                .toList();
        // one file per writer is enough here: the codec and encoding do not change what pruning sees
        return Stream.concat(
                pyarrowColumns.stream().map(column -> Arguments.of("pyarrow_all_types", column)),
                trinoColumns.stream().map(column -> Arguments.of("trino_zstd", column)));
    }

    @ParameterizedTest
    @MethodSource("predicateColumns")
    void testPredicatesMatchTrinoEvaluation(String table, String column)
    {
        List<String> predicates = PREDICATES.get(column);
        assertThat(predicates).as("filters for " + column).isNotNull();
        Expected values = table.startsWith("pyarrow_") ? pyarrow : trino;
        String template = predicates.stream()
                .map(predicate -> "SELECT '%s' AS predicate, id FROM %s WHERE %s".formatted(predicate.replace("'", "''"), TABLE_PLACEHOLDER, predicate))
                .collect(joining("\nUNION ALL\n"));
        MaterializedResult expected = computeActual(template.replace(TABLE_PLACEHOLDER, values.relation()));
        // every filter column needs some filter that selects rows, or the comparison proves little
        assertThat(expected.getMaterializedRows()).as("rows selected by the filters on " + column).isNotEmpty();

        String sql = template.replace(TABLE_PLACEHOLDER, "nsc.%s.%s".formatted(SCHEMA, table));
        QueryCounters pruned = QueryCounters.run(getDistributedQueryRunner(), pruning(true), sql);
        assertThat(pruned.result().getMaterializedRows()).as("with pruning: " + sql)
                .containsExactlyInAnyOrderElementsOf(expected.getMaterializedRows());
        // and the filters do let pruning skip something, so the comparison is not vacuous
        assertThat(pruned.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).as("row groups pruned for " + column).isPositive();

        QueryCounters unpruned = QueryCounters.run(getDistributedQueryRunner(), pruning(false), sql);
        assertThat(unpruned.result().getMaterializedRows()).as("without pruning: " + sql)
                .containsExactlyInAnyOrderElementsOf(expected.getMaterializedRows());
        assertThat(unpruned.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isZero();

        // every pushdown mode returns the same rows: storage nodes and workers evaluate the
        // predicate exactly as Trino does (NONE leaves it to Trino, RAW to Trino after pruning)
        for (PushdownMode mode : PushdownMode.values()) {
            QueryCounters pushed = QueryCounters.run(getDistributedQueryRunner(), pushdown(mode), sql);
            assertThat(pushed.result().getMaterializedRows()).as("pushdown %s: %s", mode, sql)
                    .containsExactlyInAnyOrderElementsOf(expected.getMaterializedRows());
            if (mode == PushdownMode.FILTER) {
                assertThat(pushed.connectorMetric(ReadMetrics.SPLITS_FILTER)).as("storage scans for " + column).isPositive();
                assertThat(pushed.connectorMetric(ReadMetrics.SPLITS_RAW)).isZero();
            }
        }
    }

    private Session pushdown(PushdownMode mode)
    {
        return Session.builder(getSession())
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name())
                .build();
    }

    private Session pruning(boolean enabled)
    {
        return Session.builder(getSession())
                .setCatalogSessionProperty("nsc", STATS_PRUNING_ENABLED, String.valueOf(enabled))
                .build();
    }

    /**
     * The columns as selected on both sides: real and double once more as text, so that -0.0
     * against 0.0 and the last digit count (the result comparison only matches floats approximately).
     * Timestamps with time zone are stored as instants, so the expected values are at UTC.
     */
    private static String selectList(List<Column> columns, boolean expectedSide)
    {
        List<String> items = new ArrayList<>();
        for (Column column : columns) {
            items.add(expectedSide && column.type().endsWith("with time zone")
                    ? "%1$s AT TIME ZONE 'UTC' AS %1$s".formatted(column.name())
                    : column.name());
        }
        for (Column column : columns) {
            if (column.type().equals("real") || column.type().equals("double")) {
                items.add("CAST(%1$s AS varchar) AS %1$s_text".formatted(column.name()));
            }
        }
        return join(", ", items);
    }

    private void load(String table, Path path, LoadOptions options)
    {
        new ParquetLoader(cluster.clientSecurity()).load(cluster.metadataAddress(), SCHEMA, table, List.of(path), options);
    }

    private Path copyFixture(String name)
            throws IOException
    {
        Path target = files.resolve("fixtures").resolve(name);
        Files.createDirectories(target.getParent());
        if (!Files.exists(target)) {
            Files.write(target, Resources.toByteArray(Resources.getResource("parquet/" + name)));
        }
        return target;
    }

    /** pyarrow's values, as the fixture script recorded them: one Trino literal per cell. */
    private static Expected pyarrowExpected()
    {
        try {
            JsonNode json = new ObjectMapper().readTree(Resources.toString(Resources.getResource("parquet/all_types.expected.json"), UTF_8));
            List<Column> columns = new ArrayList<>();
            json.get("columns").forEach(column -> columns.add(new Column(column.get("name").asText(), column.get("type").asText())));
            List<String> rows = new ArrayList<>();
            json.get("rows").forEach(row -> {
                List<String> literals = new ArrayList<>();
                row.forEach(cell -> literals.add(cell.get("literal").asText()));
                rows.add(join(", ", literals));
            });
            return new Expected(columns, rows);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Column> columns(String... definitions)
    {
        return Stream.of(definitions)
                .map(definition -> {
                    int space = definition.indexOf(' ');
                    return new Column(definition.substring(0, space), definition.substring(space + 1));
                })
                .collect(toImmutableList());
    }

    private static List<String> integerPredicates(String column, String value, String min, String max, String between, String in)
    {
        return List.of(
                "%s = %s".formatted(column, value),
                "%s = %s".formatted(column, min),
                "%s = %s".formatted(column, max),
                "%s <= %s".formatted(column, min),
                "%s >= %s".formatted(column, max),
                "%s < 0".formatted(column),
                "%s %s".formatted(column, between),
                "%s %s".formatted(column, in),
                "%s <> %s".formatted(column, value),
                "%s IS NULL".formatted(column),
                "%s IS NOT NULL".formatted(column));
    }

    private static List<String> floatingPredicates(String column, String type)
    {
        return List.of(
                "%s = %s '1.5'".formatted(column, type),
                // -0.0 = 0.0 in SQL, though the bits differ
                "%s = 0".formatted(column),
                "%s < 0".formatted(column),
                "%s > 1".formatted(column),
                "%s BETWEEN -3 AND 2".formatted(column),
                "%s IN (%2$s '3.5', %2$s '-2.25', %2$s '2.0')".formatted(column, type),
                // NaN is unequal to everything: these hold for NaN rows, which no min/max shows
                "%s <> %s '2.0'".formatted(column, type),
                "NOT (%s <= 2)".formatted(column),
                "NOT (%s = 2)".formatted(column),
                "%s = nan()".formatted(column),
                "%s <> nan()".formatted(column),
                "is_nan(%s)".formatted(column),
                "NOT is_nan(%s)".formatted(column),
                "%s < infinity()".formatted(column),
                "%s > -infinity()".formatted(column),
                "%s = infinity()".formatted(column),
                "%s IS NULL".formatted(column),
                "%s IS NOT NULL".formatted(column));
    }

    private record Column(String name, String type) {}

    /** Rows of SQL literals for the columns, and the relation that casts them to the column types. */
    private record Expected(List<Column> columns, List<String> rows)
    {
        Expected
        {
            columns = ImmutableList.copyOf(columns);
            rows = ImmutableList.copyOf(rows);
        }

        String query()
        {
            String casts = IntStream.range(0, columns.size())
                    .mapToObj(i -> "CAST(c%s AS %s) AS %s".formatted(i, columns.get(i).type(), columns.get(i).name()))
                    .collect(joining(", "));
            String aliases = IntStream.range(0, columns.size())
                    .mapToObj(i -> "c" + i)
                    .collect(joining(", "));
            String values = rows.stream()
                    .map(row -> "(" + row + ")")
                    .collect(joining(",\n"));
            return "SELECT %s FROM (VALUES %s) AS v(%s)".formatted(casts, values, aliases);
        }

        String relation()
        {
            return "(" + query() + ") t";
        }
    }
}
