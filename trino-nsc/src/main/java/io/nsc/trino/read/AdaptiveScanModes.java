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
 * estimated bytes before anything ran; here the splits of one query's scan of one table measure
 * what each mode really costs on this worker, and later splits go the way that was cheaper.
 * <p>
 * The measure is a split's elapsed time per row from the page source's creation to its end.
 * It holds everything a mode changes: the link's rate (raw reads move more bytes), the storage
 * node's CPU and queue (a scan waits for it; where the node shares this machine's CPUs it also
 * takes them from Trino), and this worker's decoding and filtering (a raw read does it here).
 * Splits of both modes run side by side in the same query, so they see the same load.
 * <p>
 * The first splits of a scan alternate between the coordinator's choice and the other mode, so
 * that each has {@link #EXPLORED_SPLITS} measured splits; until both do, the coordinator's choice
 * holds. Then every split takes the cheaper mode, except every {@link #REEXPLORE_EVERY}th, which
 * takes the other, so a change (a node busier, a cache warmer) is seen within the query.
 */
public class AdaptiveScanModes
{
    static final int EXPLORED_SPLITS = 2;
    static final int REEXPLORE_EVERY = 16;
    private static final long MAX_SCANS = 10_000;

    /**
     * One query's scan of one table as the engine asks for it: the splits that compare with each other.
     * The table handle carries the predicate, projection, limit and aggregation.
     */
    public record ScanKey(String queryId, Object table, Object columns)
    {
        public ScanKey
        {
            requireNonNull(queryId, "queryId is null");
            requireNonNull(table, "table is null");
            requireNonNull(columns, "columns is null");
        }
    }

    private final Cache<ScanKey, ScanEvidence> scans;
    private final Ticker ticker;

    @Inject
    public AdaptiveScanModes()
    {
        this(Ticker.systemTicker());
    }

    AdaptiveScanModes(Ticker ticker)
    {
        this.ticker = requireNonNull(ticker, "ticker is null");
        // a query's scans are forgotten after a while (a longer query measures its modes again)
        this.scans = EvictableCacheBuilder.newBuilder()
                .expireAfterWrite(30, TimeUnit.MINUTES)
                .maximumSize(MAX_SCANS)
                .build();
    }

    /** The mode for the scan's next split, whose coordinator chose {@code planned}; the split starts now. */
    public Choice start(ScanKey scan, ScanMode planned)
    {
        requireNonNull(planned, "planned is null");
        if (planned != ScanMode.RAW && planned != ScanMode.FILTER) {
            throw new IllegalArgumentException("not a mode of a split: " + planned);
        }
        ScanEvidence evidence = evidence(scan);
        ScanMode mode = evidence.choose(planned);
        return new Choice(evidence, mode, mode != planned, ticker.read());
    }

    private ScanEvidence evidence(ScanKey scan)
    {
        try {
            return scans.get(scan, ScanEvidence::new);
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A split under way: finished with its rows once its page source ends (an abandoned split is not counted). */
    public final class Choice
    {
        private final ScanEvidence evidence;
        private final ScanMode mode;
        private final boolean changed;
        private final long startNanos;
        private boolean recorded;

        private Choice(ScanEvidence evidence, ScanMode mode, boolean changed, long startNanos)
        {
            this.evidence = evidence;
            this.mode = mode;
            this.changed = changed;
            this.startNanos = startNanos;
        }

        public ScanMode mode()
        {
            return mode;
        }

        /** Whether this worker's measurements overruled the coordinator's choice. */
        public boolean changed()
        {
            return changed;
        }

        public synchronized void finished(long rows)
        {
            if (recorded) {
                return;
            }
            recorded = true;
            evidence.record(mode, rows, ticker.read() - startNanos);
        }
    }

    /** What one scan's splits measured, per mode. */
    static final class ScanEvidence
    {
        private final long[] started = new long[2];
        private final long[] measured = new long[2];
        private final long[] rows = new long[2];
        private final long[] nanos = new long[2];
        private long decided;

        synchronized ScanMode choose(ScanMode planned)
        {
            ScanMode other = other(planned);
            ScanMode mode;
            if (measured[index(planned)] >= EXPLORED_SPLITS && measured[index(other)] >= EXPLORED_SPLITS) {
                ScanMode cheaper = cheaper();
                decided++;
                mode = decided % REEXPLORE_EVERY == 0 ? other(cheaper) : cheaper;
            }
            else if (started[index(planned)] >= EXPLORED_SPLITS && started[index(other)] >= EXPLORED_SPLITS) {
                // both modes have splits under way: wait for their measures
                mode = planned;
            }
            else if (started[index(planned)] >= EXPLORED_SPLITS) {
                mode = other;
            }
            else if (started[index(other)] >= EXPLORED_SPLITS) {
                mode = planned;
            }
            else {
                // alternate, the coordinator's choice first
                mode = started[index(planned)] <= started[index(other)] ? planned : other;
            }
            started[index(mode)]++;
            return mode;
        }

        synchronized void record(ScanMode mode, long splitRows, long elapsedNanos)
        {
            measured[index(mode)]++;
            // a split of no rows still took its round trips: count it as one row
            rows[index(mode)] += Math.max(1, splitRows);
            nanos[index(mode)] += Math.max(0, elapsedNanos);
        }

        synchronized double nanosPerRow(ScanMode mode)
        {
            int index = index(mode);
            return rows[index] == 0 ? Double.NaN : (double) nanos[index] / rows[index];
        }

        private ScanMode cheaper()
        {
            return nanosPerRow(ScanMode.FILTER) < nanosPerRow(ScanMode.RAW) ? ScanMode.FILTER : ScanMode.RAW;
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
