package io.nsc.trino.write;

import com.google.common.collect.AbstractIterator;
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
import java.util.function.LongSupplier;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.lang.Math.ceilDiv;
import static java.lang.Math.clamp;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Sorts any number of rows in a fixed memory, as Trino's Hive connector sorts the files of a
 * sorted table: rows are buffered up to the memory limit, each full buffer is sorted by
 * {@link RowSorter} and spilled to a temporary local file as a sorted run, and {@link #sorted()}
 * merges the runs ({@link SortedRunMerger}). When there are more runs than the memory can read at
 * once, merge passes first merge batches of consecutive runs into longer ones, each batch as
 * small as leaves few enough runs, so that every row is rewritten once per pass and the passes
 * are few (logarithmic in the runs); consecutive runs keep the order stable: rows that tie come
 * out in the order they were added. Rows that never outgrew the buffer are sorted in memory and
 * nothing is spilled.
 *
 * <p>Memory: the buffer, with the sort's address arrays, while rows are added; one page and a read
 * buffer per run merged plus the page being built during a merge; and, at any time, room for
 * encoding or decoding one page ({@link #CODING_PAGES}) and a write buffer. The buffer is spilled
 * before a page would take it past what that leaves, so the sorter holds no more than its limit
 * unless a single page is larger than that (it is then spilled alone). {@link #peakMemoryUsage()}
 * measures it, the pages being spilled, encoded and decoded included.
 *
 * <p>Disk: the runs, until merged; a merge pass holds a batch's runs and its output at once.
 * Runs are deleted once merged and by {@link #close()}, whatever happened before; a run whose
 * write fails is deleted by {@link SortedRunWriter}.
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
    // The page size a merge aims for at the least: a smaller memory merges fewer runs at once
    // instead, down to two (the minimum memory below gives two runs pages of exactly this size).
    static final int MIN_MERGE_PAGE_BYTES = 64 * 1024;
    // Encoding or decoding a page holds up to about four pages' bytes besides the merge's pages:
    // the page, its serialized bytes (with room to grow) and their compressed copy; or the bytes
    // read, their copy, the decompressed bytes and the decoded page.
    static final int CODING_PAGES = 4;
    // runs are read and written through buffers this small: a merge opens many at once
    static final int IO_BUFFER_BYTES = SortedRunReader.INPUT_BUFFER_BYTES;
    // two runs merged and the page built, room to code a page, two read buffers and a write buffer
    static final long MIN_MEMORY_BYTES = (3L + CODING_PAGES) * MIN_MERGE_PAGE_BYTES + 3L * IO_BUFFER_BYTES;

    private final RowSorter sorter;
    private final long memoryLimitBytes;
    private final Path tempDirectory;
    private final String runNamePrefix;
    private final int mergeWidth;
    private final PageSize pageSize;
    // the buffer is spilled before it outgrows this: the rest is room to spill it
    private final long bufferLimitBytes;

    private final List<Page> buffer = new ArrayList<>();
    private long bufferedBytes;
    private long bufferedRows;
    // sorted runs in the order of the rows they hold: the merge breaks ties by this order
    private final List<SortedRun> runs = new ArrayList<>();
    private final List<SortedRunReader> openRuns = new ArrayList<>();
    private SortedRunMerger merge;
    private int runsWritten;
    private int buffersSpilled;
    private long rowsSpilled;
    private long bytesSpilled;
    private int mergePasses;
    private long peakMemoryUsage;
    private boolean sorting;
    private boolean closed;

    /**
     * @param memoryLimitBytes what the buffer and a merge may hold; at least {@link #MIN_MEMORY_BYTES}
     * @param runNamePrefix the start of each run file's name, to tell whose runs they are
     */
    public SpillingSorter(RowSorter sorter, long memoryLimitBytes, Path tempDirectory, String runNamePrefix)
    {
        this.sorter = requireNonNull(sorter, "sorter is null");
        this.tempDirectory = requireNonNull(tempDirectory, "tempDirectory is null");
        this.runNamePrefix = requireNonNull(runNamePrefix, "runNamePrefix is null");
        checkArgument(memoryLimitBytes >= MIN_MEMORY_BYTES, "memoryLimitBytes must be at least %s: %s", MIN_MEMORY_BYTES, memoryLimitBytes);
        this.memoryLimitBytes = memoryLimitBytes;
        // a page and a read buffer per run merged, the output page being built, room to code a
        // page and the output's write buffer
        this.mergeWidth = toIntExact(clamp(memoryLimitBytes / (MIN_MERGE_PAGE_BYTES + IO_BUFFER_BYTES) - 1 - CODING_PAGES, 2, MAX_MERGE_WIDTH));
        long pageBytes = (memoryLimitBytes - (mergeWidth + 1L) * IO_BUFFER_BYTES) / (mergeWidth + 1 + CODING_PAGES);
        this.pageSize = new PageSize(MAX_PAGE_ROWS, toIntExact(Math.min(Integer.MAX_VALUE, pageBytes)));
        // a spill codes the sorted pages one at a time into a write buffer
        this.bufferLimitBytes = memoryLimitBytes - CODING_PAGES * pageBytes - IO_BUFFER_BYTES;
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
        long pageMemory = page.getRetainedSizeInBytes() + (long) page.getPositionCount() * RowSorter.SORT_BYTES_PER_ROW;
        if (bufferMemory() + pageMemory > bufferLimitBytes || bufferedRows + page.getPositionCount() > MAX_BUFFERED_ROWS) {
            // spill before the page would take the buffer past its limit
            spillBuffer();
        }
        buffer.add(page);
        bufferedBytes += page.getRetainedSizeInBytes();
        bufferedRows += page.getPositionCount();
        recordMemoryUsage(bufferMemory());
        if (bufferMemory() >= bufferLimitBytes) {
            // a page larger than the buffer alone
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
            // the buffer stays until close()
            return measured(sorter.sort(buffer, pageSize), this::bufferMemory);
        }
        spillBuffer();
        while (runs.size() > mergeWidth) {
            mergePass();
        }
        SortedRunMerger finalMerge = mergeRuns(runs);
        return measured(finalMerge, this::mergeReadMemory);
    }

    /**
     * Merges batches of consecutive runs, each into one run in their place. A batch is just large
     * enough that the pass leaves at most {@link #mergeWidth} runs, and never wider than that: a
     * pass rewrites every row once (at most) and divides the runs by up to the width.
     */
    private void mergePass()
            throws IOException
    {
        int batchSize = Math.min(mergeWidth, Math.max(2, ceilDiv(runs.size(), mergeWidth)));
        // in place, so that close() finds every run on disk whatever fails
        for (int start = 0; start < runs.size(); start++) {
            int end = Math.min(start + batchSize, runs.size());
            if (end - start < 2) {
                continue;
            }
            List<SortedRun> batch = ImmutableList.copyOf(runs.subList(start, end));
            // reading a page and writing one never overlap: each is measured on its own
            SortedRun combined = writeRun(measured(mergeRuns(batch), this::mergeReadMemory), this::mergeMemory);
            closeMerge();
            runs.subList(start, end).clear();
            runs.add(start, combined);
            batch.forEach(run -> deleteQuietly(run.path()));
        }
        mergePasses++;
    }

    /** What the sorter holds in memory now: the buffer (and its sort) or the merge's pages and read buffers. */
    public long memoryUsage()
    {
        if (merge != null) {
            return mergeMemory();
        }
        return bufferMemory();
    }

    /**
     * The most the sorter held since it was created (or since {@link #resetPeakMemoryUsage()}):
     * measured as rows are added, while each page is spilled, while each merged page is read and
     * written, in intermediate merges too, and as {@link #sorted()}'s pages are read.
     */
    public long peakMemoryUsage()
    {
        return peakMemoryUsage;
    }

    /** Starts measuring {@link #peakMemoryUsage()} anew from what the sorter holds now. */
    public void resetPeakMemoryUsage()
    {
        peakMemoryUsage = memoryUsage();
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

    /** Buffers spilled as runs so far: the runs the merges start from. */
    public int buffersSpilled()
    {
        return buffersSpilled;
    }

    /** Rows written to runs so far, each time a merge rewrote them included: the sort's disk traffic in rows. */
    public long rowsSpilled()
    {
        return rowsSpilled;
    }

    /** Passes of intermediate merges so far. */
    public int mergePasses()
    {
        return mergePasses;
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
        // the buffer is held until its last page is written
        runs.add(writeRun(sorter.sort(buffer, pageSize), this::bufferMemory));
        buffersSpilled++;
        buffer.clear();
        bufferedBytes = 0;
        bufferedRows = 0;
    }

    /** Writes the pages as a run; {@code heldBytes} is what else the sorter holds meanwhile. */
    private SortedRun writeRun(Iterator<Page> sortedPages, LongSupplier heldBytes)
            throws IOException
    {
        Files.createDirectories(tempDirectory);
        Path path = tempDirectory.resolve(runNamePrefix + UUID.randomUUID() + ".run");
        try (SortedRunWriter writer = SortedRunWriter.create(path, IO_BUFFER_BYTES)) {
            while (sortedPages.hasNext()) {
                Page page = sortedPages.next();
                writer.append(page);
                recordMemoryUsage(heldBytes.getAsLong() + page.getRetainedSizeInBytes() + writer.peakEncodingBytes() + IO_BUFFER_BYTES);
            }
            SortedRun run = writer.finish();
            runsWritten++;
            rowsSpilled += run.rowCount();
            bytesSpilled += run.sizeBytes();
            return run;
        }
    }

    /** The sorted pages, each measured as it is read, with what else the sorter holds meanwhile. */
    private Iterator<Page> measured(Iterator<Page> pages, LongSupplier heldBytes)
    {
        return new AbstractIterator<>()
        {
            @Override
            protected Page computeNext()
            {
                if (!pages.hasNext()) {
                    return endOfData();
                }
                Page page = pages.next();
                recordMemoryUsage(heldBytes.getAsLong() + page.getRetainedSizeInBytes());
                return page;
            }
        };
    }

    /** The merge's pages and read buffers. */
    private long mergeMemory()
    {
        return merge.retainedBytes() + (long) openRuns.size() * IO_BUFFER_BYTES;
    }

    /** The merge's pages and read buffers, and the most a run's page took to decode. */
    private long mergeReadMemory()
    {
        return mergeMemory() + openRuns.stream().mapToLong(SortedRunReader::peakDecodingBytes).max().orElse(0);
    }

    private void recordMemoryUsage(long bytes)
    {
        peakMemoryUsage = Math.max(peakMemoryUsage, bytes);
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
        recordMemoryUsage(mergeReadMemory());
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
