package io.nsc.parquet.memory;

/**
 * What a {@link MemoryBudget}'s reservations are taken from beyond the budget's own limit: on a
 * storage node, the node-wide memory pool every scan shares. The budget tells it of every change
 * of what it holds; how much it really takes from the pool at a time is the backing's business.
 */
public interface MemoryBacking
{
    /** Nothing behind the budget: only its own limit counts. */
    MemoryBacking NONE = new MemoryBacking()
    {
        @Override
        public void grow(long bytes, String what) {}

        @Override
        public void shrink(long bytes) {}
    };

    /**
     * Takes {@code bytes} more for {@code what}, or fails leaving what it holds unchanged.
     *
     * @throws MemoryLimitExceededException when the memory behind the budget cannot give them
     */
    void grow(long bytes, String what);

    /** Gives back {@code bytes} of what {@link #grow} took. */
    void shrink(long bytes);
}
