package io.nsc.trino.read;

import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.nsc.trino.split.ScanMode;
import io.trino.cache.EvictableCacheBuilder;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * {@code auto}'s second opinion, on the worker: the coordinator chose each split's mode from
 * estimated bytes before anything ran; here splits measure what each mode really costs on this
 * worker, and later splits go the way that was cheaper.
 * <p>
 * The measure is a split's cost per row: its elapsed time from the page source's creation to its
 * end, which holds the link's rate (raw reads move more bytes), the storage node's queue and
 * CPU (a scan waits for it) and this worker's decoding and filtering (a raw read does it here);
 * plus, where the storage node shares this worker's CPUs, the CPU time its scan took, which
 * Trino's other drivers lost meanwhile and which a split's elapsed time alone does not show.
 * Splits of both modes run side by side, so they see the same load.
 * <p>
 * Evidence is kept per scan shape (a table handle, which holds the predicate, projection, limit
 * and aggregation, with the columns read) across queries, so that a query asked again (a
 * dashboard) starts from what the last one measured, and per query, so that a query adapts to
 * what its own splits measure. Without evidence the first splits alternate between the
 * coordinator's choice and the other mode until each has {@link #EXPLORED_SPLITS} measured splits;
 * meanwhile the coordinator's choice holds. With evidence every split takes the cheaper mode,
 * except every {@link #REEXPLORE_EVERY}th, which takes the other, so a change (a node busier, a
 * link slower) is seen. A storage scan is not tried for a split the coordinator gave a raw read
 * when the node shares this worker's CPUs: it would save no bytes (the coordinator's estimate)
 * and could only take CPU time from Trino.
 */
public class AdaptiveScanModes
{
    static final int EXPLORED_SPLITS = 2;
    static final int REEXPLORE_EVERY = 16;
    private static final long MAX_SCANS = 10_000;

    /** The splits that compare with each other: a table handle and the columns the engine reads. */
    public record ScanShape(Object table, Object columns)
    {
        public ScanShape
        {
            requireNonNull(table, "table is null");
            requireNonNull(columns, "columns is null");
        }
    }

    private record QueryScan(String queryId, ScanShape shape) {}

    private final Cache<QueryScan, ScanEvidence> queries;
    private final Cache<ScanShape, ScanEvidence> shapes;
    private final Ticker ticker;

    @Inject
    public AdaptiveScanModes()
    {
        this(Ticker.systemTicker());
    }

    AdaptiveScanModes(Ticker ticker)
    {
        this.ticker = requireNonNull(ticker, "ticker is null");
        // a longer query, or a shape not asked for a while, measures its modes again
        this.queries = EvictableCacheBuilder.newBuilder().expireAfterWrite(30, TimeUnit.MINUTES).maximumSize(MAX_SCANS).build();
        this.shapes = EvictableCacheBuilder.newBuilder().expireAfterWrite(30, TimeUnit.MINUTES).maximumSize(MAX_SCANS).build();
    }

    /**
     * The mode for a split of {@code shape} in query {@code queryId}, whose coordinator chose
     * {@code planned}, read from a storage node that shares this worker's CPUs or not; the split starts now.
     */
    public Choice start(String queryId, ScanShape shape, ScanMode planned, boolean nodeSharesCpus)
    {
        requireNonNull(queryId, "queryId is null");
        requireNonNull(planned, "planned is null");
        if (planned != ScanMode.RAW && planned != ScanMode.FILTER) {
            throw new IllegalArgumentException("not a mode of a split: " + planned);
        }
        ScanEvidence query = evidence(queries, new QueryScan(queryId, shape));
        ScanEvidence history = evidence(shapes, shape);
        ScanMode mode;
        if (query.measuredBoth()) {
            mode = query.decide();
        }
        else if (history.measuredBoth()) {
            mode = history.decide();
        }
        else if (planned == ScanMode.RAW && nodeSharesCpus) {
            mode = ScanMode.RAW;
        }
        else {
            mode = query.explore(planned);
        }
        query.started(mode);
        return new Choice(query, history, mode, mode != planned, nodeSharesCpus, ticker.read());
    }

