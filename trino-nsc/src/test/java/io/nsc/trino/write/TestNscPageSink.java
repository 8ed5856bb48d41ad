package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.parquet.scan.ParquetScanReader;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.write.LocalParquetFile.Written;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_WRITER_ERROR;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Math.toIntExact;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The page sink in a small memory, with an uploader that keeps a copy of each file it is given:
 * files of the target size, each sorted as a whole however many runs its rows were spilled in,
 * every row written once, the memory reported within the budget, and no local file left behind.
 */
final class TestNscPageSink
{
    private static final List<String> NAMES = List.of("id", "day", "name", "score");
    private static final List<Type> TYPES = List.of(BIGINT, DATE, VARCHAR, DOUBLE);
    private static final int DAY = 1;
    // the least nsc.writer-buffer-size: a sorted file's rows take several times the memory
    private static final long MEMORY = 1024 * 1024;
    private static final long TARGET_FILE_SIZE = 1536 * 1024;
    private static final int ROWS = 400_000;
    private static final int ROWS_PER_PAGE = 1000;

    @TempDir
    Path directory;
    private Path tempDirectory;
    private Path uploadedDirectory;
    private final List<Written> uploaded = new ArrayList<>();

    @BeforeEach
    void setUp()
            throws IOException
    {
        tempDirectory = Files.createDirectory(directory.resolve("temp"));
        uploadedDirectory = Files.createDirectory(directory.resolve("uploaded"));
    }

    @Test
    void testSortedFilesAreEachSortedWholeInBoundedMemory()
            throws Exception
    {
        List<Page> pages = pages(ROWS);
        NscPageSink sink = writeAll(true, RowGroupSize.ofRows(500), pages);
        assertThat(tempDirectory).as("sorted runs and local files are deleted").isEmptyDirectory();
        List<List<Object>> allRows = new ArrayList<>();
        for (Written file : uploaded) {
            List<List<Object>> rows = readRows(file.path());
            assertThat(rows).hasSize(toIntExact(file.rowCount()));
            // sorted by day; rows of a day in the order they came (by id)
            assertThat(rows).isSortedAccordingTo(Comparator.<List<Object>, Long>comparing(row -> (Long) row.get(DAY), Comparator.nullsLast(Comparator.naturalOrder()))
                    .thenComparing(row -> (Long) row.getFirst()));
            assertRowGroupsAscend(file.path());
            allRows.addAll(rows);
        }
        // assertj's any-order comparison is quadratic: compare the sorted ids
        assertThat(allRows.stream().map(row -> (Long) row.getFirst()).sorted().toList()).isEqualTo(LongStream.range(0, ROWS).boxed().toList());

        // a file's rows take several times the memory in pages: they were spilled and merged
        long largestFileRows = uploaded.stream().mapToLong(Written::rowCount).max().orElseThrow();
        assertThat(largestFileRows * pageBytesPerRow(pages)).isGreaterThan(3 * MEMORY);
        // measured while spilling, merging and encoding row groups: most of the memory, never more
        assertThat(sink.getPeakMemoryUsage()).isGreaterThan(MEMORY / 2).isLessThanOrEqualTo(MEMORY);
        assertFilesFollowTheTargetSize();
    }

    @Test
    void testUnsortedPagesStreamIntoFilesOfTheTargetSize()
            throws IOException
    {
        List<Page> pages = pages(ROWS);
        NscPageSink sink = writeAll(false, RowGroupSize.ofRows(1500), pages);
        assertThat(tempDirectory).isEmptyDirectory();
        // the files in the order they were written hold the rows in the order they came
        List<List<Object>> allRows = new ArrayList<>();
        for (Written file : uploaded) {
            allRows.addAll(readRows(file.path()));
        }
        assertThat(allRows).extracting(row -> (Long) row.getFirst()).containsExactlyElementsOf(LongStream.range(0, ROWS).boxed().toList());
        // the pages of one row group of 1500 rows (two pages), its encoding and the write buffer
        assertThat(sink.getPeakMemoryUsage()).isGreaterThan(2 * largestPage(pages)).isLessThanOrEqualTo(MEMORY);
        assertFilesFollowTheTargetSize();
    }

