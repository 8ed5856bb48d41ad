package io.nsc.metadata.catalog;

import io.airlift.log.Logger;
import io.airlift.units.Duration;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import org.weakref.jmx.Managed;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Deletes the allocations of writes that never committed (a query that failed or was killed
 * after AllocateFiles), every {@code metadata.allocation-purge-interval}: without it they would
 * pile up in the catalog forever. Each service over a shared catalog runs its own purge; they
 * delete the same rows at worst, which costs one of them a retried transaction.
 */
public final class AllocationPurger
{
    private static final Logger log = Logger.get(AllocationPurger.class);
    // small enough that a batch is a short transaction next to the commits it competes with
    static final int BATCH_SIZE = 1000;

    private final AllocationCatalog allocations;
    private final long intervalMillis;
    private final ScheduledExecutorService executor = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-allocation-purge-%s"));
    private final AtomicLong purged = new AtomicLong();

    public AllocationPurger(AllocationCatalog allocations, Duration interval)
    {
        this.allocations = requireNonNull(allocations, "allocations is null");
        this.intervalMillis = interval.toMillis();
    }

    @PostConstruct
    public void start()
    {
        executor.scheduleWithFixedDelay(() -> {
            try {
                purge();
            }
            catch (RuntimeException e) {
                // the next run tries again: a failed purge loses nothing
                log.error(e, "Purging abandoned allocations failed");
            }
        }, intervalMillis, intervalMillis, MILLISECONDS);
    }

    /**
     * @return the number of allocations purged
     */
    public long purge()
    {
        long count = allocations.purgeAbandoned(BATCH_SIZE);
        if (count > 0) {
            log.info("Purged %s abandoned allocations", count);
        }
        purged.addAndGet(count);
        return count;
    }

    @Managed
    public long getPurgedAllocations()
    {
        return purged.get();
    }

    @PreDestroy
    public void stop()
    {
        executor.shutdownNow();
    }
}
