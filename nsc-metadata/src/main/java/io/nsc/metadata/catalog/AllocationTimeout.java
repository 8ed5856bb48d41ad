package io.nsc.metadata.catalog;

import io.airlift.units.Duration;

import static io.nsc.metadata.catalog.Durations.succinct;
import static java.util.Objects.requireNonNull;

/**
 * How long a file id stays committable after AllocateFiles issued it, and how long its
 * allocation is kept after that.
 *
 * <p>An allocation is open for the timeout after it was issued, unless a storage node was told
 * its file is an orphan. Past the timeout it is kept for a grace as long again, during which a
 * late commit learns that its allocation expired (rather than that its id is unknown), and then
 * purged ({@link AllocationCatalog#purgeAbandoned}). A purged id is as dead as an expired one:
 * no commit can claim it, and it is an orphan on every node.
 */
public record AllocationTimeout(Duration timeout)
{
    public AllocationTimeout
    {
        requireNonNull(timeout, "timeout is null");
    }

    /** Open: issued no longer than the timeout ago, and never reported as an orphan. */
    boolean isOpen(AllocationState allocation, long now)
    {
        return !allocation.orphaned() && now - allocation.createdMillis() <= timeout.toMillis();
    }

    /** Allocations issued before this are purged: expired for longer than the grace. */
    long purgeBefore(long now)
    {
        return now - 2 * timeout.toMillis();
    }

    @Override
    public String toString()
    {
        return succinct(timeout);
    }
}
