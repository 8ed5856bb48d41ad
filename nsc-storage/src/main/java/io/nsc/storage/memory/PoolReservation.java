package io.nsc.storage.memory;

import io.airlift.units.DataSize;
import io.nsc.parquet.memory.MemoryBacking;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * What one request holds of the node's {@link NodeMemoryPool}: the first reservation it was
 * admitted with, then more in steps of the same size as its own accounting (the scan's
 * {@link io.nsc.parquet.memory.MemoryBudget}) grows, and back down as it shrinks, so that the
 * pool is asked once per step, not once per page. Everything goes back to the pool on
 * {@link #close}, whichever way the request ends. Not thread-safe: a request's steps run one
 * at a time.
 */
public final class PoolReservation
        implements MemoryBacking, AutoCloseable
{
    private final NodeMemoryPool pool;
    private final long stepBytes;
    // what the pool gave, and what of it the request uses
    private long heldBytes;
    private long usedBytes;
    private boolean admitted;
    private boolean closed;

    /**
     * @param stepBytes the first reservation, and the step later ones grow and shrink by
     */
    public PoolReservation(NodeMemoryPool pool, long stepBytes)
    {
        this.pool = requireNonNull(pool, "pool is null");
        checkArgument(stepBytes > 0, "stepBytes must be positive");
        this.stepBytes = stepBytes;
    }

    /** The first reservation, to ask the pool for at admission. */
    public long initialBytes()
    {
        return stepBytes;
    }

    /** The pool admitted the request with {@link #initialBytes}: they are this reservation's now. */
    public void admitted()
    {
        checkState(!admitted, "already admitted");
        admitted = true;
        heldBytes = stepBytes;
        if (closed) {
            // the request ended while it waited: nothing will use them
            release();
        }
    }

    @Override
    public void grow(long bytes, String what)
    {
        checkArgument(bytes >= 0, "bytes is negative");
        checkState(admitted || closed, "not admitted");
        long used = usedBytes + bytes;
        if (used > heldBytes && !closed) {
            long more = roundUp(used - heldBytes);
            if (!pool.tryReserve(more)) {
                throw new PoolExhaustedException("%s of a running scan needs %s more".formatted(what, DataSize.ofBytes(bytes).succinct()), pool);
            }
            heldBytes += more;
        }
        usedBytes = used;
    }

    @Override
    public void shrink(long bytes)
    {
        checkArgument(bytes >= 0 && bytes <= usedBytes, "shrinking by %s bytes of %s used", bytes, usedBytes);
        usedBytes -= bytes;
        if (closed) {
            return;
        }
        // keep a step of slack, so that a scan whose buffers come and go does not ask the pool each time
        long keep = Math.max(stepBytes, roundUp(usedBytes) + stepBytes);
        if (heldBytes - keep >= stepBytes) {
            pool.free(heldBytes - keep);
            heldBytes = keep;
        }
    }

    public long heldBytes()
    {
        return heldBytes;
    }

    /** Gives everything back to the pool; a request that ends while it waits gives its admission back when it comes. */
    @Override
    public void close()
    {
        if (closed) {
            return;
        }
        closed = true;
        release();
    }

    private void release()
    {
        if (heldBytes > 0) {
            pool.free(heldBytes);
            heldBytes = 0;
        }
    }

    private long roundUp(long bytes)
    {
        return (bytes + stepBytes - 1) / stepBytes * stepBytes;
    }
}
