package io.nsc.parquet.memory;

import io.airlift.units.DataSize;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The memory one scan may hold: what it decodes from the request, its group maps, top-N heaps
 * and batches reserve here before they allocate, and give back when they let go. Past the limit
 * the reservation fails with {@link MemoryLimitExceededException}, so that an expensive request
 * fails on its own instead of taking the JVM (and every other scan) with it.
 * <p>
 * The figures are estimates of retained sizes, not exact accounting: they need only be in the
 * right proportion to what is really held. Not thread-safe: a scan runs on one thread at a time.
 */
public final class MemoryBudget
{
    private final String owner;
    private final long limitBytes;
    private final MemoryBacking backing;
    private long reservedBytes;
    private long peakBytes;

    /**
     * @param owner what the budget belongs to, for the error message (e.g. "Scan of file x")
     */
    public MemoryBudget(String owner, long limitBytes)
    {
        this(owner, limitBytes, MemoryBacking.NONE);
    }

    /**
     * @param backing what every reservation is also taken from (a node's shared pool), after the budget's own limit allows it
     */
    public MemoryBudget(String owner, long limitBytes, MemoryBacking backing)
    {
        this.owner = requireNonNull(owner, "owner is null");
        checkArgument(limitBytes > 0, "limitBytes must be positive");
        this.limitBytes = limitBytes;
        this.backing = requireNonNull(backing, "backing is null");
    }

    /** A budget nothing exhausts, for callers whose inputs are already bounded (tests, the worker's own merges). */
    public static MemoryBudget unlimited()
    {
        return new MemoryBudget("unlimited", Long.MAX_VALUE);
    }

    /**
     * Reserves {@code bytes} for {@code what}, or fails leaving the reservation unchanged.
     *
     * @throws MemoryLimitExceededException when the reservation would pass the limit, or the
     *         backing cannot give the bytes
     */
    public void reserve(long bytes, String what)
    {
        checkArgument(bytes >= 0, "bytes is negative");
        if (bytes > limitBytes - reservedBytes) {
            throw new MemoryLimitExceededException("%s exceeds its memory limit of %s: %s needs %s more with %s already held"
                    .formatted(owner, succinct(limitBytes), what, succinct(bytes), succinct(reservedBytes)));
        }
        backing.grow(bytes, what);
        reservedBytes += bytes;
        peakBytes = Math.max(peakBytes, reservedBytes);
    }

    public void release(long bytes)
    {
        checkArgument(bytes >= 0 && bytes <= reservedBytes, "releasing %s bytes of %s reserved", bytes, reservedBytes);
        reservedBytes -= bytes;
        backing.shrink(bytes);
    }

    public long reservedBytes()
    {
        return reservedBytes;
    }

    public long peakBytes()
    {
        return peakBytes;
    }

    public long limitBytes()
    {
        return limitBytes;
    }

    private static String succinct(long bytes)
    {
        return DataSize.ofBytes(bytes).succinct().toString();
    }
}