    private static <K> ScanEvidence evidence(Cache<K, ScanEvidence> cache, K key)
    {
        try {
            return cache.get(key, ScanEvidence::new);
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A split under way: finished with its rows once its page source ends (an abandoned split is not counted). */
    public final class Choice
    {
        private final ScanEvidence query;
        private final ScanEvidence history;
        private final ScanMode mode;
        private final boolean changed;
        private final boolean nodeSharesCpus;
        private final long startNanos;
        private boolean recorded;

        private Choice(ScanEvidence query, ScanEvidence history, ScanMode mode, boolean changed, boolean nodeSharesCpus, long startNanos)
        {
            this.nodeSharesCpus = nodeSharesCpus;
            this.query = query;
            this.history = history;
            this.mode = mode;
            this.changed = changed;
            this.startNanos = startNanos;
        }

        public ScanMode mode()
        {
            return mode;
        }

        /** Whether the storage node's CPUs are this worker's too. */
        public boolean nodeSharesCpus()
        {
            return nodeSharesCpus;
        }

        /** Whether this worker overruled the coordinator's choice. */
        public boolean changed()
        {
            return changed;
        }

        /**
         * The split ended after {@code rows} rows; {@code sharedCpuNanos} is the CPU time its storage
         * scan took on CPUs this worker shares (0 for a raw read or a node with CPUs of its own).
         */
        public synchronized void finished(long rows, long sharedCpuNanos)
        {
            if (recorded) {
                return;
            }
            recorded = true;
            long cost = ticker.read() - startNanos + Math.max(0, sharedCpuNanos);
            query.record(mode, rows, cost);
            history.record(mode, rows, cost);
        }
    }

    /** What splits measured, per mode. */
    static final class ScanEvidence
    {
        // past this many splits of a mode its measures are halved, so newer ones weigh more
        private static final long DECAY_AFTER = 64;

        private final long[] started = new long[2];
        private final long[] measured = new long[2];
        private final long[] rows = new long[2];
        private final long[] nanos = new long[2];
        private long decided;

        synchronized boolean measuredBoth()
        {
            return measured[0] >= EXPLORED_SPLITS && measured[1] >= EXPLORED_SPLITS;
        }

        /** The cheaper mode, or every so often the other. */
        synchronized ScanMode decide()
        {
            ScanMode cheaper = nanosPerRow(ScanMode.FILTER) < nanosPerRow(ScanMode.RAW) ? ScanMode.FILTER : ScanMode.RAW;
            decided++;
            return decided % REEXPLORE_EVERY == 0 ? other(cheaper) : cheaper;
        }

        /** Alternates, the coordinator's choice first, until each mode has its explored splits under way; then the coordinator's choice. */
        synchronized ScanMode explore(ScanMode planned)
        {
            ScanMode other = other(planned);
            if (started[index(planned)] >= EXPLORED_SPLITS) {
                return started[index(other)] >= EXPLORED_SPLITS ? planned : other;
            }
            if (started[index(other)] >= EXPLORED_SPLITS) {
                return planned;
            }
            return started[index(planned)] <= started[index(other)] ? planned : other;
        }

        synchronized void started(ScanMode mode)
        {
            started[index(mode)]++;
        }

        synchronized void record(ScanMode mode, long splitRows, long elapsedNanos)
        {
            int index = index(mode);
            if (measured[index] >= DECAY_AFTER) {
                measured[index] /= 2;
                rows[index] /= 2;
                nanos[index] /= 2;
            }
            measured[index]++;
            // a split of no rows still took its round trips: count it as one row
            rows[index] += Math.max(1, splitRows);
            nanos[index] += Math.max(0, elapsedNanos);
        }

        synchronized double nanosPerRow(ScanMode mode)
        {
            int index = index(mode);
            return rows[index] == 0 ? Double.NaN : (double) nanos[index] / rows[index];
        }

        private static ScanMode other(ScanMode mode)
        {
            return mode == ScanMode.FILTER ? ScanMode.RAW : ScanMode.FILTER;
        }

        private static int index(ScanMode mode)
        {
            return mode == ScanMode.FILTER ? 0 : 1;
        }
    }
}
