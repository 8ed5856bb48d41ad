package io.nsc.tools.tpch;

import com.google.common.io.Closer;
import io.trino.spi.type.Type;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import static java.util.Objects.requireNonNull;

/**
 * Merges sorted runs into one order, group by group: the smallest key first, and of groups with
 * equal keys the one of the earliest run first. Runs are cut from the generator's rows in order
 * and each is sorted stably, so rows with equal keys come out in generator order: exactly the
 * order one stable sort of all the rows gives.
 */
final class SortedRunMerger
        implements Closeable
{
    private final List<SortedRunReader> readers;
    // ordered by (key, run index); a cursor's key changes only while it is out of the queue
    private final PriorityQueue<Cursor> queue = new PriorityQueue<>(
            Comparator.<Cursor>comparingInt(cursor -> cursor.reader().groupKey()).thenComparingInt(Cursor::run));
    private Cursor current;

    private record Cursor(int run, SortedRunReader reader) {}

    private SortedRunMerger(List<SortedRunReader> readers)
    {
        this.readers = readers;
        for (int run = 0; run < readers.size(); run++) {
            if (readers.get(run).nextGroup()) {
                queue.add(new Cursor(run, readers.get(run)));
            }
        }
    }

    /** Opens every run, in the order they were cut from the generator's rows. */
    static SortedRunMerger open(List<SortedRun> runs, List<Type> types)
            throws IOException
    {
        requireNonNull(runs, "runs is null");
        requireNonNull(types, "types is null");
        List<SortedRunReader> readers = new ArrayList<>(runs.size());
        try {
            for (SortedRun run : runs) {
                readers.add(new SortedRunReader(run, types));
            }
            return new SortedRunMerger(readers);
        }
        catch (IOException | RuntimeException e) {
            try {
                closeAll(readers);
            }
            catch (IOException | RuntimeException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
    }

    /**
     * The reader positioned on the next group in merged order, or null after the last group. The
     * group returned before must have been read to its end.
     */
    SortedRunReader nextGroup()
    {
        if (current != null && current.reader().nextGroup()) {
            queue.add(current);
        }
        current = queue.poll();
        return current == null ? null : current.reader();
    }

    @Override
    public void close()
            throws IOException
    {
        closeAll(readers);
    }

    private static void closeAll(List<SortedRunReader> readers)
            throws IOException
    {
        try (Closer closer = Closer.create()) {
            readers.forEach(closer::register);
        }
    }
}
