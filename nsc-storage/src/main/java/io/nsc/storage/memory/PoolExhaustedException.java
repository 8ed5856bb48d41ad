package io.nsc.storage.memory;

import io.airlift.units.DataSize;
import io.nsc.parquet.memory.MemoryLimitExceededException;

import static java.util.Objects.requireNonNull;

/**
 * The node's memory pool cannot give a request what it asks for: the node is busy, not the request
 * too big for it (that is its own budget's {@link MemoryLimitExceededException}). Another node,
 * or this one later, may well serve it.
 */
public final class PoolExhaustedException
        extends MemoryLimitExceededException
{
    private final long retryAfterMillis;

    PoolExhaustedException(String reason, NodeMemoryPool pool)
    {
        super("The storage node's memory pool of %s is exhausted (%s); retry in %sms or on another node".formatted(
                DataSize.ofBytes(requireNonNull(pool, "pool is null").getMaxBytes()).succinct(),
                requireNonNull(reason, "reason is null"),
                pool.retryAfterMillis()));
        this.retryAfterMillis = pool.retryAfterMillis();
    }

    public long retryAfterMillis()
    {
        return retryAfterMillis;
    }
}
