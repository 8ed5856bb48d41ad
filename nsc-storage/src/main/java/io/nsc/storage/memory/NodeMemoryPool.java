package io.nsc.storage.memory;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.SettableFuture;
import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Queue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;

/**
 * The memory of a storage node that all its scans share: what each scan holds (its reader's
 * buffers, the batch in the making, aggregation groups, top-N rows, the footer it parsed) and the
 * footer cache are taken from here before they are allocated, so that no number of requests takes
 * the node past its heap.
 * <p>
 * A request is admitted with a first reservation ({@link #admit}): at once when the pool has the
 * bytes and no earlier request waits, otherwise in turn (first come, first served) from a bounded
 * queue for a bounded time, after which it is refused ({@link PoolExhaustedException}) before it
 * allocated anything. A running scan grows its reservation without waiting ({@link #tryReserve}):
 * it holds memory others may be waiting for, so it is refused at once rather than held up.
 * Thread-safe.
 */
public final class NodeMemoryPool
        implements AutoCloseable
{
    private final long maxBytes;
    private final int maxQueued;
    private final Duration maxWait;
    private final ScheduledExecutorService timer = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-memory-pool-timer"));
    // guarded by this
    private final Queue<Waiter> waiting = new ArrayDeque<>();
    private long reservedBytes;
    private long peakBytes;

    private final CounterStat admitted = new CounterStat();
    private final CounterStat queued = new CounterStat();
    private final CounterStat refusedQueueFull = new CounterStat();
    private final CounterStat refusedTimedOut = new CounterStat();
    private final CounterStat refusedGrowth = new CounterStat();

    private record Waiter(long bytes, SettableFuture<Void> admission) {}

    /**
     * @param maxQueued requests that may wait for their first reservation at once; more are refused at once
     * @param maxWait how long a request waits for its first reservation before it is refused
     */
    public NodeMemoryPool(DataSize size, int maxQueued, Duration maxWait)
    {
        this.maxBytes = requireNonNull(size, "size is null").toBytes();
        checkArgument(maxBytes > 0, "size must be positive");
        checkArgument(maxQueued >= 0, "maxQueued is negative");
        this.maxQueued = maxQueued;
        this.maxWait = requireNonNull(maxWait, "maxWait is null");
    }

    /**
     * Takes {@code bytes} for a new request: the future completes when they are reserved, or
     * fails with {@link PoolExhaustedException} when the queue is full or the request waited
     * {@code maxWait}. Cancelling the future withdraws a request still waiting; once it completed,
     * the caller owns the bytes and frees them.
     */
    public ListenableFuture<Void> admit(long bytes)
    {
        checkArgument(bytes >= 0, "bytes is negative");
        SettableFuture<Void> admission = SettableFuture.create();
        synchronized (this) {
            if (waiting.isEmpty() && fits(bytes)) {
                take(bytes);
                admitted.update(1);
                admission.set(null);
                return admission;
            }
            if (bytes > maxBytes || waiting.size() >= maxQueued) {
                refusedQueueFull.update(1);
                admission.setException(new PoolExhaustedException(bytes > maxBytes
                        ? "needs %s, more than the node's memory pool of %s".formatted(succinct(bytes), succinct(maxBytes))
                        : "%s requests already wait for memory".formatted(waiting.size()), this));
                return admission;
            }
            Waiter waiter = new Waiter(bytes, admission);
            waiting.add(waiter);
            queued.update(1);
            timer.schedule(() -> timeOut(waiter), maxWait.toMillis(), TimeUnit.MILLISECONDS);
        }
        // withdrawn by its caller (the client cancelled): it no longer waits
        admission.addListener(() -> {
            if (admission.isCancelled()) {
                withdraw(admission);
            }
        }, Runnable::run);
        return admission;
    }

    /** Takes {@code bytes} more for a running request if the pool has them; never waits. */
    public synchronized boolean tryReserve(long bytes)
    {
        checkArgument(bytes >= 0, "bytes is negative");
        if (!fits(bytes)) {
            refusedGrowth.update(1);
            return false;
        }
        take(bytes);
        return true;
    }

    /** Gives back {@code bytes}, and admits the waiting requests they make room for, in turn. */
    public synchronized void free(long bytes)
    {
        checkArgument(bytes >= 0 && bytes <= reservedBytes, "freeing %s bytes of %s reserved", bytes, reservedBytes);
        reservedBytes -= bytes;
        admitWaiting();
    }

    /** How long a refused request is told to wait before it asks this node again: as long as one may wait here. */
    public long retryAfterMillis()
    {
        return maxWait.toMillis();
    }

    private boolean fits(long bytes)
    {
        return bytes <= maxBytes - reservedBytes;
    }

    private void take(long bytes)
    {
        reservedBytes += bytes;
        peakBytes = Math.max(peakBytes, reservedBytes);
    }

    private synchronized void admitWaiting()
    {
        while (!waiting.isEmpty() && fits(waiting.peek().bytes())) {
            Waiter waiter = waiting.remove();
            // listeners only queue the request's next step: safe under the lock
            if (waiter.admission().set(null)) {
                take(waiter.bytes());
                admitted.update(1);
            }
        }
    }

    private synchronized void timeOut(Waiter waiter)
    {
        if (waiting.remove(waiter)) {
            refusedTimedOut.update(1);
            waiter.admission().setException(new PoolExhaustedException("waited %s for memory".formatted(maxWait), this));
            // the head may have been the one the others waited behind
            admitWaiting();
        }
    }

    private synchronized void withdraw(SettableFuture<Void> admission)
    {
        Iterator<Waiter> iterator = waiting.iterator();
        while (iterator.hasNext()) {
            if (iterator.next().admission() == admission) {
                iterator.remove();
                admitWaiting();
                return;
            }
        }
    }

    @Override
    public void close()
    {
        timer.shutdownNow();
    }

    @Managed
    public long getMaxBytes()
    {
        return maxBytes;
    }

    @Managed
    public synchronized long getReservedBytes()
    {
        return reservedBytes;
    }

    @Managed
    public synchronized long getPeakReservedBytes()
    {
        return peakBytes;
    }

    /** Requests waiting for their first reservation now. */
    @Managed
    public synchronized int getQueuedRequests()
    {
        return waiting.size();
    }

    @Managed
    public int getMaxQueuedRequests()
    {
        return maxQueued;
    }

    @Managed
    @Nested
    public CounterStat getAdmitted()
    {
        return admitted;
    }

    /** Requests that had to wait for their first reservation (admitted or refused later). */
    @Managed
    @Nested
    public CounterStat getQueued()
    {
        return queued;
    }

    /** Requests refused at once: the queue was full, or they need more than the whole pool. */
    @Managed
    @Nested
    public CounterStat getRefusedQueueFull()
    {
        return refusedQueueFull;
    }

    /** Requests refused after waiting the longest they may. */
    @Managed
    @Nested
    public CounterStat getRefusedTimedOut()
    {
        return refusedTimedOut;
    }

    /** Running requests whose growth the pool could not give. */
    @Managed
    @Nested
    public CounterStat getRefusedGrowth()
    {
        return refusedGrowth;
    }

    /** All refusals: at admission (queue full, waited too long) and of growth. */
    public long refusedTotal()
    {
        return refusedQueueFull.getTotalCount() + refusedTimedOut.getTotalCount() + refusedGrowth.getTotalCount();
    }

    private static String succinct(long bytes)
    {
        return DataSize.ofBytes(bytes).succinct().toString();
    }
}
