package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.proto.PageBatch;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static io.nsc.protocol.proto.PageCompression.PAGE_COMPRESSION_LZ4;
import static io.nsc.trino.write.RandomRows.TYPES;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The spill format of sorted runs, and the merge of sorted inputs. */
final class TestSortedRuns
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    // (key, input, row): sorted by key only
    private static final List<Type> KEYED = List.of(BIGINT, BIGINT, BIGINT);

    @TempDir
    Path directory;

    @Test
    void testRunReadsBackEveryValueOfEveryType()
            throws IOException
    {
        List<Page> pages = new RandomRows(7).nextPages(5, 300);
        SortedRun run = write(directory.resolve("all-types.run"), pages);
        assertThat(run.rowCount()).isEqualTo(1500);
        assertThat(run.sizeBytes()).isEqualTo(Files.size(run.path())).isPositive();

        List<Page> read = new ArrayList<>();
        try (SortedRunReader reader = SortedRunReader.open(run)) {
            reader.forEachRemaining(read::add);
        }
        // values as they were: NaN and -0.0, time zones, char, nanoseconds, long decimals
        assertThat(RandomRows.rows(read, TYPES)).isEqualTo(RandomRows.rows(pages, TYPES));
        assertThat(read).extracting(Page::getPositionCount).containsExactly(300, 300, 300, 300, 300);
    }

    @Test
    void testTruncatedRunIsAnErrorNotFewerRows()
            throws IOException
    {
        SortedRun run = write(directory.resolve("truncated.run"), new RandomRows(8).nextPages(3, 200));
        try (FileChannel channel = FileChannel.open(run.path(), WRITE)) {
            channel.truncate(run.sizeBytes() - 10);
        }
        assertThatThrownBy(() -> readAll(run))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("Cannot read sorted run " + run.path());

        // cut at a page boundary: the count in the run tells
        SortedRun whole = write(directory.resolve("whole.run"), new RandomRows(9).nextPages(1, 200));
        SortedRun claimsMore = new SortedRun(whole.path(), whole.rowCount() + 1, whole.sizeBytes());
        assertThatThrownBy(() -> readAll(claimsMore))
                .hasMessageContaining("ends after 200 of its 201 rows");
    }

    @Test
    void testAbandonedRunLeavesNoFile()
            throws IOException
    {
        Path path = directory.resolve("abandoned.run");
        try (SortedRunWriter writer = SortedRunWriter.create(path, 8192)) {
            writer.append(new RandomRows(10).nextPage(10));
        }
        assertThat(directory).isEmptyDirectory();
        // a run never overwrites a file
        Files.createFile(path);
        assertThatThrownBy(() -> SortedRunWriter.create(path, 8192)).isInstanceOf(IOException.class);
    }

    @Test
    void testRunWhoseLastWriteFailsLeavesNoFile()
            throws IOException
    {
        // a full disk refuses the buffered bytes when the run is closed
        Path path = directory.resolve("full-disk.run");
        OutputStream failing = new FilterOutputStream(Files.newOutputStream(path, CREATE_NEW, WRITE))
        {
            @Override
            public void flush()
                    throws IOException
            {
                throw new IOException("No space left on device");
            }
        };
        try (SortedRunWriter writer = new SortedRunWriter(path, failing)) {
            writer.append(new RandomRows(11).nextPage(10));
            assertThat(path).exists();
            assertThatThrownBy(writer::finish)
                    .isInstanceOf(IOException.class)
                    .hasMessage("No space left on device");
            assertThat(directory).isEmptyDirectory();
        }
        assertThat(directory).isEmptyDirectory();
    }

    @Test
    void testDamagedRunIsAnIoError()
            throws IOException
    {
        // a batch whose header claims a row more than its pages hold: PageCodec refuses it
        Path path = directory.resolve("damaged.run");
        PageCodec.BatchBuilder batch = new PageCodec(PAGE_COMPRESSION_LZ4).newBatch();
        batch.add(new RandomRows(12).nextPage(200));
        PageBatch damaged = batch.build().toBuilder().setPositionCount(201).build();
        try (OutputStream output = Files.newOutputStream(path, CREATE_NEW, WRITE)) {
            damaged.writeDelimitedTo(output);
        }
        SortedRun run = new SortedRun(path, 201, Files.size(path));
        assertThatThrownBy(() -> readAll(run))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("Sorted run " + path + " is damaged: batch holds 200 positions, header says 201");
    }

    @Test
    void testMergeIsSortedAndKeepsTiesInInputOrder()
    {
        RowSorter sorter = new RowSorter(KEYED, List.of(0), TYPE_OPERATORS);
        // three sorted inputs with keys that tie within and across inputs, pages of odd sizes, an empty page, an empty input
        List<Iterator<Page>> inputs = List.of(
                List.of(keyed(0, 1, 1, 3), keyed(0, 3, 7)).iterator(),
                List.<Page>of().iterator(),
                List.of(keyed(2, 1), keyed(2), keyed(2, 3, 3, 9)).iterator(),
                List.of(keyed(3, 0, 1, 7, 7, 8)).iterator());
        SortedRunMerger merger = new SortedRunMerger(sorter, inputs, PageSize.ofRows(4));
        List<Page> merged = ImmutableList.copyOf(merger);
        assertThat(merged).extracting(Page::getPositionCount).containsExactly(4, 4, 4, 2);
        // (key, input) in output order: ties ordered by input, and by position within an input
        assertThat(RandomRows.rows(merged, KEYED)).extracting(row -> row.get(0) + "/" + row.get(1)).containsExactly(
                "0/3", "1/0", "1/0", "1/2", "1/3", "3/0", "3/0", "3/2", "3/2", "7/0", "7/3", "7/3", "8/3", "9/2");
        assertThat(RandomRows.rows(merged, KEYED).stream().filter(row -> (long) row.get(0) == 1).map(row -> (long) row.get(2)))
                .containsExactly(0L, 1L, 0L, 1L);
        assertThat(merger.retainedBytes()).as("nothing held after the last page").isLessThan(1024);
    }

    @Test
    void testMergeOfNothing()
    {
        RowSorter sorter = new RowSorter(KEYED, List.of(0), TYPE_OPERATORS);
        assertThat(new SortedRunMerger(sorter, List.of(), PageSize.ofRows(4))).isExhausted();
        assertThat(new SortedRunMerger(sorter, List.of(List.<Page>of().iterator()), PageSize.ofRows(4))).isExhausted();
    }

    private static SortedRun write(Path path, List<Page> pages)
            throws IOException
    {
        try (SortedRunWriter writer = SortedRunWriter.create(path, 8192)) {
            for (Page page : pages) {
                writer.append(page);
            }
            return writer.finish();
        }
    }

    private static void readAll(SortedRun run)
            throws IOException
    {
        try (SortedRunReader reader = SortedRunReader.open(run)) {
            reader.forEachRemaining(_ -> {});
        }
    }

    /** A page of rows (key, input, row within the input's page) for the given keys. */
    private static Page keyed(int input, long... keys)
    {
        BlockBuilder[] builders = KEYED.stream().map(type -> type.createBlockBuilder(null, keys.length)).toArray(BlockBuilder[]::new);
        for (int row = 0; row < keys.length; row++) {
            BIGINT.writeLong(builders[0], keys[row]);
            BIGINT.writeLong(builders[1], input);
            BIGINT.writeLong(builders[2], row);
        }
        return new Page(keys.length, builders[0].build(), builders[1].build(), builders[2].build());
    }
}