    @Test
    void testRowGroupsOfADataSizeMakeFilesOfTheTargetSize()
            throws Exception
    {
        for (boolean sorted : List.of(false, true)) {
            uploaded.clear();
            List<Page> pages = pages(ROWS);
            NscPageSink sink = writeAll(sorted, RowGroupSize.parse("64kB"), pages);
            assertThat(tempDirectory).isEmptyDirectory();
            assertThat(uploaded.stream().mapToLong(Written::rowCount).sum()).isEqualTo(ROWS);
            assertThat(sink.getPeakMemoryUsage()).as("sorted %s", sorted).isPositive().isLessThanOrEqualTo(MEMORY);
            assertFilesFollowTheTargetSize();
            for (Written file : uploaded.subList(0, uploaded.size() - 1)) {
                assertThat(ParquetFooterParser.parse(file.path()).stats().rowGroupCount()).as("row groups of %s", file).isGreaterThan(1);
            }
        }
    }

    @Test
    void testPagesLargerThanAFileAreCutBetweenFiles()
    {
        // pages of 100,000 rows, each more than a file of the target size: files are cut within pages
        List<Page> pages = pages(ROWS).stream().collect(Collectors.groupingBy(page -> BIGINT.getLong(page.getBlock(0), 0) / 100_000, TreeMap::new, Collectors.toList()))
                .values().stream()
                .map(group -> new Page(IntStream.range(0, TYPES.size()).mapToObj(channel -> concat(group, channel)).toArray(Block[]::new)))
                .toList();
        assertThat(pages.getFirst().getPositionCount()).isEqualTo(100_000);
        writeAll(false, RowGroupSize.ofRows(1000), pages);
        assertFilesFollowTheTargetSize();
        // not a page's worth too large
        assertThat(uploaded.stream().mapToLong(Written::sizeBytes).max().orElseThrow()).isLessThan(TARGET_FILE_SIZE * 3 / 2);
    }

    @Test
    void testRowGroupsTooLargeForTheMemoryAreCutShort()
            throws Exception
    {
        List<Page> pages = pages(50_000);
        NscPageSink sink = writeAll(false, RowGroupSize.ofRows(1_000_000), pages);

        // pages up to a quarter of what the write buffer leaves, the rest to encode them
        assertThat(sink.getPeakMemoryUsage()).isGreaterThan(MEMORY / 2).isLessThanOrEqualTo(MEMORY);
        ParquetFileSummary summary = ParquetFooterParser.parse(uploaded.getFirst().path());
        assertThat(summary.stats().rowGroupCount()).isGreaterThan(1);
        assertThat(summary.stats().rowGroupRowCount(0)).isLessThan(50_000);
    }

    @Test
    void testAbortDeletesRunsAndTheFileInProgress()
    {
        for (boolean sorted : List.of(true, false)) {
            // files larger than the rows: runs and the file in progress stay local until the end
            NscPageSink sink = sink(sorted, RowGroupSize.ofRows(1000), 1024 * 1024 * 1024);
            pages(30_000).forEach(sink::appendPage);
            assertThat(tempDirectory).as("sorted %s", sorted).isNotEmptyDirectory();
            sink.abort();
            assertThat(tempDirectory).as("sorted %s", sorted).isEmptyDirectory();
            assertThat(sink.getMemoryUsage()).isZero();
        }
    }

    @Test
    void testFailedUploadLeavesNoLocalFile()
    {
        NscPageSink sink = sortedSinkWhoseUploadsFail("failing-", () -> {});
        assertThatThrownBy(() -> pages(ROWS).forEach(sink::appendPage))
                .isInstanceOf(TrinoException.class)
                .hasMessageStartingWith("no node takes failing-");
        assertThat(tempDirectory).isEmptyDirectory();
        sink.abort();
    }

