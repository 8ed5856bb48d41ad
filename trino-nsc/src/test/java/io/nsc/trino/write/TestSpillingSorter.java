package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.type.TypeOperators;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import static io.nsc.trino.write.RandomRows.TYPES;
import static io.nsc.trino.write.SpillingSorter.MIN_MEMORY_BYTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestSpillingSorter
{
    private static final TypeOperators TYPE_OPERATORS = new TypeOperators();
    // the least memory a sorter takes: it merges two runs at once, so many runs take several passes
    private static final long SMALL_MEMORY = MIN_MEMORY_BYTES;

    @TempDir
    Path directory;

    @Test
    void testManyRunsGiveExactlyTheRowsOfAnInMemorySort()
            throws IOException
    {
        List<Page> pages = new RandomRows(1).nextPages(60, 500);
        // channel numbers in RandomRows.TYPES: real, char(3) and boolean; double (NaN, infinities,
        // -0.0, nulls); varchar then long decimal; timestamp(9) then timestamp(6) with time zone
        // (instants compare across zones); uuid, date, time(6), short decimal, tinyint
        List<List<Integer>> sortKeys = List.of(List.of(5, 10, 1), List.of(6), List.of(9, 8), List.of(16, 18), List.of(19, 12, 13, 7, 2));
        for (List<Integer> sortKey : sortKeys) {
            RowSorter rowSorter = new RowSorter(TYPES, sortKey, TYPE_OPERATORS);
            List<List<Object>> expected = RandomRows.rows(ImmutableList.copyOf(rowSorter.sort(pages, PageSize.ofRows(1000))), TYPES);

            SortedRows sorted = sortInSmallMemory(rowSorter, pages);
            // the row number in column 0 makes every row distinct: ties came out in input order
            assertThat(sorted.rows()).as("sorted by %s", sortKey).isEqualTo(expected);
            assertThat(sorted.spilledRuns()).as("runs spilled").isGreaterThan(10);
            // the last buffer is spilled too, and merging two runs at a time writes many more
            assertThat(sorted.runsWritten()).as("runs written, intermediate merges included").isGreaterThan(sorted.spilledRuns() + 1);
            // balanced passes: each halves the runs (two merged at once) and rewrites each row once at most
            int runs = sorted.buffersSpilled();
            int passes = 0;
            for (int left = runs; left > 2; left = (left + 1) / 2) {
                passes++;
            }
            assertThat(sorted.mergePasses()).as("passes over %s runs", runs).isEqualTo(passes);
            assertThat(sorted.rowsSpilled()).isLessThanOrEqualTo((1L + passes) * expected.size());
            assertThat(directory).isEmptyDirectory();
        }
    }

    @Test
    void testMemoryStaysWithinTheLimit()
            throws IOException
    {
        List<Page> pages = new RandomRows(2).nextPages(40, 700);
        for (long limit : List.of(SMALL_MEMORY, 1024L * 1024, 4L * 1024 * 1024)) {
            SpillingSorter sorter = new SpillingSorter(new RowSorter(TYPES, List.of(6, 9), TYPE_OPERATORS), limit, directory, "memory-");
            for (Page page : pages) {
                sorter.add(page);
                assertThat(sorter.memoryUsage()).isLessThanOrEqualTo(sorter.peakMemoryUsage());
            }
            long rows = 0;
            Iterator<Page> sorted = sorter.sorted();
            while (sorted.hasNext()) {
                Page page = sorted.next();
                rows += page.getPositionCount();
                assertThat(page.getSizeInBytes()).isLessThanOrEqualTo(sorter.pageSize().maxBytes() + 1024);
                assertThat(sorter.memoryUsage()).isLessThanOrEqualTo(sorter.peakMemoryUsage());
            }
            sorter.close();
            assertThat(rows).isEqualTo(40 * 700);
            assertThat(sorter.runsWritten()).as("limit %s", limit).isPositive();
            // measured while spilling and merging, the pages being encoded and decoded included:
            // most of the limit is used, none of it exceeded
            assertThat(sorter.peakMemoryUsage()).as("limit %s", limit).isGreaterThan(limit * 3 / 4).isLessThanOrEqualTo(limit);
        }
        assertThat(directory).isEmptyDirectory();
    }

    @Test
    void testRowsThatFitAreSortedWithoutSpilling()
            throws IOException
    {
        List<Page> pages = new RandomRows(3).nextPages(4, 100);
        RowSorter rowSorter = new RowSorter(TYPES, List.of(9), TYPE_OPERATORS);
        SpillingSorter sorter = new SpillingSorter(rowSorter, 64L * 1024 * 1024, directory, "fits-");
        for (Page page : pages) {
            sorter.add(page);
        }
        assertThat(RandomRows.rows(ImmutableList.copyOf(sorter.sorted()), TYPES))
                .isEqualTo(RandomRows.rows(ImmutableList.copyOf(rowSorter.sort(pages, PageSize.ofRows(1000))), TYPES));
        sorter.close();
        assertThat(sorter.runsWritten()).isZero();
        assertThat(sorter.bytesSpilled()).isZero();
    }

    @Test
    void testNoRows()
            throws IOException
    {
        SpillingSorter sorter = new SpillingSorter(new RowSorter(TYPES, List.of(1), TYPE_OPERATORS), SMALL_MEMORY, directory, "empty-");
        sorter.add(new RandomRows(4).nextPage(0));
        assertThat(sorter.sorted()).isExhausted();
        sorter.close();
        assertThat(sorter.runsWritten()).isZero();
    }

    @Test
    void testCloseDeletesRunsWhileAddingAndWhileMerging()
            throws IOException
    {
        List<Page> pages = new RandomRows(5).nextPages(30, 500);
        RowSorter rowSorter = new RowSorter(TYPES, List.of(6), TYPE_OPERATORS);

        SpillingSorter adding = new SpillingSorter(rowSorter, SMALL_MEMORY, directory, "adding-");
        pages.forEach(page -> addUnchecked(adding, page));
        assertThat(adding.runsWritten()).isGreaterThan(3);
        assertThat(directory).isNotEmptyDirectory();
        adding.close();
        assertThat(directory).isEmptyDirectory();

        SpillingSorter merging = new SpillingSorter(rowSorter, SMALL_MEMORY, directory, "merging-");
        pages.forEach(page -> addUnchecked(merging, page));
        Iterator<Page> sorted = merging.sorted();
        sorted.next();
        assertThat(directory).isNotEmptyDirectory();
        merging.close();
        assertThat(directory).isEmptyDirectory();
        // closing twice is fine; adding after closing is not
        merging.close();
        assertThatThrownBy(() -> merging.add(pages.getFirst())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void testTooLittleMemoryIsRefused()
    {
        assertThatThrownBy(() -> new SpillingSorter(new RowSorter(TYPES, List.of(1), TYPE_OPERATORS), SMALL_MEMORY - 1, directory, "small-"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryLimitBytes must be at least");
    }

    private SortedRows sortInSmallMemory(RowSorter rowSorter, List<Page> pages)
            throws IOException
    {
        try (SpillingSorter sorter = new SpillingSorter(rowSorter, SMALL_MEMORY, directory, "sort-")) {
            for (Page page : pages) {
                sorter.add(page);
            }
            int spilled = sorter.runsWritten();
            List<Page> sorted = new ArrayList<>();
            sorter.sorted().forEachRemaining(sorted::add);
            assertThat(sorter.peakMemoryUsage()).isLessThanOrEqualTo(SMALL_MEMORY);
            return new SortedRows(RandomRows.rows(sorted, TYPES), spilled, sorter.runsWritten(), sorter.buffersSpilled(), sorter.mergePasses(), sorter.rowsSpilled());
        }
    }

    private record SortedRows(List<List<Object>> rows, int spilledRuns, int runsWritten, int buffersSpilled, int mergePasses, long rowsSpilled) {}

    private static void addUnchecked(SpillingSorter sorter, Page page)
    {
        try {
            sorter.add(page);
        }
        catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
