package io.nsc.storage.scan;

import io.nsc.parquet.memory.MemoryBudget;

import static java.util.Objects.requireNonNull;

/**
 * What one holder whose size goes up and down (the reader's buffers, the batch in the making)
 * has reserved in a scan's memory budget, as last charged: each charge reserves or releases the
 * difference, so the budget follows the holder without counting it twice.
 * <p>
 * Not thread-safe: a call's steps run one at a time.
 */
final class BudgetCharge
{
    private final MemoryBudget memory;
    // what the holder is, for the budget's message when it is exceeded
    private final String what;
    private long reserved;

    BudgetCharge(MemoryBudget memory, String what)
    {
        this.memory = requireNonNull(memory, "memory is null");
        this.what = requireNonNull(what, "what is null");
    }

    /**
     * Holds a reservation of {@code bytes}, what the holder takes now.
     *
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException past the budget, with the charge unchanged
     */
    void chargeTo(long bytes)
    {
        if (bytes > reserved) {
            memory.reserve(bytes - reserved, what);
        }
        else {
            memory.release(reserved - bytes);
        }
        reserved = bytes;
    }

    long reservedBytes()
    {
        return reserved;
    }
}
