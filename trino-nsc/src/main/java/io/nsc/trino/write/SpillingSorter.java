package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.trino.spi.Page;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.lang.Math.clamp;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Sorts any number of rows in a fixed memory, as Trino's Hive connector sorts the files of a
 * sorted table: rows are buffered up to the memory limit, each full buffer is sorted by
 * {@link RowSorter} and spilled to a temporary local file as a sorted run, and {@link #sorted()}
 * merges the runs ({@link SortedRunMerger}). When there are more runs than the memory can read at
 * once, consecutive runs are first merged into longer ones, so the order stays stable: rows that
 * tie come out in the order they were added. Rows that never outgrew the buffer are sorted in
 * memory and nothing is spilled.
 *
 * <p>Memory: the buffer, with the sort's address arrays, while rows are added; one page per run
 * merged plus the page being built during a merge; never more than the limit plus one page.
 * Runs are deleted once merged and by {@link #close()}, whatever happened before.
 */
public final class SpillingSorter
        implements Closeable
{
    private static final Logger log = Logger.get(SpillingSorter.class);

    // pages handed on (spilled, merged) hold at most this many rows, as Trino's own pages do
    static final int MAX_PAGE_ROWS = 8192;
    // also bounds the sort's address array (int-indexed)
    static final long MAX_BUFFERED_ROWS = 1 << 24;
    // Runs merged at once: wider merges read smaller pages; past this many, a merge pass costs
    // less than reading pages so small that each row's bookkeeping dominates.
    static final int MAX_MERGE_WIDTH = 64;
    // The smallest page a merge reads per run; a small memory merges fewer runs at once instead.
    static final int MIN_MERGE_PAGE_BYTES = 64 * 1024;

    private final RowSorter sorter;
    private final long memoryLimitBytes;
    private final Path tempDirectory;
    private final String runNamePrefix;
    private final int mergeWidth;
    private final PageSize pageSize;

    private final List<Page> buffer = new ArrayList<>();
    private long bufferedBytes;
    private long bufferedRows;
    // sorted runs in the order of the rows they hold: the merge breaks ties by this order
    private final List<SortedRun> runs = new ArrayList<>();
    private final List<SortedRunReader> openRuns = new ArrayList<>();
    private SortedRunMerger merge;
    private int runsWritten;
    private long bytesSpilled;
    private boolean sorting;
    private boolean closed;

    /**
     * @param memoryLimitBytes what the buffer and a merge may hold; at least three merge pages (two runs and the output)
     * @param runNamePrefix the start of each run file's name, to tell whose runs they are
     */
    public SpillingSorter(RowSorter sorter, long memoryLimitBytes, Path tempDirectory, String runNamePrefix)
    {
        this.sorter = requireNonNull(sorter, "sorter is null");
        this.tempDirectory = requireNonNull(tempDirectory, "tempDirectory is null");
        this.runNamePrefix = requireNonNull(runNamePrefix, "runNamePrefix is null");
        checkArgument(memoryLimitBytes >= 3L * MIN_MERGE_PAGE_BYTES, "memoryLimitBytes must be at least %s: %s", 3L * MIN_MERGE_PAGE_BYTES, memoryLimitBytes);
        this.memoryLimitBytes = memoryLimitBytes;
        // a page and a read buffer per run merged, and the output page being built
        this.mergeWidth = toIntExact(clamp(memoryLimitBytes / (MIN_MERGE_PAGE_BYTES + SortedRunReader.INPUT_BUFFER_BYTES) - 1, 2, MAX_MERGE_WIDTH));
        long pageBytes = (memoryLimitBytes - (long) mergeWidth * SortedRunReader.INPUT_BUFFER_BYTES) / (mergeWidth + 1);
        this.pageSize = new PageSize(MAX_PAGE_ROWS, toIntExact(Math.min(Integer.MAX_VALUE, pageBytes)));
    }

    /**
     * Adds the rows of the page, which must not change afterwards. The sorter keeps the page until
     * its rows are spilled or sorted; compact it first if it is a view of larger blocks.
     *
     * @throws IOException when a run cannot be spilled
     */
    public void add(Page page)
            throws IOException
    {
        checkState(!sorting && !closed, "rows can no longer be added");
        if (page.getPositionCount() == 0) {
            return;
        }
        buffer.add(page);
        bufferedBytes += page.getRetainedSizeInBytes();
        bufferedRows += page.getPositionCount();
        if (bufferMemory() >= memoryLimitBytes || bufferedRows >= MAX_BUFFERED_ROWS) {
            spillBuffer();
        }
    }

    /**
     * All rows added, sorted, in pages of at most {@link #pageSize()}. Call once, after the last
     * {@link #add}; the pages are read (and runs merged) as the iterator is consumed.
     *
     * @throws IOException when runs cannot be spilled, merged or opened
     */
    public Iterator<Page> sorted()
            throws IOException
    {
        checkState(!sorting && !closed, "sorted() was called already");
        sorting = true;
        if (runs.isEmpty()) {
            return sorter.sort(buffer, pageSize);
        }
        spillBuffer();
        while (runs.size() > mergeWidth) {
            // merge just enough of the oldest runs into one that the rest can be merged at once
            int count = Math.min(mergeWidth, runs.size() - mergeWidth + 1);
            List<SortedRun> merged = ImmutableList.copyOf(runs.subList(0, count));
            SortedRun combined = writeRun(mergeRuns(merged));
            closeMerge();
            merged.forEach(run -> deleteQuietly(run.path()));
            runs.subList(0, count).clear();
            runs.addFirst(combined);
        }
        return mergeRuns(runs);
    }

    /** What the sorter holds in memory now: the buffer (and its sort) or the merge's pages and read buffers. */
    public long memoryUsage()
    {
        if (merge != null) {
            return merge.retainedBytes() + (long) openRuns.size() * SortedRunReader.INPUT_BUFFER_BYTES;
        }
        return bufferMemory();
    }

    public long memoryLimitBytes()
    {
        return memoryLimitBytes;
    }

    /** The pages this sorter hands on: spilled, merged and returned by {@link #sorted()}. */
    public PageSize pageSize()
    {
        return pageSize;
    }

    /** Runs merged at once. */
    public int mergeWidth()
    {
        return mergeWidth;
    }

    /** Runs written so far: spilled buffers and the runs intermediate merges produced. */
    public int runsWritten()
    {
        return runsWritten;
    }

    /** Bytes written to temporary files so far. */
    public long bytesSpilled()
    {
        return bytesSpilled;
    }

    /** Drops the buffer and deletes every run that is left, merged or not. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        buffer.clear();
        bufferedBytes = 0;
        bufferedRows = 0;
        closeMerge();
        runs.forEach(run -> deleteQuietly(run.path()));
        runs.clear();
    }

    private long bufferMemory()
    {
        return bufferedBytes + bufferedRows * RowSorter.SORT_BYTES_PER_ROW;
    }

    private void spillBuffer()
            throws IOException
    {
        if (buffer.isEmpty()) {
            return;
        }
        runs.add(writeRun(sorter.sort(buffer, pageSize)));
        buffer.clear();
        bufferedBytes = 0;
        bufferedRows = 0;
    }

    private SortedRun writeRun(Iterator<Page> sortedPages)
            throws IOException
    {
        Files.createDirectories(tempDirectory);
        Path path = tempDirectory.resolve(runNamePrefix + UUID.randomUUID() + ".run");
        try (SortedRunWriter writer = SortedRunWriter.create(path)) {
            while (sortedPages.hasNext()) {
                writer.append(sortedPages.next());
            }
            SortedRun run = writer.finish();
            runsWritten++;
            bytesSpilled += run.sizeBytes();
            return run;
        }
    }

    private SortedRunMerger mergeRuns(List<SortedRun> sortedRuns)
            throws IOException
    {
        checkState(merge == null, "a merge is in progress");
        ImmutableList.Builder<SortedRunReader> readers = ImmutableList.builder();
        for (SortedRun run : sortedRuns) {
            SortedRunReader reader = SortedRunReader.open(run);
            openRuns.add(reader);
            readers.add(reader);
        }
        merge = new SortedRunMerger(sorter, readers.build(), pageSize);
        return merge;
    }

    private void closeMerge()
    {
        merge = null;
        for (SortedRunReader reader : openRuns) {
            try {
                reader.close();
            }
            catch (IOException e) {
                log.warn(e, "Cannot close a sorted run");
            }
        }
        openRuns.clear();
    }

    private static void deleteQuietly(Path path)
    {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException e) {
            log.warn(e, "Cannot delete sorted run %s", path);
        }
    }
}
