package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.trino.split.NscSplit;
import io.nsc.trino.split.StatsAnswer;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * The merging split of a pushed-down aggregation: every part is scanned by a storage node that
 * returns partial states per group (in parallel, on the fan-out threads), and the driver merges
 * their pages as they arrive into one page with each group once, its columns in the order the
 * engine asked for. The driver never waits on the network: {@link #isBlocked} says when pages
 * arrived or the parts ended.
 * <p>
 * What it holds is reported to Trino ({@link #getMemoryUsage}), which enforces the query's memory
 * limits on it as on its own aggregation: the merged groups (one per group of the result, which
 * the coordinator accepted pushdown for because distinct counts bound them) and at most
 * {@value #QUEUED_PAGES} pages waiting to be merged; a part's thread waits while the queue is
 * full. A storage node whose groups fill their share of its scan budget sends partial states
 * early and goes on, so one part may send a group more than once: merged like two parts' states.
 * A part no replica has room to scan (every node's memory pool refused it before its first row)
 * is read raw and aggregated on the worker into the same partial states
 * ({@link PartialAggregationPageSource}), merged like any other part's.
 */
public class AggregationPageSource
        implements ConnectorPageSource
{
    // pages of partial states waiting for the driver: a few per fan-out thread at most
    static final int QUEUED_PAGES = 16;

    /** A part's scan by a storage node (a {@link StorageScanPageSource}): its pages are partial states. */
    public interface PartScan
    {
        ConnectorPageSource open(NscSplit part);
    }

    private final List<NscSplit> parts;
    private final Optional<StatsAnswer> statsAnswer;
    private final PartScan partScan;
    private final List<AggregateSpec> aggregates;
    private final int[] outputChannels;
    private final ExecutorService executor;
    private final GroupedAggregation merged;
    private final BlockingQueue<Page> arrived = new ArrayBlockingQueue<>(QUEUED_PAGES);
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicInteger partsRunning = new AtomicInteger();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    private final Queue<Metrics> partMetrics = new ConcurrentLinkedQueue<>();
    // completed when a page arrives or a part ends; replaced by the driver when it waits again
    private CompletableFuture<Void> progress = CompletableFuture.completedFuture(null);
    private List<Future<?>> scans;
    private Metrics metrics = Metrics.EMPTY;
    private long readTimeNanos;
    private long pagesMerged;
    private boolean finished;

    /**
     * @param outputChannels for each column the engine asked for, its channel in the final page (group keys, then aggregates)
     */
    public AggregationPageSource(List<NscSplit> parts, Optional<StatsAnswer> statsAnswer, PartScan partScan, List<Type> groupTypes, List<AggregateSpec> aggregates, int[] outputChannels, ExecutorService executor)
    {
        this.parts = ImmutableList.copyOf(parts);
        this.statsAnswer = requireNonNull(statsAnswer, "statsAnswer is null");
        this.partScan = requireNonNull(partScan, "partScan is null");
        this.aggregates = ImmutableList.copyOf(aggregates);
        this.merged = new GroupedAggregation(groupTypes, aggregates);
        this.outputChannels = outputChannels.clone();
        this.executor = requireNonNull(executor, "executor is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        long start = System.nanoTime();
        try {
            if (scans == null) {
                start();
            }
            mergeArrived();
            failOnFailedPart();
            if (partsRunning.get() > 0) {
                return null;
            }
            // pages put before the last part ended
            mergeArrived();
            failOnFailedPart();
            partMetrics.forEach(part -> metrics = metrics.mergeWith(part));
            finished = true;
            return SourcePage.create(finalPage());
        }
        finally {
            readTimeNanos += System.nanoTime() - start;
        }
    }

    private void start()
    {
        statsAnswer.ifPresent(answer -> merged.addPartial(partialPage(answer)));
        partsRunning.set(parts.size());
        ImmutableList.Builder<Future<?>> started = ImmutableList.builder();
        for (NscSplit part : parts) {
            started.add(executor.submit(() -> {
                try {
                    scan(part);
                }
                catch (Throwable e) {
                    // whatever ends a part early, its groups are missing: the split must fail
                    firstFailure.compareAndSet(null, e);
                }
                finally {
                    // after the part's last page and metrics, so that the driver sees them once no part runs
                    partsRunning.decrementAndGet();
                    signalProgress();
                }
            }));
        }
        scans = started.build();
    }

    private void mergeArrived()
    {
        for (Page page = arrived.poll(); page != null; page = arrived.poll()) {
            merged.addPartial(page);
            queuedBytes.addAndGet(-page.getRetainedSizeInBytes());
            pagesMerged++;
        }
    }

    /** A failed part fails the split at once: the other parts' results would be in vain. */
    private void failOnFailedPart()
    {
        Throwable failure = firstFailure.get();
        if (failure == null) {
            return;
        }
        scans.forEach(scan -> scan.cancel(true));
        throwIfUnchecked(failure);
        throw new TrinoException(NSC_STORAGE_ERROR, "Storage-side aggregation failed: " + failure, failure);
    }

    private Page finalPage()
    {
        Page page = merged.finalPage();
        Block[] blocks = new Block[outputChannels.length];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = page.getBlock(outputChannels[i]);
        }
        return new Page(page.getPositionCount(), blocks);
    }

    /** The stats' answer as a partial state row: counts, and min/max values whose exact key is the value. */
    private Page partialPage(StatsAnswer answer)
    {
        Block[] blocks = new Block[aggregates.size()];
        for (int i = 0; i < aggregates.size(); i++) {
            Type type = aggregates.get(i).partialTypes().getFirst();
            BlockBuilder builder = type.createBlockBuilder(null, 1);
            writeNativeValue(type, builder, answer.values().get(i));
            blocks[i] = builder.build();
        }
        return new Page(1, blocks);
    }

    /**
     * On a fan-out thread: hands each page of the part to the driver, waiting while the queue is
     * full. The thread is there to wait: it waits for the part's scan as for room in the queue.
     */
    private void scan(NscSplit part)
            throws InterruptedException, IOException, ExecutionException
    {
        try (ConnectorPageSource source = partScan.open(part)) {
            while (!source.isFinished()) {
                SourcePage page = source.getNextSourcePage();
                if (page == null) {
                    source.isBlocked().get();
                    continue;
                }
                Page partial = page.getPage();
                queuedBytes.addAndGet(partial.getRetainedSizeInBytes());
                arrived.put(partial);
                signalProgress();
            }
            bytesReceived.addAndGet(source.getCompletedBytes());
            partMetrics.add(source.getMetrics());
        }
    }

    private synchronized void signalProgress()
    {
        progress.complete(null);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        CompletableFuture<Void> next;
        synchronized (this) {
            // a fresh future before looking: a page or an end after the look completes it
            if (progress.isDone()) {
                progress = new CompletableFuture<>();
            }
            next = progress;
        }
        if (finished || scans == null || !arrived.isEmpty() || partsRunning.get() == 0) {
            return NOT_BLOCKED;
        }
        return next;
    }

    @Override
    public long getCompletedBytes()
    {
        return bytesReceived.get();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.empty();
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos;
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    /** The merged groups and the pages waiting to be merged. */
    @Override
    public long getMemoryUsage()
    {
        return merged.retainedBytes() + queuedBytes.get();
    }

    @Override
    public Metrics getMetrics()
    {
        return metrics.mergeWith(new Metrics(ImmutableMap.of(
                ReadMetrics.AGGREGATION_PARTS, new LongCount(parts.size()),
                ReadMetrics.AGGREGATION_PAGES_MERGED, new LongCount(pagesMerged),
                ReadMetrics.AGGREGATION_ROW_GROUPS_FROM_STATS, new LongCount(statsAnswer.map(StatsAnswer::rowGroups).orElse(0L)))));
    }

    @Override
    public void close()
    {
        finished = true;
        if (scans != null) {
            // a part waiting for room in the queue, or for the network, is interrupted
            scans.forEach(scan -> scan.cancel(true));
        }
        arrived.clear();
        queuedBytes.set(0);
    }
}
