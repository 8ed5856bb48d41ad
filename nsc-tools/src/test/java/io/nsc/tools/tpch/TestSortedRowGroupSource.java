package io.nsc.tools.tpch;

import io.nsc.parquet.ParquetRows;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import io.trino.tpch.Order;
import io.trino.tpch.TpchEntity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import static io.nsc.tools.tpch.SortedRowGroupSource.DEFAULT_MERGE_WIDTH;
import static io.trino.tpch.TpchTable.ORDERS;
import static io.trino.tpch.TpchTable.PART;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestSortedRowGroupSource
{
    // 15,000 orders: o_orderdate spans about 2,400 days, so a run of 1,000 holds about 900 dates
    private static final double SCALE = 0.01;
    private static final int ORDERS_ROWS = 15_000;
    private static final List<Type> ORDERS_TYPES = TpchColumns.types(ORDERS);

    @TempDir
    Path workDirectory;

    @Test
    void anyRunSizeGivesTheRowsOfOneStableSort()
            throws IOException
    {
        List<List<Object>> expected = TpchRows.stableSorted(ORDERS, TpchRows.generatorRows(ORDERS, SCALE), "o_orderdate");
        // one run in memory, runs that divide the rows evenly, a short last run, and so many
        // runs (2,143) that a merge pass must first combine them into at most 64
        for (int rowsPerRun : List.of(ORDERS_ROWS, 1_000, 999, 7)) {
            try (SortedRowGroupSource source = sortOrders(SCALE, rowsPerRun, DEFAULT_MERGE_WIDTH)) {
                assertThat(readAll(source, ORDERS_TYPES, 333)).as("runs of %s rows", rowsPerRun).isEqualTo(expected);
                SortStatistics statistics = source.statistics();
                assertThat(statistics.runs()).isEqualTo((ORDERS_ROWS + rowsPerRun - 1) / rowsPerRun);
                assertThat(statistics.peakBufferedRows()).isEqualTo(rowsPerRun);
            }
            assertThat(workDirectory).isEmptyDirectory();
        }
    }

    @Test
    void aTableOfOneRunNeverLeavesMemory()
            throws IOException
    {
        try (SortedRowGroupSource source = sortOrders(SCALE, ORDERS_ROWS, DEFAULT_MERGE_WIDTH)) {
            assertThat(workDirectory).isEmptyDirectory();
            assertThat(source.statistics()).isEqualTo(new SortStatistics(1, 0, ORDERS_ROWS, source.statistics().peakBufferBytes(), 0));
            assertThat(readAll(source, ORDERS_TYPES, 1_000)).hasSize(ORDERS_ROWS);
        }
    }

    @Test
    void memoryHoldsOneRunWhateverTheTableSize()
            throws IOException
    {
        SortStatistics inMemory;
        try (SortedRowGroupSource source = sortOrders(SCALE, ORDERS_ROWS, DEFAULT_MERGE_WIDTH)) {
            inMemory = source.statistics();
        }
        try (SortedRowGroupSource source = sortOrders(SCALE, 1_000, DEFAULT_MERGE_WIDTH)) {
            SortStatistics spilled = source.statistics();
            assertThat(spilled.peakBufferedRows()).isEqualTo(1_000);
            // a fifteenth of the rows: well under a fifth of the bytes, whatever the arrays' slack
            assertThat(spilled.peakBufferBytes()).isPositive().isLessThan(inMemory.peakBufferBytes() / 5);
            assertThat(spilled.spilledBytes()).isGreaterThan(ORDERS_ROWS * 50L);
            assertThat(spilled.mergePasses()).isEqualTo(1);
            // the runs are on disk until the source is closed
            assertThat(runFiles()).hasSize(15);
        }
        assertThat(workDirectory).isEmptyDirectory();
    }

    @Test
    void runsOfOneRow()
            throws IOException
    {
        // 1,500 orders at scale 0.001: 1,500 runs, merged 24 at a time into 63, then at once
        double scale = 0.001;
        List<List<Object>> expected = TpchRows.stableSorted(ORDERS, TpchRows.generatorRows(ORDERS, scale), "o_orderdate");
        try (SortedRowGroupSource source = sortOrders(scale, 1, DEFAULT_MERGE_WIDTH)) {
            assertThat(source.statistics().runs()).isEqualTo(1_500);
            assertThat(source.statistics().peakBufferedRows()).isEqualTo(1);
            assertThat(source.statistics().mergePasses()).isEqualTo(2);
            assertThat(runFiles()).hasSize(63);
            assertThat(readAll(source, ORDERS_TYPES, 100)).isEqualTo(expected);
        }
        assertThat(workDirectory).isEmptyDirectory();
    }

    @Test
    void narrowMergesTakeSeveralPasses()
            throws IOException
    {
        List<List<Object>> expected = TpchRows.stableSorted(ORDERS, TpchRows.generatorRows(ORDERS, SCALE), "o_orderdate");
        // 10 runs, two at a time: 10 -> 5 -> 3 -> 2, then the last merge
        try (SortedRowGroupSource source = sortOrders(SCALE, 1_500, 2)) {
            assertThat(source.statistics().runs()).isEqualTo(10);
            assertThat(source.statistics().mergePasses()).isEqualTo(4);
            assertThat(runFiles()).hasSize(2);
            assertThat(readAll(source, ORDERS_TYPES, 4_096)).isEqualTo(expected);
        }
    }

    @Test
    void equalKeysKeepGeneratorOrder()
            throws IOException
    {
        // 2,000 parts with 50 sizes: about 40 rows per key, spread over every run
        List<List<Object>> rows = TpchRows.generatorRows(PART, SCALE);
        List<List<Object>> expected = TpchRows.stableSorted(PART, rows, "p_size");
        try (SortedRowGroupSource source = SortedRowGroupSource.sort(PART, PART.createGenerator(SCALE, 1, 1).iterator(), "p_size", 37, DEFAULT_MERGE_WIDTH, workDirectory, 2_000)) {
            assertThat(readAll(source, TpchColumns.types(PART), 100)).isEqualTo(expected);
        }
    }

    @Test
    void allRowsWithOneKey()
            throws IOException
    {
        // min == max: every run is one group, and the merge must take the runs in order
        int orderDate = TpchColumns.names(ORDERS).indexOf("o_orderdate");
        List<Order> oneDay = new ArrayList<>();
        for (Order order : ORDERS.createGenerator(0.1, 1, 1)) {
            if (ORDERS.getColumns().get(orderDate).getDate(order) == 9_000) {
                oneDay.add(order);
            }
        }
        assertThat(oneDay).hasSizeGreaterThan(20);
        try (SortedRowGroupSource source = SortedRowGroupSource.sort(ORDERS, oneDay.iterator(), "o_orderdate", 5, DEFAULT_MERGE_WIDTH, workDirectory, 0)) {
            assertThat(source.statistics().runs()).isEqualTo((oneDay.size() + 4) / 5);
            assertThat(readAll(source, ORDERS_TYPES, 7)).isEqualTo(oneDay.stream().map(order -> TpchRows.row(ORDERS, order)).toList());
        }
    }

    @Test
    void emptyTable()
            throws IOException
    {
        try (SortedRowGroupSource source = SortedRowGroupSource.sort(ORDERS, Collections.emptyIterator(), "o_orderdate", 10, DEFAULT_MERGE_WIDTH, workDirectory, 0)) {
            assertThat(source.next(100)).isNull();
            assertThat(source.statistics()).isEqualTo(new SortStatistics(0, 0, 0, source.statistics().peakBufferBytes(), 0));
        }
        assertThat(workDirectory).isEmptyDirectory();
    }

    @Test
    void pagesHoldExactlyTheRowsAsked()
            throws IOException
    {
        try (SortedRowGroupSource source = sortOrders(SCALE, 1_000, DEFAULT_MERGE_WIDTH)) {
            List<Integer> sizes = new ArrayList<>();
            for (Page page = source.next(4_000); page != null; page = source.next(4_000)) {
                sizes.add(page.getPositionCount());
            }
            assertThat(sizes).containsExactly(4_000, 4_000, 4_000, 3_000);
            assertThat(source.next(4_000)).isNull();
        }
    }

    @Test
    void failedGenerationLeavesNoRunFiles()
    {
        Iterator<Order> failing = failAfter(ORDERS.createGenerator(SCALE, 1, 1).iterator(), 2_500);
        assertThatThrownBy(() -> SortedRowGroupSource.sort(ORDERS, failing, "o_orderdate", 1_000, DEFAULT_MERGE_WIDTH, workDirectory, ORDERS_ROWS))
                .hasMessage("generator failed");
        assertThat(workDirectory).isEmptyDirectory();
    }

    @Test
    void closingMidWayDeletesTheRunFiles()
            throws IOException
    {
        try (SortedRowGroupSource source = sortOrders(SCALE, 1_000, DEFAULT_MERGE_WIDTH)) {
            assertThat(source.next(10)).isNotNull();
            assertThat(runFiles()).hasSize(15);
        }
        assertThat(workDirectory).isEmptyDirectory();
    }

    @Test
    void refusesAColumnThatIsNotADateOrInteger()
    {
        assertThatThrownBy(() -> SortedRowGroupSource.sort(ORDERS, ORDERS.createGenerator(SCALE, 1, 1).iterator(), "o_comment", 1_000, DEFAULT_MERGE_WIDTH, workDirectory, ORDERS_ROWS))
                .hasMessageContaining("o_comment is not a date or integer column");
        assertThat(workDirectory).isEmptyDirectory();
    }

    private SortedRowGroupSource sortOrders(double scale, int rowsPerRun, int mergeWidth)
            throws IOException
    {
        return SortedRowGroupSource.sort(ORDERS, ORDERS.createGenerator(scale, 1, 1).iterator(), "o_orderdate", rowsPerRun, mergeWidth, workDirectory, (long) (1_500_000 * scale));
    }

    private static List<List<Object>> readAll(SortedRowGroupSource source, List<Type> types, int maxRows)
            throws IOException
    {
        List<List<Object>> rows = new ArrayList<>();
        for (Page page = source.next(maxRows); page != null; page = source.next(maxRows)) {
            assertThat(page.getPositionCount()).isBetween(1, maxRows);
            rows.addAll(ParquetRows.rows(page, types));
        }
        return rows;
    }

    /** The run files under the work directory: one hidden directory per sort, named for the table. */
    private List<Path> runFiles()
            throws IOException
    {
        try (Stream<Path> entries = Files.list(workDirectory)) {
            List<Path> directories = entries.toList();
            assertThat(directories).hasSize(1);
            assertThat(directories.getFirst().getFileName().toString()).startsWith(".orders-sort-runs-");
            try (Stream<Path> files = Files.list(directories.getFirst())) {
                return files.toList();
            }
        }
    }

    private static <E extends TpchEntity> Iterator<E> failAfter(Iterator<E> rows, int count)
    {
        return new Iterator<>()
        {
            private int returned;

            @Override
            public boolean hasNext()
            {
                return rows.hasNext();
            }

            @Override
            public E next()
            {
                if (returned == count) {
                    throw new IllegalStateException("generator failed");
                }
                returned++;
                return rows.next();
            }
        };
    }
}
