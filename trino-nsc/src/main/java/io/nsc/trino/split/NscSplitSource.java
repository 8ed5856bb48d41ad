package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.Iterators;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.SplitPlanning.BatchPlanner;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.nsc.trino.split.RowGroupPlanner.FILES_HELD_PEAK;
import static io.nsc.trino.split.RowGroupPlanner.FILES_LISTED;
import static io.nsc.trino.split.RowGroupPlanner.FILE_BATCHES;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The splits that survive coordinator-side pruning, planned a batch of the table's files at a
 * time: the next batch is read from the metadata service (or the cache) only when the scheduler
 * has taken every split of the last one, so the coordinator holds one batch of a table's files
 * however many it has. Planning waits, up to a deadline, for the join's dynamic filter to
 * complete, so that it prunes row groups too; while it waits it hands the scheduler empty batches
 * instead of blocking its thread. The pruning counts of all batches add up to the
 * split-generation metrics (EXPLAIN ANALYZE VERBOSE prints them), with how the files were read.
 *
 * <p>A pushed-down aggregation is one split that merges the partial states of every part, so its
 * source reads every batch before it hands out that split; it keeps the parts (file ids, row
 * groups and addresses), never the files' stats.
 */
public class NscSplitSource
        implements ConnectorSplitSource
{
    private static final ConnectorSplitBatch EMPTY_BATCH = new ConnectorSplitBatch(List.of(), false);

    private final Supplier<Iterator<List<FileEntry>>> files;
    private final SplitPlanning planning;
    private final Optional<NscAggregation> aggregation;
    private final DynamicFilter dynamicFilter;
    private final long deadlineNanos;

    private BatchPlanner batchPlanner;
    private Iterator<List<FileEntry>> batches;
    private Iterator<? extends ConnectorSplit> pending = Collections.emptyIterator();
    // written by the scheduler's thread, read by whoever asks for the metrics
    private volatile Metrics metrics = Metrics.EMPTY;
    private Metrics planned = RowGroupPlanner.Plan.empty(0).metrics();
    private long fileBatches;
    private long filesListed;
    private long filesHeldPeak;

    /**
     * @param files opens a listing of the table version's files, a batch at a time
     * @param planning plans each batch, given the dynamic filter's predicate as it stands when planning starts
     * @param aggregation the pushed-down aggregation, whose parts all go into one split
     */
    public NscSplitSource(
            Supplier<Iterator<List<FileEntry>>> files,
            SplitPlanning planning,
            Optional<NscAggregation> aggregation,
            DynamicFilter dynamicFilter,
            long dynamicFilterWaitMillis)
    {
        this.files = requireNonNull(files, "files is null");
        this.planning = requireNonNull(planning, "planning is null");
        this.aggregation = requireNonNull(aggregation, "aggregation is null");
        this.dynamicFilter = requireNonNull(dynamicFilter, "dynamicFilter is null");
        this.deadlineNanos = System.nanoTime() + MILLISECONDS.toNanos(dynamicFilterWaitMillis);
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        if (batchPlanner == null) {
            long leftMillis = NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (dynamicFilter.isAwaitable() && leftMillis > 0) {
                return dynamicFilter.isBlocked()
                        .thenApply(_ -> EMPTY_BATCH)
                        .completeOnTimeout(EMPTY_BATCH, leftMillis, MILLISECONDS);
            }
            batchPlanner = planning.start(dynamicFilter.getCurrentPredicate(), this::listFiles);
            batches = listFiles();
            if (aggregation.isPresent()) {
                pending = List.of(aggregationSplit(aggregation.get())).iterator();
            }
        }
        while (!pending.hasNext() && batches.hasNext()) {
            pending = planNextBatch().splits().iterator();
        }
        ImmutableList.Builder<ConnectorSplit> batch = ImmutableList.builder();
        for (int i = 0; i < maxSize && pending.hasNext(); i++) {
            batch.add(pending.next());
        }
        return CompletableFuture.completedFuture(new ConnectorSplitBatch(batch.build(), isFinished()));
    }

    private NscAggregationSplit aggregationSplit(NscAggregation aggregation)
    {
        ImmutableList.Builder<NscSplit> parts = ImmutableList.builder();
        Optional<StatsAnswer> answer = Optional.empty();
        while (batches.hasNext()) {
            RowGroupPlanner.Plan plan = planNextBatch();
            parts.addAll(plan.splits());
            answer = StatsAnswers.combine(aggregation, answer, plan.statsAnswer());
        }
        // one split that merges every part's partial states, even of no part
        return new NscAggregationSplit(parts.build(), answer);
    }

    private RowGroupPlanner.Plan planNextBatch()
    {
        RowGroupPlanner.Plan plan = batchPlanner.plan(batches.next());
        planned = planned.mergeWith(plan.metrics());
        publishMetrics();
        return plan;
    }

    /** A listing of the table's files that counts what it reads, for the metrics. */
    private Iterator<List<FileEntry>> listFiles()
    {
        return Iterators.transform(files.get(), batch -> {
            fileBatches++;
            filesListed += batch.size();
            // a batch is let go before the next is read: the largest is the most files held at once
            filesHeldPeak = Math.max(filesHeldPeak, batch.size());
            publishMetrics();
            return batch;
        });
    }

    private void publishMetrics()
    {
        metrics = planned.mergeWith(new Metrics(ImmutableMap.<String, Metric<?>>of(
                FILE_BATCHES, new LongCount(fileBatches),
                FILES_LISTED, new LongCount(filesListed),
                FILES_HELD_PEAK, new LongCount(filesHeldPeak))));
    }

    @Override
    public boolean isFinished()
    {
        return batchPlanner != null && !pending.hasNext() && !batches.hasNext();
    }

    @Override
    public Metrics getMetrics()
    {
        return metrics;
    }

    @Override
    public void close() {}
}
