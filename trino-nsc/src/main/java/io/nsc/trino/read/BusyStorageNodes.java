package io.nsc.trino.read;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.base.Ticker;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import org.weakref.jmx.Managed;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * The storage nodes that refused one of this worker's scans as busy, and until when the worker's
 * other scans leave them alone: a node refuses only after the scan waited its admission time in
 * the node's queue, so every split that asks a busy node again waits that long for the same
 * answer. The node's retry hint says when it may have room; a split that can do without the node
 * (another replica, or a raw read) goes there at once until then.
 */
public class BusyStorageNodes
{
    private static final BusyStorageNodes NEVER = new BusyStorageNodes(Ticker.systemTicker(), 0);

    private final Ticker ticker;
    // a hint is advice from the node: past this, ask again whatever it said
    private final long maxBackOffMillis;
    // address -> ticker time (ns) before which the node is left alone
    private final Map<String, Long> busyUntil = new ConcurrentHashMap<>();

    @Inject
    public BusyStorageNodes(NscConfig config)
    {
        this(Ticker.systemTicker(), config.getBusyNodeBackOff().toMillis());
    }

    @VisibleForTesting
    BusyStorageNodes(Ticker ticker, long maxBackOffMillis)
    {
        this.ticker = requireNonNull(ticker, "ticker is null");
        checkArgument(maxBackOffMillis >= 0, "maxBackOffMillis is negative");
        this.maxBackOffMillis = maxBackOffMillis;
    }

    /** Remembers nothing: every scan asks every replica. */
    public static BusyStorageNodes never()
    {
        return NEVER;
    }

    /** The node refused a scan as busy and may have room in {@code retryAfterMillis}. */
    public void refusedBusy(String address, long retryAfterMillis)
    {
        requireNonNull(address, "address is null");
        checkArgument(retryAfterMillis >= 0, "retryAfterMillis is negative");
        long backOffMillis = min(retryAfterMillis, maxBackOffMillis);
        if (backOffMillis == 0) {
            return;
        }
        long until = ticker.read() + TimeUnit.MILLISECONDS.toNanos(backOffMillis);
        busyUntil.merge(address, until, Math::max);
    }

    /** Whether scans should leave the node alone now. */
    public boolean isBackingOff(String address)
    {
        Long until = busyUntil.get(address);
        if (until == null) {
            return false;
        }
        if (ticker.read() - until < 0) {
            return true;
        }
        // its time has passed: forget it, unless a newer refusal moved it on meanwhile
        busyUntil.remove(address, until);
        return false;
    }

    @Managed(description = "Storage nodes this worker's scans currently leave alone after a busy refusal")
    public long getNodesBackedOff()
    {
        return busyUntil.keySet().stream().filter(this::isBackingOff).count();
    }
}
