package io.nsc.trino.write;

import io.airlift.slice.XxHash64;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.FilterValueType;
import io.nsc.trino.write.LocalParquetFile.Written;
import io.nsc.trino.write.WriteTypes.ParquetSchema;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.createTimeType;
import static io.trino.spi.type.TimeWithTimeZoneType.createTimeWithTimeZoneType;
import static io.trino.spi.type.TimestampType.createTimestampType;
import static io.trino.spi.type.TimestampWithTimeZoneType.createTimestampWithTimeZoneType;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestLocalParquetFile
{
    @TempDir
    Path directory;

    @Test
    void testEveryWritableTypeReadsBackAsItsNscType()
            throws Exception
    {
        // each written type, and the type the storage nodes' footer parser serves it as
        List<Type> types = List.of(BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE,
                createDecimalType(9, 2), createDecimalType(18, 4), createDecimalType(38, 10),
                VARCHAR, createVarcharType(7), createCharType(3), VARBINARY, DATE, createTimeType(6),
                createTimestampType(3), createTimestampType(6), createTimestampType(9),
                createTimestampWithTimeZoneType(3), createTimestampWithTimeZoneType(6), UUID);
        List<String> servedAs = List.of("boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                "decimal(9,2)", "decimal(18,4)", "decimal(38,10)",
                // Parquet has no char and no string length: the table's column type keeps them
                "varchar", "varchar", "varchar", "varbinary", "date", "time(6)",
                "timestamp(3)", "timestamp(6)", "timestamp(9)",
                "timestamp(3) with time zone", "timestamp(6) with time zone", "uuid");
        List<String> names = IntStream.range(0, types.size()).mapToObj("c%s"::formatted).collect(toImmutableList());
        types.forEach(type -> assertThat(WriteTypes.isSupported(type)).as(type.toString()).isTrue());

        Page nulls = new Page(types.stream().map(type -> type.createBlockBuilder(null, 1).appendNull().build()).toArray(Block[]::new));
        Written written = write(directory.resolve("types.parquet"), WriteTypes.parquetSchema(names, types), RowGroupSize.DEFAULT, List.of(nulls).iterator());

        ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
        assertThat(summary.rowCount()).isEqualTo(1);
        assertThat(summary.columns()).extracting(ColumnSpec::type).containsExactlyElementsOf(servedAs);
        assertThat(written.sizeBytes()).isEqualTo(Files.size(written.path()));
    }

    @Test
    void testTimesAndTimestampsAreStoredAtTheNextPrecisionWithoutRounding()
    {
        for (int precision = 0; precision <= 12; precision++) {
            assertThat(storedPrecision(createTimeType(precision))).as("time(%s)", precision)
                    .isEqualTo(precision <= 6 ? OptionalInt.of(6) : OptionalInt.empty());
            assertThat(storedPrecision(createTimestampType(precision))).as("timestamp(%s)", precision)
                    .isEqualTo(precision <= 3 ? OptionalInt.of(3) : precision <= 6 ? OptionalInt.of(6) : precision <= 9 ? OptionalInt.of(9) : OptionalInt.empty());
            assertThat(storedPrecision(createTimestampWithTimeZoneType(precision))).as("timestamp(%s) with time zone", precision)
                    .isEqualTo(precision <= 3 ? OptionalInt.of(3) : precision <= 6 ? OptionalInt.of(6) : OptionalInt.empty());
        }
        // every other type is stored as declared, or refused
        for (Type type : List.of(BIGINT, createDecimalType(38, 10), createCharType(3), VARCHAR, DATE, UUID, createTimeWithTimeZoneType(3), new ArrayType(BIGINT))) {
            assertThat(WriteTypes.storedType(type)).as(type.toString()).isEmpty();
        }
    }

    /** The precision a column of this type is stored with, empty when nsc refuses the type. */
    private static OptionalInt storedPrecision(Type type)
    {
        Type stored = WriteTypes.storedType(type).orElse(type);
        if (!WriteTypes.isSupported(stored)) {
            return OptionalInt.empty();
        }
        assertThat(stored.getClass()).isEqualTo(type.getClass());
        return OptionalInt.of(switch (stored) {
            case TimeType time -> time.getPrecision();
            case TimestampType timestamp -> timestamp.getPrecision();
            case TimestampWithTimeZoneType timestamp -> timestamp.getPrecision();
            default -> throw new IllegalArgumentException(type.toString());
        });
    }

    @Test
    void testUnsupportedTypesAreRefusedByName()
    {
        for (Type type : List.of(createTimeType(3), createTimeType(9), createTimestampType(0), createTimestampType(12),
                createTimestampWithTimeZoneType(9), createTimeWithTimeZoneType(3), new ArrayType(BIGINT))) {
            assertThat(WriteTypes.isSupported(type)).as(type.toString()).isFalse();
            assertThatThrownBy(() -> WriteTypes.checkSupported(type))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NOT_SUPPORTED.toErrorCode()))
                    .hasMessage("Unsupported column type: " + type.getDisplayName());
        }
    }

    @Test
    void testRowGroupsOfExactlyTheRowCountWhateverThePages()
            throws Exception
    {
        // pages of 700 rows, row groups of 1000: every row group but the last spans two pages
        List<Page> pages = new ArrayList<>();
        for (int start = 0; start < 4900; start += 700) {
            pages.add(bigintPage(start, 700));
        }
        Written written = write(directory.resolve("rows.parquet"), schema(), RowGroupSize.ofRows(1000), pages.iterator());
        assertThat(written.rowCount()).isEqualTo(4900);
        ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
        assertThat(IntStream.range(0, summary.stats().rowGroupCount()).mapToLong(summary.stats()::rowGroupRowCount))
                .containsExactly(1000L, 1000L, 1000L, 1000L, 900L);
        // zone maps follow the rows: row group 2 holds ids 2000..2999
        assertThat(summary.stats().min(2, 0)).isLessThan(summary.stats().max(2, 0));
    }

    @Test
    void testRowGroupsOfADataSize()
            throws Exception
    {
        List<Page> pages = new ArrayList<>();
        for (int start = 0; start < 200_000; start += 10_000) {
            pages.add(bigintPage(start, 10_000));
        }
        Written written = write(directory.resolve("bytes.parquet"), schema(), RowGroupSize.parse("256kB"), pages.iterator());
        ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
        assertThat(written.rowCount()).isEqualTo(200_000);
        assertThat(summary.rowCount()).isEqualTo(200_000);
        // 200,000 bigints are 1.6MB before encoding; at 256kB a row group there are several
        assertThat(summary.stats().rowGroupCount()).isGreaterThan(1);
    }

    @Test
    void testEveryCodecIsWhatTheColumnChunksName()
            throws Exception
    {
        for (ParquetWriteCodec codec : ParquetWriteCodec.values()) {
            // both kinds of file: exact row counts (FixedRowGroupParquetWriter) and data sizes (ParquetWriter)
            for (RowGroupSize rowGroupSize : List.of(RowGroupSize.ofRows(1000), RowGroupSize.parse("16kB"))) {
                Path target = directory.resolve("%s-%s.parquet".formatted(codec, rowGroupSize.toSql()));
                LocalParquetFile file = LocalParquetFile.create(target, schema(), rowGroupSize, Set.of(), codec, Long.MAX_VALUE);
                file.append(bigintPage(0, 5000));
                file.finish();
                // the loader's checks, which refuse what Trino 476 cannot decode
                ParquetFileSummary summary = ParquetFooterParser.parse(target);
                assertThat(summary.rowCount()).isEqualTo(5000);
                assertThat(summary.stats().rowGroupCount()).as(target.toString()).isGreaterThan(1);
                assertThat(codecs(target)).as(target.toString()).containsOnly(CompressionCodecName.fromParquet(codec.parquetCodec()));
            }
        }
    }

    private static Set<CompressionCodecName> codecs(Path file)
            throws IOException
    {
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, ParquetReaderOptions.defaultOptions())) {
            return MetadataReader.readFooter(source, Optional.empty()).getBlocks().stream()
                    .flatMap(block -> block.columns().stream())
                    .map(ColumnChunkMetadata::getCodec)
                    .collect(toImmutableSet());
        }
    }

    @Test
    void testSortedRowsMakeDisjointZoneMaps()
            throws Exception
    {
        // ids shuffled over pages, sorted into row groups of 100 whose ranges do not overlap
        List<Long> ids = new ArrayList<>(IntStream.range(0, 1000).mapToObj(i -> (long) (i * 7919 % 1000)).toList());
        List<Page> pages = new ArrayList<>();
        for (int start = 0; start < ids.size(); start += 300) {
            pages.add(bigintPage(ids.subList(start, Math.min(ids.size(), start + 300))));
        }
        Iterator<Page> sorted = new RowSorter(List.of(BIGINT), List.of(0), new TypeOperators()).sort(pages, PageSize.ofRows(128));
        Written written = write(directory.resolve("sorted.parquet"), schema(), RowGroupSize.ofRows(100), sorted);
        ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
        assertThat(summary.stats().rowGroupCount()).isEqualTo(10);
        for (int rowGroup = 1; rowGroup < 10; rowGroup++) {
            assertThat(summary.stats().min(rowGroup, 0)).isGreaterThan(summary.stats().max(rowGroup - 1, 0));
        }
    }

    @Test
    void testStreamedFileCountsWhatItWroteAndWhatItHolds()
            throws Exception
    {
        // row groups of 1000 rows, pages of 700: the file holds the pages of one row group at most
        LocalParquetFile file = LocalParquetFile.create(directory.resolve("streamed.parquet"), schema(), RowGroupSize.ofRows(1000), Set.of(), ParquetWriteCodec.ZSTD, 1024 * 1024);
        Page first = bigintPage(0, 700);
        file.append(first);
        // the file's leading magic number only
        assertThat(file.writtenBytes()).isEqualTo(4);
        assertThat(file.unwrittenPageBytes()).isEqualTo(first.getSizeInBytes());
        // a sixteenth of the memory is the write buffer
        long writeBuffer = 1024 * 1024 / 16;
        assertThat(file.memoryUsage()).isEqualTo(first.getRetainedSizeInBytes() + writeBuffer);
        Page second = bigintPage(700, 700);
        file.append(second);
        // 1000 rows written; the second page's last 400 rows wait, and keep the page alive
        assertThat(file.writtenBytes()).isPositive();
        assertThat(file.unwrittenPageBytes()).isEqualTo(second.getRegion(300, 400).getSizeInBytes());
        assertThat(file.memoryUsage()).isEqualTo(second.getRetainedSizeInBytes() + writeBuffer);
        assertThat(file.peakMemoryUsage()).as("the encoding of the first row group included").isGreaterThan(first.getRetainedSizeInBytes() + second.getRetainedSizeInBytes() + writeBuffer);
        Written written = file.finish();
        assertThat(written.rowCount()).isEqualTo(1400);
        assertThat(written.sizeBytes()).isEqualTo(Files.size(written.path()));
        ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
        assertThat(IntStream.range(0, summary.stats().rowGroupCount()).mapToLong(summary.stats()::rowGroupRowCount)).containsExactly(1000L, 400L);
    }

    @Test
    void testRowGroupsAreCutShortWhereTheirPagesWouldOutgrowTheMemory()
            throws Exception
    {
        Page page = bigintPage(0, 10_000);
        // a quarter of the limit (less the write buffer) for the row group's pages: two pages reach it
        long memoryLimit = 8 * page.getRetainedSizeInBytes();
        for (RowGroupSize rowGroupSize : List.of(RowGroupSize.ofRows(1_000_000), RowGroupSize.parse("64MB"))) {
            LocalParquetFile file = LocalParquetFile.create(directory.resolve("cut-" + rowGroupSize.toSql() + ".parquet"), schema(), rowGroupSize, Set.of(), ParquetWriteCodec.ZSTD, memoryLimit);
            for (int start = 0; start < 200_000; start += 10_000) {
                file.append(bigintPage(start, 10_000));
                assertThat(file.memoryUsage()).isLessThanOrEqualTo(file.peakMemoryUsage());
            }
            Written written = file.finish();
            assertThat(written.rowCount()).isEqualTo(200_000);
            // the row groups' encoding included
            assertThat(file.peakMemoryUsage()).as(rowGroupSize.toString()).isGreaterThan(memoryLimit / 4).isLessThanOrEqualTo(memoryLimit);
            ParquetFileSummary summary = ParquetFooterParser.parse(written.path());
            assertThat(summary.stats().rowGroupCount()).as(rowGroupSize.toString()).isGreaterThanOrEqualTo(5);
        }
        // row counts stay exact where they fit
        LocalParquetFile file = LocalParquetFile.create(directory.resolve("fits.parquet"), schema(), RowGroupSize.ofRows(15_000), Set.of(), ParquetWriteCodec.ZSTD, memoryLimit);
        for (int start = 0; start < 60_000; start += 10_000) {
            file.append(bigintPage(start, 10_000));
        }
        ParquetFileSummary summary = ParquetFooterParser.parse(file.finish().path());
        assertThat(IntStream.range(0, summary.stats().rowGroupCount()).mapToLong(summary.stats()::rowGroupRowCount)).containsExactly(15_000L, 15_000L, 15_000L, 15_000L);
    }

    @Test
    void testAbortedFileLeavesNothing()
            throws Exception
    {
        for (RowGroupSize rowGroupSize : List.of(RowGroupSize.ofRows(100), RowGroupSize.parse("1kB"))) {
            LocalParquetFile file = LocalParquetFile.create(directory.resolve("aborted.parquet"), schema(), rowGroupSize, Set.of(), ParquetWriteCodec.ZSTD, 1024 * 1024);
            file.append(bigintPage(0, 1000));
            assertThat(file.writtenBytes()).isPositive();
            file.abort();
            assertThat(directory).isEmptyDirectory();
        }
    }

    @Test
    void testFailedWriteLeavesNoFile()
    {
        // a page whose channel count does not match the schema fails inside the writer
        Page wrong = new Page(bigintPage(0, 1).getBlock(0), bigintPage(0, 1).getBlock(0));
        assertThatThrownBy(() -> write(directory.resolve("bad.parquet"), schema(), RowGroupSize.ofRows(10), List.of(wrong).iterator()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> write(directory.resolve("bad2.parquet"), schema(), RowGroupSize.parse("64kB"), List.of(wrong).iterator()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(directory).isEmptyDirectory();
    }

    @Test
    void testBloomFilterColumnsReachTheCompactStats()
            throws Exception
    {
        Path target = directory.resolve("filtered.parquet");
        LocalParquetFile file = LocalParquetFile.create(target, schema(), RowGroupSize.ofRows(1000), Set.of("id"), ParquetWriteCodec.ZSTD, Long.MAX_VALUE);
        // few distinct values: the chunks are dictionary-encoded, and still get their filters
        file.append(bigintPage(LongStream.range(0, 5000).map(row -> row / 100).boxed().toList()));
        file.finish();
        CompactFileStats stats = ParquetFooterParser.parse(target).stats();
        assertThat(stats.rowGroupCount()).isEqualTo(5);
        assertThat(stats.filterCount()).isEqualTo(5);
        int falsePositives = 0;
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            int filter = stats.filterIndex(rowGroup, 0);
            assertThat(stats.filterValueType(filter)).isEqualTo(FilterValueType.INT64);
            for (long value = 0; value < 50; value++) {
                boolean found = stats.filterMightContain(filter, XxHash64.hash(value));
                if (value / 10 == rowGroup) {
                    assertThat(found).as("%s in row group %s", value, rowGroup).isTrue();
                }
                else if (found) {
                    falsePositives++;
                }
            }
        }
        // 200 absent lookups at a rate of at most 1%
        assertThat(falsePositives).isLessThanOrEqualTo(6);
        assertThatThrownBy(() -> LocalParquetFile.create(directory.resolve("sized.parquet"), schema(), RowGroupSize.parse("64kB"), Set.of("id"), ParquetWriteCodec.ZSTD, Long.MAX_VALUE))
                .hasMessageContaining("Bloom filters need row groups of a row count");
    }

    /** Writes the pages as one file, holding a whole row group in memory if it must; deletes the file if that fails. */
    private static Written write(Path target, ParquetSchema schema, RowGroupSize rowGroupSize, Iterator<Page> pages)
            throws IOException
    {
        LocalParquetFile file = LocalParquetFile.create(target, schema, rowGroupSize, Set.of(), ParquetWriteCodec.ZSTD, Long.MAX_VALUE);
        try {
            while (pages.hasNext()) {
                file.append(pages.next());
            }
            return file.finish();
        }
        catch (IOException | RuntimeException e) {
            file.abort();
            throw e;
        }
    }

    private static ParquetSchema schema()
    {
        return WriteTypes.parquetSchema(List.of("id"), List.of(BIGINT));
    }

    private static Page bigintPage(long start, int rows)
    {
        return bigintPage(LongStream.range(start, start + rows).boxed().toList());
    }

    private static Page bigintPage(List<Long> values)
    {
        BlockBuilder builder = BIGINT.createFixedSizeBlockBuilder(values.size());
        values.forEach(value -> BIGINT.writeLong(builder, value));
        return new Page(builder.build());
    }
}
