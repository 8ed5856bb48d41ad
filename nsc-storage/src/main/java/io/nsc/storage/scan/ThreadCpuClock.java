package io.nsc.storage.scan;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

import static java.util.Objects.requireNonNull;

/**
 * The CPU one call used, summed over its steps, which run on whichever of the node's scan
 * threads is free: thread CPU time counts one thread, so a step marks where its thread's count
 * stood when it began, and charges what the thread used since. A charge on another thread than
 * the mark's (a cancellation) adds nothing: that thread did none of the call's work since it.
 * <p>
 * Not thread-safe: a call's steps run one at a time.
 */
final class ThreadCpuClock
{
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    // the current thread's CPU time in nanoseconds
    private final LongSupplier threadCpuNanos;
    private long chargedNanos;
    private long mark;
    private Thread markThread;

    ThreadCpuClock()
    {
        this(THREADS::getCurrentThreadCpuTime);
    }

    ThreadCpuClock(LongSupplier threadCpuNanos)
    {
        this.threadCpuNanos = requireNonNull(threadCpuNanos, "threadCpuNanos is null");
    }

    /** A step begins on this thread: what it uses from now on is the call's. */
    void mark()
    {
        mark = threadCpuNanos.getAsLong();
        markThread = Thread.currentThread();
    }

    /**
     * Adds this thread's CPU since the mark or the last charge. The summary and the counters are
     * written from inside a step, so they charge first: otherwise the step that did the work
     * (all of it, for an aggregation) would be missing.
     */
    void charge()
    {
        // a step on another thread (a cancellation) has no CPU of this call's to charge
        if (Thread.currentThread() == markThread) {
            long now = threadCpuNanos.getAsLong();
            chargedNanos += now - mark;
            mark = now;
        }
    }

    /** The CPU charged so far. */
    long nanos()
    {
        return chargedNanos;
    }
}
