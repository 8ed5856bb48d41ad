package io.nsc.tools.tpch;

import com.google.common.collect.Lists;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * The rows of a TPC-H table in stable order of a date or integer column, holding at most a run
 * of rows in memory whatever the table's size: an external merge sort.
 *
 * <p>Rows are taken from the generator a run at a time into a {@link TpchRowBuffer}, sorted there
 * (a stable counting sort) and written to a run file; the runs are then merged with
 * {@link SortedRunMerger}, which keeps rows with equal keys in generator order, so the result is
 * row for row that of sorting the whole table in memory. A table no larger than one run is never
 * written out: its rows are served from the buffer. When there are more runs than one merge
 * opens at once, consecutive runs are first merged into longer ones (which keeps the order
 * stable), so the number of open files stays bounded too.
 *
 * <p>Run files go to a hidden directory under the output directory, not to the system's
 * temporary directory, which is often in memory (tmpfs) and would hold the table in RAM after
 * all. {@link #close()} deletes it, after success and failure alike.
 */
final class SortedRowGroupSource
        implements RowGroupSource
{
    /** Runs one merge opens at once: a file and a 64 KB read buffer each. */
    static final int DEFAULT_MERGE_WIDTH = 64;

    private final RowGroupSource pages;
    private final RunFiles runFiles;
    private final SortStatistics statistics;

    private SortedRowGroupSource(RowGroupSource pages, RunFiles runFiles, SortStatistics statistics)
    {
        this.pages = requireNonNull(pages, "pages is null");
        this.runFiles = requireNonNull(runFiles, "runFiles is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
    }

    /**
     * Sorts the rows, leaving them ready to be handed out; run files are deleted on failure.
     *
     * @param rowsPerRun the most rows held in memory at once
     * @param mergeWidth the most runs merged at once
     * @param workDirectory where the directory of run files is made
     * @param expectedRows about how many rows the table has, to size the buffer up front
     */
    static <E extends TpchEntity> SortedRowGroupSource sort(
            TpchTable<E> table,
            Iterator<E> rows,
            String sortColumn,
            int rowsPerRun,
            int mergeWidth,
            Path workDirectory,
            long expectedRows)
            throws IOException
    {
        requireNonNull(table, "table is null");
        requireNonNull(rows, "rows is null");
        requireNonNull(sortColumn, "sortColumn is null");
        checkArgument(rowsPerRun > 0, "rowsPerRun must be positive: %s", rowsPerRun);
        checkArgument(mergeWidth >= 2, "mergeWidth must be at least 2: %s", mergeWidth);
        RunFiles runFiles = new RunFiles(workDirectory, "." + table.getTableName() + "-sort-runs-");
        try {
            TpchRowBuffer<E> buffer = new TpchRowBuffer<>(table, (int) min(rowsPerRun, max(expectedRows, 0)));
            RunCutter<E> cutter = new RunCutter<>(buffer, buffer.columnIndex(sortColumn), rowsPerRun, runFiles);
            Optional<RowGroupSource> inMemory = cutter.cut(rows);
            if (inMemory.isPresent()) {
                return new SortedRowGroupSource(inMemory.get(), runFiles, cutter.inMemoryStatistics());
            }
            List<SortedRun> runs = cutter.runs();
            long spilledBytes = cutter.spilledBytes();
            int passes = 1;
            List<Type> types = TpchColumns.types(table);
            while (runs.size() > mergeWidth) {
                runs = mergePass(runs, mergeWidth, types, runFiles);
                spilledBytes += runs.stream().mapToLong(SortedRun::sizeBytes).sum();
                passes++;
            }
            RowGroupSource merged = new MergedPages(SortedRunMerger.open(runs, types), types);
            return new SortedRowGroupSource(merged, runFiles, cutter.statistics(passes, spilledBytes));
        }
        catch (IOException | RuntimeException e) {
            try {
                runFiles.close();
            }
            catch (IOException | RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    SortStatistics statistics()
    {
        return statistics;
    }

    @Override
    public Page next(int maxRows)
            throws IOException
    {
        return pages.next(maxRows);
    }

    @Override
    public void close()
            throws IOException
    {
        try (runFiles; pages) {
            // the pages' open files are closed before the run files are deleted
        }
    }

    /** Merges consecutive runs into longer ones, so that at most {@code mergeWidth} are left; deletes the merged runs. */
    private static List<SortedRun> mergePass(List<SortedRun> runs, int mergeWidth, List<Type> types, RunFiles runFiles)
            throws IOException
    {
        // runs stay in generator order (each merged run takes the place of the runs it holds), so the merge stays stable
        // the smallest batches that leave few enough runs: fewer bytes rewritten than full-width batches
        int batchSize = min(mergeWidth, max(2, (runs.size() + mergeWidth - 1) / mergeWidth));
        List<SortedRun> merged = new ArrayList<>();
        for (List<SortedRun> batch : Lists.partition(runs, batchSize)) {
            if (batch.size() == 1) {
                merged.add(batch.getFirst());
                continue;
            }
            try (SortedRunMerger merger = SortedRunMerger.open(batch, types);
                    SortedRunWriter writer = new SortedRunWriter(runFiles.newFile())) {
                for (SortedRunReader group = merger.nextGroup(); group != null; group = merger.nextGroup()) {
                    writer.copyGroup(group);
                }
                merged.add(writer.finish());
            }
            for (SortedRun run : batch) {
                Files.delete(run.file());
            }
        }
        return merged;
    }

    /** Cuts the generator's rows into sorted runs, one buffer at a time. */
    private static final class RunCutter<E extends TpchEntity>
    {
        private final TpchRowBuffer<E> buffer;
        private final int keyColumn;
        private final int rowsPerRun;
        private final RunFiles runFiles;
        private final List<SortedRun> runs = new ArrayList<>();
        private int peakRows;
        private long peakBytes;

        RunCutter(TpchRowBuffer<E> buffer, int keyColumn, int rowsPerRun, RunFiles runFiles)
        {
            this.buffer = buffer;
            this.keyColumn = keyColumn;
            this.rowsPerRun = rowsPerRun;
            this.runFiles = runFiles;
        }

        /** Takes every row; the rows served from memory if they fit in one run, else empty and the runs are on disk. */
        Optional<RowGroupSource> cut(Iterator<E> rows)
                throws IOException
        {
            do {
                buffer.clear();
                while (buffer.rowCount() < rowsPerRun && rows.hasNext()) {
                    buffer.append(rows.next());
                }
                int[] order = buffer.stableOrderBy(keyColumn);
                peakRows = max(peakRows, buffer.rowCount());
                peakBytes = max(peakBytes, buffer.retainedBytes() + (long) order.length * Integer.BYTES);
                if (runs.isEmpty() && !rows.hasNext()) {
                    return Optional.of(new BufferedPages(buffer, order));
                }
                runs.add(write(order));
            }
            while (rows.hasNext());
            return Optional.empty();
        }

        private SortedRun write(int[] order)
                throws IOException
        {
            try (SortedRunWriter writer = new SortedRunWriter(runFiles.newFile())) {
                int start = 0;
                while (start < order.length) {
                    int key = buffer.intValue(keyColumn, order[start]);
                    int end = start + 1;
                    while (end < order.length && buffer.intValue(keyColumn, order[end]) == key) {
                        end++;
                    }
                    writer.writeGroup(key, buffer, order, start, end);
                    start = end;
                }
                return writer.finish();
            }
        }

        List<SortedRun> runs()
        {
            return runs;
        }

        long spilledBytes()
        {
            return runs.stream().mapToLong(SortedRun::sizeBytes).sum();
        }

        SortStatistics inMemoryStatistics()
        {
            return new SortStatistics(peakRows == 0 ? 0 : 1, 0, peakRows, peakBytes, 0);
        }

        SortStatistics statistics(int mergePasses, long spilledBytes)
        {
            return new SortStatistics(runs.size(), mergePasses, peakRows, peakBytes, spilledBytes);
        }
    }

    /** A table that fit in one run: its rows straight from the buffer, in sorted order. */
    private static final class BufferedPages
            implements RowGroupSource
    {
        private final TpchRowBuffer<?> buffer;
        private final int[] order;
        private int next;

        BufferedPages(TpchRowBuffer<?> buffer, int[] order)
        {
            this.buffer = buffer;
            this.order = order;
        }

        @Override
        public Page next(int maxRows)
        {
            if (next == order.length) {
                return null;
            }
            int end = min(order.length, next + maxRows);
            Page page = buffer.page(order, next, end);
            next = end;
            return page;
        }
    }

    /** The rows of the last merge, decoded into pages. */
    private static final class MergedPages
            implements RowGroupSource
    {
        private final SortedRunMerger merger;
        private final PageBuilder pageBuilder;
        private SortedRunReader group;
        private boolean finished;

        MergedPages(SortedRunMerger merger, List<Type> types)
        {
            this.merger = merger;
            this.pageBuilder = new PageBuilder(types);
        }

        @Override
        public Page next(int maxRows)
        {
            checkArgument(maxRows > 0, "maxRows must be positive: %s", maxRows);
            while (!finished && pageBuilder.getPositionCount() < maxRows) {
                if (group == null || group.groupRowsLeft() == 0) {
                    group = merger.nextGroup();
                    if (group == null) {
                        finished = true;
                        break;
                    }
                }
                group.readRow(pageBuilder);
            }
            if (pageBuilder.isEmpty()) {
                return null;
            }
            Page page = pageBuilder.build();
            pageBuilder.reset();
            return page;
        }

        @Override
        public void close()
                throws IOException
        {
            merger.close();
        }
    }

    /** The directory of one sort's run files, made when the first run is written. */
    private static final class RunFiles
            implements Closeable
    {
        private final Path parent;
        private final String prefix;
        private Path directory;
        private int created;
        private boolean closed;

        RunFiles(Path parent, String prefix)
        {
            this.parent = requireNonNull(parent, "parent is null");
            this.prefix = requireNonNull(prefix, "prefix is null");
        }

        Path newFile()
                throws IOException
        {
            checkState(!closed, "run files are deleted");
            if (directory == null) {
                Files.createDirectories(parent);
                directory = Files.createTempDirectory(parent, prefix);
            }
            return directory.resolve("run-%06d".formatted(created++));
        }

        /** Deletes every run file and the directory. */
        @Override
        public void close()
                throws IOException
        {
            closed = true;
            if (directory == null) {
                return;
            }
            try (var files = Files.list(directory)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.delete(file);
                }
            }
            Files.delete(directory);
            directory = null;
        }
    }
}
