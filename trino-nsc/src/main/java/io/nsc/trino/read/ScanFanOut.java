package io.nsc.trino.read;

import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import jakarta.annotation.PreDestroy;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that wait on storage-side scans in parallel for a split that fans out to many parts
 * (a pushed-down aggregation). They wait on the network, not on the CPU, so a fixed pool of
 * modest size ({@code nsc.scan-fan-out-threads}) serves a worker; parts beyond it wait their turn.
 */
public class ScanFanOut
{
    private final ExecutorService executor;

    @Inject
    public ScanFanOut(NscConfig config)
    {
        AtomicInteger threadNumber = new AtomicInteger();
        executor = Executors.newFixedThreadPool(config.getScanFanOutThreads(), runnable -> {
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
