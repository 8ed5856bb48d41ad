package io.nsc.protocol.parquet;

import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.predicate.RowGroupMatch;
import io.nsc.protocol.predicate.RowGroupPruner;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.protocol.stats.StatsKeys;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.DecimalType;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.MilliSeconds;
import org.apache.parquet.format.NanoSeconds;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.StringType;
import org.apache.parquet.format.TimeType;
import org.apache.parquet.format.TimeUnit;
import org.apache.parquet.format.TimestampType;
import org.apache.parquet.format.Type;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static io.nsc.protocol.parquet.SyntheticParquetFile.deprecatedStats;
import static io.nsc.protocol.parquet.SyntheticParquetFile.float32;
import static io.nsc.protocol.parquet.SyntheticParquetFile.float64;
import static io.nsc.protocol.parquet.SyntheticParquetFile.int32;
import static io.nsc.protocol.parquet.SyntheticParquetFile.int64;
import static io.nsc.protocol.parquet.SyntheticParquetFile.stats;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestParquetFooterParser
{
    private static final List<ColumnSpec> ALL_TYPES_COLUMNS = List.of(
            new ColumnSpec("id", "integer"),
            new ColumnSpec("c_boolean", "boolean"),
            new ColumnSpec("c_tinyint", "tinyint"),
            new ColumnSpec("c_smallint", "smallint"),
            new ColumnSpec("c_integer", "integer"),
            new ColumnSpec("c_bigint", "bigint"),
            new ColumnSpec("c_real", "real"),
            new ColumnSpec("c_double", "double"),
            new ColumnSpec("c_decimal_9_2", "decimal(9,2)"),
            new ColumnSpec("c_decimal_18_4", "decimal(18,4)"),
            new ColumnSpec("c_decimal_38_10", "decimal(38,10)"),
            new ColumnSpec("c_varchar", "varchar"),
            new ColumnSpec("c_varbinary", "varbinary"),
            new ColumnSpec("c_date", "date"),
            new ColumnSpec("c_time_ms", "time(3)"),
            new ColumnSpec("c_time_us", "time(6)"),
            new ColumnSpec("c_time_ns", "time(9)"),
            new ColumnSpec("c_timestamp_ms", "timestamp(3)"),
            new ColumnSpec("c_timestamp_us", "timestamp(6)"),
            new ColumnSpec("c_timestamp_ns", "timestamp(9)"),
            new ColumnSpec("c_timestamptz_ms", "timestamp(3) with time zone"),
            new ColumnSpec("c_timestamptz_us", "timestamp(6) with time zone"),
            new ColumnSpec("c_timestamptz_ns", "timestamp(9) with time zone"),
            new ColumnSpec("c_uuid", "uuid"));

    @TempDir
    Path temporary;

    // ---------------------------------------------------------------------------------------
    // pyarrow fixtures
    // ---------------------------------------------------------------------------------------

    @Test
    void testAllTypes()
            throws Exception
    {
        Path file = fixture("all_types.parquet");
        ParquetFileSummary summary = ParquetFooterParser.parse(file);
        assertThat(summary.columns()).containsExactlyElementsOf(ALL_TYPES_COLUMNS);
        assertThat(summary.columns().stream().map(ColumnSpec::name).toList()).containsExactlyElementsOf(expectedCsvHeader());
        assertThat(summary.rowCount()).isEqualTo(9);
        assertThat(summary.createdBy()).startsWith("parquet-cpp-arrow version");

        CompactFileStats stats = summary.stats();
        assertThat(stats.rowGroupCount()).isEqualTo(3);
        assertThat(stats.columnCount()).isEqualTo(24);
        assertThat(stats.rowCount()).isEqualTo(9);
        for (int column = 0; column < ALL_TYPES_COLUMNS.size(); column++) {
            assertThat(stats.keyKind(column)).as(ALL_TYPES_COLUMNS.get(column).type())
                    .isEqualTo(column == 23 ? KeyKind.NONE : KeyKind.forType(ALL_TYPES_COLUMNS.get(column).type()));
        }
        assertLayout(stats, Files.size(file));
        assertExpectedStats(stats);
    }

    @Test
    void testEveryCodecPageVersionAndDictionaryGivesTheSameStats()
            throws Exception
    {
        List<Path> variants;
        try (Stream<Path> files = Files.list(fixture("all_types.parquet").getParent())) {
            variants = files.filter(path -> path.getFileName().toString().matches("all_types_[a-z0-9]+_v[12]_(dict|plain)\\.parquet")).sorted().toList();
        }
        assertThat(variants).hasSize(20);
        for (Path variant : variants) {
            if (variant.getFileName().toString().startsWith("all_types_lz4_")) {
                // pyarrow's "lz4" is LZ4_RAW, which Trino 476's Parquet reader cannot decode
                assertThatThrownBy(() -> ParquetFooterParser.parse(variant))
                        .isInstanceOf(InvalidParquetFileException.class)
                        .hasMessageContaining(variant.getFileName().toString())
                        .hasMessageContaining("compression codec LZ4_RAW cannot be decoded by the Trino 476 Parquet reader nsc serves through, which decodes UNCOMPRESSED, SNAPPY, GZIP, LZO, ZSTD and LZ4 in Hadoop's framing; rewrite the file with one of those");
                continue;
            }
            ParquetFileSummary summary = ParquetFooterParser.parse(variant);
            assertThat(summary.columns()).as(variant.toString()).containsExactlyElementsOf(ALL_TYPES_COLUMNS);
            assertThat(summary.rowCount()).isEqualTo(9);
            assertLayout(summary.stats(), Files.size(variant));
            assertExpectedStats(summary.stats());
        }
    }

    @Test
    void testSpecialValuesInAllTypes()
            throws Exception
    {
        CompactFileStats stats = ParquetFooterParser.parse(fixture("all_types.parquet")).stats();
        int real = 6;
        int doubleColumn = 7;
        int decimal38 = 10;
        int varchar = 11;
        int varbinary = 12;
        int timestampNanos = 19;
        int uuid = 23;
        // -0.0 and 0.0 share a key: row group 1 of c_double holds only zeros
        assertThat(stats.min(1, doubleColumn)).isEqualTo(0).isEqualTo(stats.max(1, doubleColumn));
        // NaN is no min/max: c_real in row group 2 is NaN, NaN, NULL
        assertThat(stats.hasMinMax(2, real)).isFalse();
        assertThat(stats.nullCount(2, real)).isEqualTo(1);
        // NaN among other values is left out: c_double in row group 2 is NaN, 1e300, -infinity
        assertThat(stats.min(2, doubleColumn)).isEqualTo(StatsKeys.ofDouble(Double.NEGATIVE_INFINITY));
        assertThat(stats.max(2, doubleColumn)).isEqualTo(StatsKeys.ofDouble(1e300));
        // 922337203.6854775808 has the unscaled value 2^63: saturated
        assertThat(stats.max(2, decimal38)).isEqualTo(Long.MAX_VALUE);
        assertThat(stats.min(2, decimal38)).isEqualTo(15_000_000_000L);
        // "abcdefgh1" .. "abcdefgh2": one prefix key
        assertThat(stats.min(2, varchar)).isEqualTo(stats.max(2, varchar)).isEqualTo(StatsKeys.ofBinaryPrefix("abcdefgh".getBytes(US_ASCII), 0, 8));
        // all null
        assertThat(stats.nullCount(2, varbinary)).isEqualTo(3);
        assertThat(stats.hasMinMax(2, varbinary)).isFalse();
        // nanos -999 .. 1001 floor to micros -1 .. 1
        assertThat(stats.min(2, timestampNanos)).isEqualTo(-1);
        assertThat(stats.max(2, timestampNanos)).isEqualTo(1);
        // uuid keeps null counts only
        assertThat(stats.hasMinMax(0, uuid)).isFalse();
        assertThat(stats.nullCount(1, uuid)).isEqualTo(1);

        // the pruner on real stats: c_varbinary IS NOT NULL skips row group 2
        ColumnPredicate notNull = ColumnPredicate.isNotNull(varbinary);
        assertThat(RowGroupPruner.classify(stats, 2, List.of(notNull))).isEqualTo(RowGroupMatch.NONE);
        // c_varchar = 'abcdefgh3' shares the prefix of row group 2: must not be pruned there
        long key = StatsKeys.ofBinaryPrefix("abcdefgh3".getBytes(US_ASCII), 0, 9);
        ColumnPredicate collision = new ColumnPredicate(varchar, List.of(KeyRange.equal(key)), false);
        assertThat(RowGroupPruner.classify(stats, 2, List.of(collision))).isEqualTo(RowGroupMatch.SOME);
    }

    @Test
    void testNoStatistics()
            throws Exception
    {
        ParquetFileSummary summary = ParquetFooterParser.parse(fixture("no_stats.parquet"));
        assertThat(summary.columns()).containsExactlyElementsOf(ALL_TYPES_COLUMNS);
        CompactFileStats stats = summary.stats();
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            for (int column = 0; column < stats.columnCount(); column++) {
                assertThat(stats.hasMinMax(rowGroup, column)).isFalse();
                assertThat(stats.nullCount(rowGroup, column)).isEqualTo(-1);
                // never pruned, whatever the predicate
                ColumnPredicate predicate = new ColumnPredicate(column, List.of(KeyRange.equal(123)), false);
                assertThat(RowGroupPruner.classify(stats, rowGroup, List.of(predicate))).isEqualTo(RowGroupMatch.SOME);
            }
        }
    }

    @Test
    void testDecimalsStoredAsIntegers()
            throws Exception
    {
        ParquetFileSummary summary = ParquetFooterParser.parse(fixture("decimals_as_int.parquet"));
        assertThat(summary.columns()).containsExactly(
                new ColumnSpec("id", "integer"),
                new ColumnSpec("c_decimal_9_2", "decimal(9,2)"),
                new ColumnSpec("c_decimal_18_4", "decimal(18,4)"));
        CompactFileStats stats = summary.stats();
        assertThat(stats.min(0, 1)).isEqualTo(-1);
        assertThat(stats.max(0, 1)).isEqualTo(123456789);
        assertThat(stats.min(1, 2)).isEqualTo(-999999999999999999L);
        assertThat(stats.max(1, 2)).isEqualTo(999999999999999999L);
        assertThat(stats.min(2, 2)).isEqualTo(1);
        assertThat(stats.max(2, 2)).isEqualTo(2);
    }

    @Test
    void testInt96()
            throws Exception
    {
        ParquetFileSummary summary = ParquetFooterParser.parse(fixture("int96.parquet"));
        assertThat(summary.columns()).containsExactly(new ColumnSpec("id", "integer"), new ColumnSpec("c_timestamp_ns", "timestamp(9)"));
        CompactFileStats stats = summary.stats();
        assertThat(stats.keyKind(1)).isEqualTo(KeyKind.NONE);
        assertThat(stats.hasMinMax(0, 1)).isFalse();
        // Arrow writes no statistics at all for INT96
        assertThat(stats.nullCount(0, 1)).isEqualTo(-1);

        // writers that do keep INT96 statistics: null counts are used, min/max never (no defined order)
        CompactFileStats synthetic = parse(new SyntheticParquetFile()
                .column(new SchemaElement("legacy").setType(Type.INT96))
                .rowGroup(10, stats(new byte[12], new byte[12], 4).setMin(new byte[12]).setMax(new byte[12]))
                .toBytes()).stats();
        assertThat(synthetic.keyKind(0)).isEqualTo(KeyKind.NONE);
        assertThat(synthetic.hasMinMax(0, 0)).isFalse();
        assertThat(synthetic.nullCount(0, 0)).isEqualTo(4);
    }

    @Test
    void testEmptyFile()
            throws Exception
    {
        ParquetFileSummary summary = ParquetFooterParser.parse(fixture("empty.parquet"));
        assertThat(summary.columns()).containsExactly(new ColumnSpec("k", "bigint"), new ColumnSpec("s", "varchar"));
        assertThat(summary.rowCount()).isZero();
        assertThat(summary.stats().rowGroupCount()).isZero();
    }

    @Test
    void testEmptyRowGroup()
            throws Exception
    {
        Path file = fixture("empty_row_group.parquet");
        CompactFileStats stats = ParquetFooterParser.parse(file).stats();
        assertThat(stats.rowGroupCount()).isEqualTo(3);
        assertThat(stats.rowGroupRowCount(0)).isEqualTo(2);
        assertThat(stats.rowGroupRowCount(1)).isEqualTo(0);
        assertThat(stats.rowGroupRowCount(2)).isEqualTo(1);
        assertThat(stats.rowGroupOffset(1)).isBetween(4L, Files.size(file));
        assertThat(stats.hasMinMax(1, 0)).isFalse();
        assertThat(RowGroupPruner.classify(stats, 1, List.of())).isEqualTo(RowGroupMatch.NONE);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(ColumnPredicate.isNull(1)))).isEqualTo(RowGroupMatch.SOME);
        assertThat(RowGroupPruner.classify(stats, 2, List.of(ColumnPredicate.isNull(1)))).isEqualTo(RowGroupMatch.NONE);
    }

    @Test
    void testSortedInts()
            throws Exception
    {
        CompactFileStats stats = ParquetFooterParser.parse(fixture("sorted_ints.parquet")).stats();
        assertThat(stats.rowGroupCount()).isEqualTo(10);
        for (int rowGroup = 0; rowGroup < 10; rowGroup++) {
            assertThat(stats.rowGroupRowCount(rowGroup)).isEqualTo(100);
            assertThat(stats.min(rowGroup, 0)).isEqualTo(rowGroup * 100L);
            assertThat(stats.max(rowGroup, 0)).isEqualTo(rowGroup * 100L + 99);
            if (rowGroup > 0) {
                assertThat(stats.rowGroupOffset(rowGroup)).isGreaterThan(stats.rowGroupOffset(rowGroup - 1));
            }
        }
        assertThat(matches(stats, new ColumnPredicate(0, List.of(KeyRange.range(250, true, 349, true)), false)))
                .containsExactly(RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.SOME, RowGroupMatch.SOME, RowGroupMatch.NONE,
                        RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE);
        assertThat(matches(stats, new ColumnPredicate(0, List.of(KeyRange.range(200, true, 299, true)), false)))
                .containsExactly(RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.ALL, RowGroupMatch.NONE, RowGroupMatch.NONE,
                        RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE);
        long key = StatsKeys.ofBinaryPrefix("row-0150".getBytes(US_ASCII), 0, 8);
        assertThat(matches(stats, new ColumnPredicate(1, List.of(KeyRange.equal(key)), false)))
                .containsExactly(RowGroupMatch.NONE, RowGroupMatch.SOME, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE,
                        RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE, RowGroupMatch.NONE);
    }

    @Test
    void testRefusedFixtures()
    {
        assertRefused("nested.parquet", "Invalid Parquet file nested.parquet: column s: nested type (struct/list/map) is not supported");
        assertRefused("unsigned.parquet", "Invalid Parquet file unsigned.parquet: column u: unsigned integer type INT(32, false) is not supported");
        assertRefused("float16.parquet", "Invalid Parquet file float16.parquet: column h: FLOAT16 is not supported");
        assertRefused("duplicate_names.parquet", "Invalid Parquet file duplicate_names.parquet: columns Value and VALUE have the same name once lower-cased");
    }

    @Test
    void testTruncatedFile()
            throws Exception
    {
        byte[] bytes = Files.readAllBytes(fixture("all_types.parquet"));
        for (int cut : new int[] {1, 4, 8, 100, bytes.length / 2, bytes.length - 12, bytes.length - 5, bytes.length - 1}) {
            Path truncated = temporary.resolve("truncated.parquet");
            Files.write(truncated, Arrays.copyOf(bytes, bytes.length - cut));
            assertThatThrownBy(() -> ParquetFooterParser.parse(truncated))
                    .as("cut %s", cut)
                    .isInstanceOf(InvalidParquetFileException.class)
                    .hasMessageStartingWith("Invalid Parquet file truncated.parquet: not a Parquet file")
                    .hasMessageMatching(".*(truncated, or not Parquet|too small).*");
        }
    }

    @Test
    void testNotParquet()
            throws Exception
    {
        Path text = temporary.resolve("notes.txt");
        Files.writeString(text, "This is a plain text file, long enough to have a footer if it were Parquet.\n");
        assertThatThrownBy(() -> ParquetFooterParser.parse(text))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file notes.txt: not a Parquet file: no PAR1 magic at the end (truncated, or not Parquet)");

        Path tiny = temporary.resolve("tiny.parquet");
        Files.write(tiny, "PAR1PAR1".getBytes(US_ASCII));
        assertThatThrownBy(() -> ParquetFooterParser.parse(tiny))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file tiny.parquet: not a Parquet file: 8 bytes is too small (truncated, or not Parquet)");

        Path empty = temporary.resolve("empty.bin");
        Files.write(empty, new byte[0]);
        assertThatThrownBy(() -> ParquetFooterParser.parse(empty))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("0 bytes is too small");

        byte[] valid = Files.readAllBytes(fixture("sorted_ints.parquet"));
        byte[] noLeadingMagic = valid.clone();
        noLeadingMagic[0] = 'X';
        assertThatThrownBy(() -> parse(noLeadingMagic))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: not a Parquet file: no PAR1 magic at the start");

        byte[] encrypted = valid.clone();
        encrypted[encrypted.length - 1] = 'E';
        assertThatThrownBy(() -> parse(encrypted))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: encrypted Parquet files are not supported");
    }

    @Test
    void testBadFooterLength()
            throws Exception
    {
        byte[] valid = Files.readAllBytes(fixture("sorted_ints.parquet"));
        for (int footerLength : new int[] {0, -1, valid.length - 11, valid.length, Integer.MAX_VALUE}) {
            byte[] bytes = valid.clone();
            ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerLength);
            assertThatThrownBy(() -> parse(bytes))
                    .as("footer length %s", footerLength)
                    .isInstanceOf(InvalidParquetFileException.class)
                    .hasMessage("Invalid Parquet file test.parquet: corrupt footer: footer length %s does not fit a file of %s bytes (truncated?)", footerLength, bytes.length);
        }
    }

    @Test
    void testCorruptFooter()
            throws Exception
    {
        byte[] valid = Files.readAllBytes(fixture("all_types.parquet"));
        int footerLength = ByteBuffer.wrap(valid, valid.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = valid.length - 8 - footerLength;

        byte[] garbage = valid.clone();
        Arrays.fill(garbage, footerStart, footerStart + footerLength, (byte) 0xFF);
        assertThatThrownBy(() -> parse(garbage))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageStartingWith("Invalid Parquet file test.parquet: corrupt footer: ");

        // a footer length that points into the data pages instead
        byte[] shifted = valid.clone();
        ByteBuffer.wrap(shifted, shifted.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(footerLength + 100);
        assertThatThrownBy(() -> parse(shifted))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageStartingWith("Invalid Parquet file test.parquet: corrupt footer");

        // whatever single byte of the footer is damaged, the parser refuses with its own exception or reads something valid
        Random random = new Random(5);
        for (int i = 0; i < 3_000; i++) {
            byte[] damaged = valid.clone();
            int position = footerStart + random.nextInt(footerLength);
            damaged[position] = (byte) random.nextInt(256);
            try {
                ParquetFileSummary summary = parse(damaged);
                assertThat(summary.stats().columnCount()).isEqualTo(summary.columns().size());
            }
            catch (InvalidParquetFileException expected) {
                assertThat(expected.getMessage()).startsWith("Invalid Parquet file test.parquet: ");
            }
        }
    }

    @Test
    void testReaderFailure()
    {
        PositionalReader failing = (position, buffer, offset, length) -> {
            throw new IOException("disk on fire");
        };
        assertThatThrownBy(() -> ParquetFooterParser.parse(failing, 1000, "broken.parquet"))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("broken.parquet")
                .hasMessageContaining("disk on fire");
        assertThatThrownBy(() -> ParquetFooterParser.parse(temporary.resolve("missing.parquet")))
                .isInstanceOf(IOException.class);
    }

    @Test
    void testLargeFooterNeedsSecondRead()
            throws Exception
    {
        // more than the 64 KiB tail read: many columns, all in one footer
        SyntheticParquetFile file = new SyntheticParquetFile();
        List<Statistics> statistics = new ArrayList<>();
        for (int column = 0; column < 600; column++) {
            file.column(new SchemaElement("column_with_a_rather_long_name_%04d".formatted(column)).setType(Type.INT64));
            statistics.add(stats(int64(column), int64(column + 1), 0));
        }
        for (int rowGroup = 0; rowGroup < 3; rowGroup++) {
            file.rowGroup(10, statistics.toArray(Statistics[]::new));
        }
        byte[] bytes = file.toBytes();
        ParquetFileSummary summary = parse(bytes);
        assertThat(summary.stats().footerLength()).isGreaterThan(64 * 1024);
        assertThat(summary.columns()).hasSize(600);
        assertThat(summary.stats().max(2, 599)).isEqualTo(600);
    }

    // ---------------------------------------------------------------------------------------
    // synthetic footers: what pyarrow does not write
    // ---------------------------------------------------------------------------------------

    @Test
    void testDeprecatedMinMax()
            throws Exception
    {
        ParquetFileSummary summary = parse(new SyntheticParquetFile()
                .column(new SchemaElement("i").setType(Type.INT32))
                .column(new SchemaElement("s").setType(Type.BYTE_ARRAY).setConverted_type(ConvertedType.UTF8))
                .column(new SchemaElement("f").setType(Type.FIXED_LEN_BYTE_ARRAY).setType_length(4)
                        .setLogicalType(LogicalType.DECIMAL(new DecimalType(2, 9))))
                .column(new SchemaElement("d").setType(Type.DOUBLE))
                .rowGroup(10,
                        deprecatedStats(int32(-5), int32(7), 1),
                        deprecatedStats("a".getBytes(UTF_8), "z".getBytes(UTF_8), 2),
                        deprecatedStats(new byte[] {0, 0, 0, 1}, new byte[] {0, 0, 0, 2}, 3),
                        deprecatedStats(float64(Double.NaN), float64(1.0), 4))
                .rowGroup(10,
                        // min_value/max_value win over the deprecated pair
                        deprecatedStats(int32(-100), int32(100), 0).setMin_value(int32(1)).setMax_value(int32(2)),
                        stats("b".getBytes(UTF_8), "y".getBytes(UTF_8), 0).setMin("a".getBytes(UTF_8)).setMax("z".getBytes(UTF_8)),
                        stats(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE}, new byte[] {0, 0, 0, 2}, 0),
                        deprecatedStats(float64(-1.0), float64(1.0), 0))
                .toBytes());
        CompactFileStats stats = summary.stats();
        // numbers: the deprecated min/max are signed and usable
        assertThat(stats.min(0, 0)).isEqualTo(-5);
        assertThat(stats.max(0, 0)).isEqualTo(7);
        // binary: the deprecated min/max had no defined order; never used, null counts still are
        assertThat(stats.hasMinMax(0, 1)).isFalse();
        assertThat(stats.nullCount(0, 1)).isEqualTo(2);
        assertThat(stats.hasMinMax(0, 2)).isFalse();
        assertThat(stats.nullCount(0, 2)).isEqualTo(3);
        // NaN in the deprecated pair: no min/max
        assertThat(stats.hasMinMax(0, 3)).isFalse();

        assertThat(stats.min(1, 0)).isEqualTo(1);
        assertThat(stats.max(1, 0)).isEqualTo(2);
        assertThat(stats.min(1, 1)).isEqualTo(StatsKeys.ofBinaryPrefix("b".getBytes(UTF_8), 0, 1));
        assertThat(stats.min(1, 2)).isEqualTo(-2);
        assertThat(stats.max(1, 2)).isEqualTo(2);
        assertThat(stats.min(1, 3)).isEqualTo(StatsKeys.ofDouble(-1.0));
    }

    @Test
    void testFloatingStats()
            throws Exception
    {
        CompactFileStats stats = parse(new SyntheticParquetFile()
                .column(new SchemaElement("r").setType(Type.FLOAT))
                .column(new SchemaElement("d").setType(Type.DOUBLE))
                .rowGroup(10, stats(float32(-0.0f), float32(0.0f), 0), stats(float64(-0.0), float64(0.0), 0))
                .rowGroup(10, stats(float32(Float.NaN), float32(1f), 0), stats(float64(1.0), float64(Double.NaN), 0))
                .rowGroup(10, stats(float32(Float.NEGATIVE_INFINITY), float32(Float.POSITIVE_INFINITY), 0), stats(float64(2.0), float64(1.0), 0))
                .rowGroup(10, stats(new byte[3], new byte[3], 0), stats(new byte[4], new byte[4], 0))
                .toBytes()).stats();
        assertThat(stats.min(0, 0)).isEqualTo(0).isEqualTo(stats.max(0, 0));
        assertThat(stats.min(0, 1)).isEqualTo(0).isEqualTo(stats.max(0, 1));
        assertThat(stats.hasMinMax(1, 0)).isFalse();
        assertThat(stats.hasMinMax(1, 1)).isFalse();
        assertThat(stats.min(2, 0)).isEqualTo(StatsKeys.ofDouble(Double.NEGATIVE_INFINITY));
        assertThat(stats.max(2, 0)).isEqualTo(StatsKeys.ofDouble(Double.POSITIVE_INFINITY));
        // min above max: corrupt, dropped
        assertThat(stats.hasMinMax(2, 1)).isFalse();
        // wrong byte lengths: dropped
        assertThat(stats.hasMinMax(3, 0)).isFalse();
        assertThat(stats.hasMinMax(3, 1)).isFalse();
    }

    @Test
    void testBinaryDecimals()
            throws Exception
    {
        BigInteger twoTo63 = BigInteger.ONE.shiftLeft(63);
        CompactFileStats stats = parse(new SyntheticParquetFile()
                .column(new SchemaElement("short").setType(Type.FIXED_LEN_BYTE_ARRAY).setType_length(8)
                        .setLogicalType(LogicalType.DECIMAL(new DecimalType(2, 18))))
                .column(new SchemaElement("long").setType(Type.FIXED_LEN_BYTE_ARRAY).setType_length(16)
                        .setLogicalType(LogicalType.DECIMAL(new DecimalType(0, 38))))
                .column(new SchemaElement("var").setType(Type.BYTE_ARRAY).setConverted_type(ConvertedType.DECIMAL).setPrecision(30).setScale(0))
                .rowGroup(10,
                        stats(bigEndian(BigInteger.valueOf(-123456789012345678L), 8), bigEndian(BigInteger.valueOf(Long.MAX_VALUE), 8), 0),
                        stats(bigEndian(twoTo63.negate().subtract(BigInteger.ONE), 16), bigEndian(twoTo63, 16), 0),
                        stats(bigEndian(BigInteger.valueOf(-1), 1), bigEndian(BigInteger.valueOf(300), 2), 0))
                .rowGroup(10,
                        stats(bigEndian(BigInteger.ZERO, 8), bigEndian(BigInteger.ONE, 8), 0),
                        stats(bigEndian(twoTo63.negate(), 16), bigEndian(twoTo63.subtract(BigInteger.ONE), 16), 0),
                        stats(new byte[0], bigEndian(BigInteger.ONE, 1), 0))
                .toBytes()).stats();
        assertThat(stats.keyKind(0)).isEqualTo(KeyKind.EXACT);
        assertThat(stats.keyKind(1)).isEqualTo(KeyKind.LOSSY);
        assertThat(stats.min(0, 0)).isEqualTo(-123456789012345678L);
        assertThat(stats.max(0, 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(stats.min(0, 1)).isEqualTo(Long.MIN_VALUE);
        assertThat(stats.max(0, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(stats.min(0, 2)).isEqualTo(-1);
        assertThat(stats.max(0, 2)).isEqualTo(300);
        assertThat(stats.min(1, 0)).isEqualTo(0);
        assertThat(stats.max(1, 0)).isEqualTo(1);
        assertThat(stats.min(1, 1)).isEqualTo(Long.MIN_VALUE);
        assertThat(stats.max(1, 1)).isEqualTo(Long.MAX_VALUE);
        // an empty decimal is malformed
        assertThat(stats.hasMinMax(1, 2)).isFalse();
    }

    @Test
    void testTimeAndTimestampUnits()
            throws Exception
    {
        TimeUnit millis = TimeUnit.MILLIS(new MilliSeconds());
        TimeUnit nanos = TimeUnit.NANOS(new NanoSeconds());
        ParquetFileSummary summary = parse(new SyntheticParquetFile()
                .column(new SchemaElement("t").setType(Type.INT32).setLogicalType(LogicalType.TIME(new TimeType(true, millis))))
                .column(new SchemaElement("tn").setType(Type.INT64).setLogicalType(LogicalType.TIME(new TimeType(false, nanos))))
                .column(new SchemaElement("ts").setType(Type.INT64).setLogicalType(LogicalType.TIMESTAMP(new TimestampType(false, millis))))
                .column(new SchemaElement("legacy").setType(Type.INT64).setConverted_type(ConvertedType.TIMESTAMP_MILLIS))
                .column(new SchemaElement("tsn").setType(Type.INT64).setLogicalType(LogicalType.TIMESTAMP(new TimestampType(true, nanos))))
                .rowGroup(10,
                        stats(int32(1), int32(86_399_999), 0),
                        stats(int64(1), int64(86_399_999_999_999L), 0),
                        stats(int64(-1), int64(1_700_000_000_123L), 0),
                        stats(int64(-1), int64(1), 0),
                        stats(int64(-1_001), int64(1_999), 0))
                .rowGroup(10,
                        stats(int32(0), int32(0), 0),
                        stats(int64(0), int64(0), 0),
                        // millis beyond what micros hold in a long: no min/max rather than a wrong one
                        stats(int64(Long.MIN_VALUE / 10), int64(0), 0),
                        null,
                        stats(int64(Long.MIN_VALUE), int64(Long.MAX_VALUE), 0))
                .toBytes());
        assertThat(summary.columns()).containsExactly(
                new ColumnSpec("t", "time(3)"),
                new ColumnSpec("tn", "time(9)"),
                new ColumnSpec("ts", "timestamp(3)"),
                new ColumnSpec("legacy", "timestamp(3) with time zone"),
                new ColumnSpec("tsn", "timestamp(9) with time zone"));
        CompactFileStats stats = summary.stats();
        assertThat(stats.min(0, 0)).isEqualTo(1_000_000_000L);
        assertThat(stats.max(0, 0)).isEqualTo(86_399_999_000_000_000L);
        assertThat(stats.min(0, 1)).isEqualTo(1_000L);
        assertThat(stats.max(0, 1)).isEqualTo(86_399_999_999_999_000L);
        assertThat(stats.min(0, 2)).isEqualTo(-1_000);
        assertThat(stats.max(0, 2)).isEqualTo(1_700_000_000_123_000L);
        assertThat(stats.min(0, 3)).isEqualTo(-1_000);
        assertThat(stats.min(0, 4)).isEqualTo(-2);
        assertThat(stats.max(0, 4)).isEqualTo(1);
        assertThat(stats.hasMinMax(1, 2)).isFalse();
        assertThat(stats.hasMinMax(1, 3)).isFalse();
        assertThat(stats.nullCount(1, 3)).isEqualTo(-1);
        assertThat(stats.min(1, 4)).isEqualTo(StatsKeys.ofEpochNanosFloorMicros(Long.MIN_VALUE));
    }

    @Test
    void testNullCounts()
            throws Exception
    {
        CompactFileStats stats = parse(new SyntheticParquetFile()
                .column(new SchemaElement("a").setType(Type.INT64))
                .rowGroup(10, new Statistics())
                .rowGroup(10, new Statistics().setNull_count(11))
                .rowGroup(10, new Statistics().setNull_count(-3))
                .rowGroup(10, new Statistics().setNull_count(10))
                .toBytes()).stats();
        assertThat(stats.nullCount(0, 0)).isEqualTo(-1);
        assertThat(stats.nullCount(1, 0)).isEqualTo(-1);
        assertThat(stats.nullCount(2, 0)).isEqualTo(-1);
        assertThat(stats.nullCount(3, 0)).isEqualTo(10);
        assertThat(stats.hasMinMax(3, 0)).isFalse();
    }

    @Test
    void testStructuralProblems()
    {
        SyntheticParquetFile base = new SyntheticParquetFile()
                .column(new SchemaElement("a").setType(Type.INT64))
                .rowGroup(10, (Statistics) null);

        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.setNum_rows(11)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: corrupt footer: the row groups hold 10 rows but the file claims 11");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().getColumns().getFirst().getMeta_data().setData_page_offset(100_000)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageStartingWith("Invalid Parquet file test.parquet: corrupt footer: row group 0 column a spans [100000, 100000 + 10)");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().getColumns().getFirst().getMeta_data().setTotal_compressed_size(1L << 31)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: row group 0 column a: compressed size 2147483648 exceeds 2147483647 bytes, the largest column chunk nsc serves");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().getColumns().getFirst().setFile_path("other.parquet")).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: column a: column chunks stored in other files are not supported");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().getColumns().getFirst().getMeta_data().setType(Type.INT32)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("physical type INT32 in its chunk but INT64 in the schema");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().getColumns().getFirst().getMeta_data().setPath_in_schema(List.of("b"))).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("row group 0 has a chunk for [b] where column a belongs");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getRow_groups().getFirst().setColumns(List.of())).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("row group 0 has 0 column chunks for 1 columns");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getSchema().getFirst().setNum_children(0)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: the file has no columns");
        assertThatThrownBy(() -> parse(base.tweak(metadata -> metadata.getSchema().getFirst().setNum_children(5)).toBytes()))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("corrupt footer: the schema root claims 5 columns");
    }

    @Test
    void testSummaryMatchesStatsAndFooterPosition()
            throws Exception
    {
        byte[] bytes = new SyntheticParquetFile()
                .column(new SchemaElement("Name").setType(Type.BYTE_ARRAY).setLogicalType(LogicalType.STRING(new StringType())))
                .rowGroup(3, stats("x".getBytes(UTF_8), "y".getBytes(UTF_8), 1))
                .toBytes();
        ParquetFileSummary summary = parse(bytes);
        assertThat(summary.columns()).containsExactly(new ColumnSpec("name", "varchar"));
        assertThat(summary.createdBy()).isEqualTo("nsc synthetic");
        assertThat(summary.rowCount()).isEqualTo(3);
        CompactFileStats stats = summary.stats();
        assertThat(stats.footerOffset() + stats.footerLength() + 8).isEqualTo(bytes.length);
        assertThat(stats.rowGroupOffset(0)).isEqualTo(4);
        assertThat(stats.rowGroupCompressedSize(0)).isEqualTo(10);
    }

    private static List<RowGroupMatch> matches(CompactFileStats stats, ColumnPredicate predicate)
    {
        List<RowGroupMatch> matches = new ArrayList<>();
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            matches.add(RowGroupPruner.classify(stats, rowGroup, List.of(predicate)));
        }
        return matches;
    }

    private static ParquetFileSummary parse(byte[] bytes)
            throws InvalidParquetFileException
    {
        return ParquetFooterParser.parse(PositionalReader.ofBytes(bytes), bytes.length, "test.parquet");
    }

    private static void assertRefused(String fixture, String message)
    {
        assertThatThrownBy(() -> ParquetFooterParser.parse(fixture(fixture)))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage(message);
    }

    /**
     * Row groups lie in order inside the data area, chunks fit, and the footer ends the file.
     */
    private static void assertLayout(CompactFileStats stats, long fileSize)
    {
        assertThat(stats.footerOffset() + stats.footerLength() + 8).isEqualTo(fileSize);
        long previousEnd = 4;
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            assertThat(stats.rowGroupOffset(rowGroup)).isGreaterThanOrEqualTo(previousEnd);
            long size = stats.rowGroupCompressedSize(rowGroup);
            assertThat(size).isPositive();
            previousEnd = stats.rowGroupOffset(rowGroup) + size;
            assertThat(previousEnd).isLessThanOrEqualTo(stats.footerOffset());
        }
    }

    /**
     * Compares with all_types.expected_stats.csv, which make_fixtures.py computed from the raw values.
     */
    private static void assertExpectedStats(CompactFileStats stats)
            throws IOException
    {
        List<String> lines = Files.readAllLines(fixture("all_types.expected_stats.csv"));
        assertThat(lines.getFirst()).isEqualTo("row_group,column,name,has_min_max,min_key,max_key,null_count");
        assertThat(lines).hasSize(1 + 3 * 24);
        for (String line : lines.subList(1, lines.size())) {
            String[] fields = line.split(",", -1);
            int rowGroup = Integer.parseInt(fields[0]);
            int column = Integer.parseInt(fields[1]);
            String description = "row group %s column %s".formatted(rowGroup, fields[2]);
            boolean hasMinMax = Boolean.parseBoolean(fields[3]);
            assertThat(stats.hasMinMax(rowGroup, column)).as(description).isEqualTo(hasMinMax);
            if (hasMinMax) {
                assertThat(stats.min(rowGroup, column)).as(description + " min").isEqualTo(Long.parseLong(fields[4]));
                assertThat(stats.max(rowGroup, column)).as(description + " max").isEqualTo(Long.parseLong(fields[5]));
            }
            assertThat(stats.nullCount(rowGroup, column)).as(description + " nulls").isEqualTo(Long.parseLong(fields[6]));
        }
    }

    private static List<String> expectedCsvHeader()
            throws IOException
    {
        return List.of(Files.readAllLines(fixture("all_types.expected.csv")).getFirst().split(","));
    }

    private static byte[] bigEndian(BigInteger value, int length)
    {
        byte[] minimal = value.toByteArray();
        byte[] result = new byte[length];
        Arrays.fill(result, value.signum() < 0 ? (byte) 0xFF : 0);
        System.arraycopy(minimal, Math.max(0, minimal.length - length), result, Math.max(0, length - minimal.length), Math.min(length, minimal.length));
        return result;
    }

    static Path fixture(String name)
    {
        try {
            return Path.of(TestParquetFooterParser.class.getResource("/parquet/" + name).toURI());
        }
        catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing fixture " + name, e);
        }
    }
}