    @Test
    void testFailedUploadOfAFileCutFromAMergeLeavesNoLocalFile()
    {
        // rows that compress far worse than assumed: the first merge makes several files, cut while its runs are read
        List<String> localFilesDuringUpload = new ArrayList<>();
        NscPageSink sink = sortedSinkWhoseUploadsFail("cut-", () -> localFilesDuringUpload.addAll(fileNames(tempDirectory)));
        assertThatThrownBy(() -> {
            incompressiblePages(ROWS).forEach(sink::appendPage);
            sink.finish();
        })
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageStartingWith("no node takes cut-");
        assertThat(localFilesDuringUpload).as("the merge's runs were still there").anySatisfy(name -> assertThat(name).endsWith(".run"));
        assertThat(tempDirectory).isEmptyDirectory();
        sink.abort();
    }

    @Test
    void testDamagedRunFailsTheWriteAndLeavesNoLocalFile()
            throws IOException
    {
        // files larger than the rows: the runs wait for finish()
        NscPageSink sink = sink(true, RowGroupSize.ofRows(1000), 1024 * 1024 * 1024);
        pages(60_000).forEach(sink::appendPage);
        Path run = fileNames(tempDirectory).stream().filter(name -> name.endsWith(".run")).map(tempDirectory::resolve).findFirst().orElseThrow();
        try (FileChannel channel = FileChannel.open(run, WRITE)) {
            channel.truncate(channel.size() / 2);
        }
        assertThatThrownBy(sink::finish)
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_WRITER_ERROR.toErrorCode()))
                .hasMessageContaining(run.toString());
        assertThat(tempDirectory).isEmptyDirectory();
        assertThat(uploaded).isEmpty();
    }

    @Test
    void testDictionaryAndRunLengthPagesCountEveryRow()
    {
        // The sink gathers a sorted file's rows by their pages' size, and learns the compression
        // on the flat pages the merge makes: both measures agree only if compact blocks count
        // every row, as Trino 476 counts them.
        Page flat = pages(1000).getFirst();
        // ten distinct rows repeated
        Page dictionary = new Page(IntStream.range(0, flat.getChannelCount())
                .mapToObj(channel -> DictionaryBlock.create(1000, flat.getBlock(channel).getRegion(0, 10), IntStream.range(0, 1000).map(position -> position % 10).toArray()))
                .toArray(Block[]::new));
        Page runLength = new Page(IntStream.range(0, flat.getChannelCount())
                .mapToObj(channel -> RunLengthEncodedBlock.create(flat.getBlock(channel).getSingleValueBlock(0), 1000))
                .toArray(Block[]::new));
        assertThat(dictionary.getSizeInBytes()).isBetween(flat.getSizeInBytes() / 2, flat.getSizeInBytes() * 2);
        assertThat(runLength.getSizeInBytes()).isBetween(flat.getSizeInBytes() / 4, flat.getSizeInBytes() * 2);
    }

    @Test
    void testNoRowsNoFile()
    {
        NscPageSink sink = sink(true, RowGroupSize.ofRows(1000), TARGET_FILE_SIZE);
        sink.appendPage(new Page(0));
        assertThat(sink.finish().join()).isEmpty();
        assertThat(uploaded).isEmpty();
    }

    private void assertFilesFollowTheTargetSize()
    {
        long total = uploaded.stream().mapToLong(Written::sizeBytes).sum();
        List<Long> sizes = uploaded.stream().map(Written::sizeBytes).toList();
        assertThat(uploaded.size())
                .as("files of %s bytes, %s in all", sizes, total)
                .isBetween((int) (total / TARGET_FILE_SIZE), (int) (total / TARGET_FILE_SIZE) + 2);
        // all but the last are about the target size: a sorted merge leaves rows that would make
        // less than half a file in the file before, and the sizes are estimates
        assertThat(sizes.subList(0, sizes.size() - 1)).as("file sizes").allSatisfy(size -> assertThat(size).isBetween(TARGET_FILE_SIZE * 2 / 5, TARGET_FILE_SIZE * 7 / 4));
    }

    /** Writes the pages through a sink of files of the target size; every file it uploads, one fragment. */
    private NscPageSink writeAll(boolean sorted, RowGroupSize rowGroupSize, List<Page> pages)
    {
        NscPageSink sink = sink(sorted, rowGroupSize, TARGET_FILE_SIZE);
        pages.forEach(sink::appendPage);
        Collection<Slice> fragments = sink.finish().join();
        assertThat(fragments).hasSize(uploaded.size());
        return sink;
    }

    private NscPageSink sink(boolean sorted, RowGroupSize rowGroupSize, long targetFileSize)
    {
        return new NscPageSink(
                WriteTypes.parquetSchema(NAMES, TYPES),
                TYPES,
                settings(sorted, rowGroupSize),
                sorted ? Optional.of(sorter()) : Optional.empty(),
                new WriterResources(MEMORY, targetFileSize, tempDirectory),
                "test-",
                this::upload);
    }

    /** A sorted sink whose uploader runs {@code beforeFailing}, then fails as when no storage node takes the file. */
    private NscPageSink sortedSinkWhoseUploadsFail(String fileNamePrefix, Runnable beforeFailing)
    {
        return new NscPageSink(
                WriteTypes.parquetSchema(NAMES, TYPES),
                TYPES,
                settings(true, RowGroupSize.ofRows(1000)),
                Optional.of(sorter()),
                new WriterResources(MEMORY, TARGET_FILE_SIZE, tempDirectory),
                fileNamePrefix,
                (file, replication, minReplicas) -> {
                    beforeFailing.run();
                    throw new TrinoException(NSC_STORAGE_ERROR, "no node takes " + file.path().getFileName());
                });
    }

    private static NscWriterSettings settings(boolean sorted, RowGroupSize rowGroupSize)
    {
        return new NscWriterSettings(sorted ? List.of("day") : List.of(), rowGroupSize, 1, 1, Set.of(), ParquetWriteCodec.ZSTD);
    }

    private static RowSorter sorter()
    {
        return new RowSorter(TYPES, List.of(DAY), new TypeOperators());
    }

    private NscWriteFragment upload(Written file, int replication, int minReplicas)
    {
        try {
            // the sink deletes its local file once uploaded
            Path copy = Files.copy(file.path(), uploadedDirectory.resolve(file.path().getFileName()));
            uploaded.add(new Written(copy, file.sizeBytes(), file.rowCount()));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new NscWriteFragment(UUID.randomUUID().toString(), file.sizeBytes(), file.rowCount(), 0, "", List.of("node"), "", List.of());
    }

    /**
     * Row groups of the file hold ascending, non-overlapping ranges of days (equal days may meet);
     * row groups of nulls only (no min and max) come last.
     */
    private static void assertRowGroupsAscend(Path file)
            throws IOException, InvalidParquetFileException
    {
        CompactFileStats stats = ParquetFooterParser.parse(file).stats();
        for (int rowGroup = 1; rowGroup < stats.rowGroupCount(); rowGroup++) {
            String name = "row group %s of %s".formatted(rowGroup, file);
            if (!stats.hasMinMax(rowGroup - 1, DAY)) {
                assertThat(stats.hasMinMax(rowGroup, DAY)).as(name).isFalse();
            }
            else if (stats.hasMinMax(rowGroup, DAY)) {
                assertThat(stats.min(rowGroup, DAY)).as(name).isGreaterThanOrEqualTo(stats.max(rowGroup - 1, DAY));
            }
        }
        assertThat(stats.hasMinMax(0, DAY)).isTrue();
    }

    private static Block concat(List<Page> pages, int channel)
    {
        Type type = TYPES.get(channel);
        BlockBuilder builder = type.createBlockBuilder(null, pages.stream().mapToInt(Page::getPositionCount).sum());
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                builder.append(page.getBlock(channel).getUnderlyingValueBlock(), page.getBlock(channel).getUnderlyingValuePosition(position));
            }
        }
        return builder.build();
    }

    private static List<String> fileNames(Path directory)
    {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> file.getFileName().toString()).toList();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Random values throughout: Parquet compresses them far less than {@link NscPageSink#ASSUMED_COMPRESSION}. */
    private static List<Page> incompressiblePages(int rows)
    {
        return pages(rows, (builders, row, random) -> {
            BIGINT.writeLong(builders[0], random.nextLong());
            DATE.writeLong(builders[1], random.nextInt(1_000_000));
            byte[] name = new byte[24];
            random.nextBytes(name);
            VARCHAR.writeSlice(builders[2], utf8Slice(Base64.getEncoder().encodeToString(name)));
            DOUBLE.writeDouble(builders[3], random.nextDouble());
        });
    }

    /** Rows in random order of day, with a tenth of them null (nulls sort last). */
    private static List<Page> pages(int rows)
    {
        return pages(rows, (builders, row, random) -> {
            BIGINT.writeLong(builders[0], row);
            if (random.nextInt(10) == 0) {
                builders[1].appendNull();
            }
            else {
                DATE.writeLong(builders[1], 10_000 + random.nextInt(2000));
            }
            VARCHAR.writeSlice(builders[2], utf8Slice("name-" + Integer.toString(random.nextInt(1 << 20), 36).repeat(1 + random.nextInt(4))));
            DOUBLE.writeDouble(builders[3], random.nextGaussian());
        });
    }

    private interface RowValues
    {
        /** Appends row {@code row}'s value to each column's builder. */
        void write(BlockBuilder[] builders, int row, Random random);
    }

    private static List<Page> pages(int rows, RowValues values)
    {
        Random random = new Random(rows);
        List<Page> pages = new ArrayList<>();
        for (int start = 0; start < rows; start += ROWS_PER_PAGE) {
            int count = Math.min(ROWS_PER_PAGE, rows - start);
            BlockBuilder[] builders = TYPES.stream().map(type -> type.createBlockBuilder(null, count)).toArray(BlockBuilder[]::new);
            for (int row = start; row < start + count; row++) {
                values.write(builders, row, random);
            }
            pages.add(new Page(Arrays.stream(builders).map(BlockBuilder::build).toArray(Block[]::new)));
        }
        return pages;
    }

    private static long largestPage(List<Page> pages)
    {
        return pages.stream().mapToLong(Page::getRetainedSizeInBytes).max().orElseThrow();
    }

    private static long pageBytesPerRow(List<Page> pages)
    {
        return pages.stream().mapToLong(Page::getSizeInBytes).sum() / pages.stream().mapToLong(Page::getPositionCount).sum();
    }

    private static List<List<Object>> readRows(Path file)
            throws IOException
    {
        ParquetReaderOptions options = ParquetReaderOptions.defaultOptions();
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, options)) {
            ParquetMetadata footer = MetadataReader.readFooter(source, Optional.empty());
            List<Integer> rowGroups = IntStream.range(0, footer.getBlocks().size()).boxed().toList();
            List<FileColumn> columns = IntStream.range(0, TYPES.size()).mapToObj(i -> new FileColumn(i, TYPES.get(i))).collect(toImmutableList());
            List<Page> pages = new ArrayList<>();
            try (ParquetScanReader reader = ParquetScanReader.create(source, footer, rowGroups, columns, options, newSimpleAggregatedMemoryContext(), e -> e)) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    pages.add(page.getPage());
                }
            }
            return RandomRows.rows(ImmutableList.copyOf(pages), TYPES);
        }
    }
}
