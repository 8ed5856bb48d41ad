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
            Spill spill = new Spill(runFiles);
            Optional<RowGroupSource> inMemory = spill.cut(table, rows, sortColumn, rowsPerRun, expectedRows);
            if (inMemory.isPresent()) {
                return new SortedRowGroupSource(inMemory.get(), runFiles, spill.statistics());
            }
            // the sort buffer is garbage from here on: merging needs only the runs' read buffers
            List<Type> types = TpchColumns.types(table);
            List<SortedRun> runs = spill.mergeDownTo(mergeWidth, types);
            RowGroupSource merged = new MergedPages(SortedRunMerger.open(runs, types), types);
            return new SortedRowGroupSource(merged, runFiles, spill.statistics());
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

    /** One table's sorted runs on disk, and what making them took. */
    private static final class Spill
    {
        private final RunFiles runFiles;
        private List<SortedRun> runs = new ArrayList<>();
        private int cutRuns;
        private int mergePasses;
        private int peakRows;
        private long peakBytes;
        private long spilledBytes;

        Spill(RunFiles runFiles)
        {
            this.runFiles = runFiles;
        }

        /**
         * Takes every row, a run at a time, into one buffer; returns the rows to serve from memory
         * if they fit in one run, else empty with the runs written.
         */
        <E extends TpchEntity> Optional<RowGroupSource> cut(TpchTable<E> table, Iterator<E> rows, String sortColumn, int rowsPerRun, long expectedRows)
                throws IOException
        {
            TpchRowBuffer<E> buffer = new TpchRowBuffer<>(table, (int) min(rowsPerRun, max(expectedRows, 0)));
            int keyColumn = buffer.columnIndex(sortColumn);
            do {
                buffer.clear();
                while (buffer.rowCount() < rowsPerRun && rows.hasNext()) {
                    buffer.append(rows.next());
                }
                int[] order = buffer.stableOrderBy(keyColumn);
                peakRows = max(peakRows, buffer.rowCount());
                peakBytes = max(peakBytes, buffer.retainedBytes() + (long) order.length * Integer.BYTES);
                if (runs.isEmpty() && !rows.hasNext()) {
                    cutRuns = buffer.rowCount() == 0 ? 0 : 1;
                    return Optional.of(new BufferedPages(buffer, order));
                }
                runs.add(written(writeRun(buffer, keyColumn, order)));
            }
            while (rows.hasNext());
            cutRuns = runs.size();
            return Optional.empty();
        }

        private SortedRun writeRun(TpchRowBuffer<?> buffer, int keyColumn, int[] order)
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

        /** Merges runs into longer ones until at most {@code mergeWidth} are left; the runs for the last merge. */
        List<SortedRun> mergeDownTo(int mergeWidth, List<Type> types)
                throws IOException
        {
            while (runs.size() > mergeWidth) {
                runs = mergePass(mergeWidth, types);
                mergePasses++;
            }
            // the last merge is the one that hands out the rows
            mergePasses++;
            return runs;
        }

        private List<SortedRun> mergePass(int mergeWidth, List<Type> types)
                throws IOException
        {
            // the smallest batches that leave few enough runs: fewer bytes rewritten than full-width
            // batches. Consecutive runs only, each merged run in their place: the order stays stable
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
                    merged.add(written(writer.finish()));
                }
                for (SortedRun run : batch) {
                    Files.delete(run.file());
                }
            }
            return merged;
        }

        private SortedRun written(SortedRun run)
        {
            spilledBytes += run.sizeBytes();
            return run;
        }

        SortStatistics statistics()
        {
            return new SortStatistics(cutRuns, mergePasses, peakRows, peakBytes, spilledBytes);
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
