package io.nsc.trino.read;

import com.google.inject.Inject;
import jakarta.annotation.PreDestroy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that wait on storage-side scans in parallel for a split that fans out to many parts
 * (a pushed-down aggregation). They block on the network, not on the CPU, so a fixed pool of
 * modest size serves a worker.
 */
public class ScanFanOut
{
    private static final int THREADS = 16;

    private final ExecutorService executor;

    @Inject
    public ScanFanOut()
    {
        AtomicInteger threadNumber = new AtomicInteger();
        executor = Executors.newFixedThreadPool(THREADS, runnable -> {
            Thread thread = new Thread(runnable, "nsc-scan-fan-out-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    public ExecutorService executor()
    {
        return executor;
    }

    @PreDestroy
    public void close()
    {
        executor.shutdownNow();
    }
}
