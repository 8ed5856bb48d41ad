package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.predicate.TupleDomain;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The splits that survive coordinator-side pruning. Planning waits, up to a deadline, for the
 * join's dynamic filter to complete, so that it prunes row groups too; while it waits it hands
 * the scheduler empty batches instead of blocking its thread. The pruning counts are the
 * split-generation metrics (EXPLAIN ANALYZE VERBOSE prints them).
 */
public class NscSplitSource
        implements ConnectorSplitSource
{
    private static final ConnectorSplitBatch EMPTY_BATCH = new ConnectorSplitBatch(List.of(), false);

    private final Function<TupleDomain<ColumnHandle>, RowGroupPlanner.Plan> planner;
    private final Function<RowGroupPlanner.Plan, List<? extends ConnectorSplit>> packer;
    private final DynamicFilter dynamicFilter;
    private final long deadlineNanos;
    private RowGroupPlanner.Plan plan;
    private Iterator<? extends ConnectorSplit> splits;

    /**
     * @param planner plans the splits given the dynamic filter's predicate as it stands
     * @param packer turns the planned splits into the ones the engine gets
     */
    public NscSplitSource(
            Function<TupleDomain<ColumnHandle>, RowGroupPlanner.Plan> planner,
            Function<RowGroupPlanner.Plan, List<? extends ConnectorSplit>> packer,
            DynamicFilter dynamicFilter,
            long dynamicFilterWaitMillis)
    {
        this.planner = requireNonNull(planner, "planner is null");
        this.packer = requireNonNull(packer, "packer is null");
        this.dynamicFilter = requireNonNull(dynamicFilter, "dynamicFilter is null");
        this.deadlineNanos = System.nanoTime() + MILLISECONDS.toNanos(dynamicFilterWaitMillis);
    }

    public static NscSplitSource of(RowGroupPlanner.Plan plan, Function<RowGroupPlanner.Plan, List<? extends ConnectorSplit>> packer)
    {
        return new NscSplitSource(_ -> plan, packer, DynamicFilter.EMPTY, 0);
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        if (splits == null) {
            long leftMillis = NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (dynamicFilter.isAwaitable() && leftMillis > 0) {
                return dynamicFilter.isBlocked()
                        .thenApply(_ -> EMPTY_BATCH)
                        .completeOnTimeout(EMPTY_BATCH, leftMillis, MILLISECONDS);
            }
            plan = planner.apply(dynamicFilter.getCurrentPredicate());
            splits = packer.apply(plan).iterator();
        }
        ImmutableList.Builder<ConnectorSplit> batch = ImmutableList.builder();
        for (int i = 0; i < maxSize && splits.hasNext(); i++) {
            batch.add(splits.next());
        }
        return CompletableFuture.completedFuture(new ConnectorSplitBatch(batch.build(), !splits.hasNext()));
    }

    @Override
    public boolean isFinished()
    {
        return splits != null && !splits.hasNext();
    }

    @Override
    public Metrics getMetrics()
    {
        return plan == null ? Metrics.EMPTY : plan.metrics();
    }

    @Override
    public void close() {}
}
