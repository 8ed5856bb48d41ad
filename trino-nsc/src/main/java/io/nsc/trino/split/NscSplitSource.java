package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.metrics.Metrics;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * The splits that survived coordinator-side pruning, with the pruning counts as split-generation
 * metrics (EXPLAIN ANALYZE VERBOSE prints them).
 */
public class NscSplitSource
        implements ConnectorSplitSource
{
    private final Iterator<NscSplit> splits;
    private final Metrics metrics;

    public NscSplitSource(List<NscSplit> splits, Metrics metrics)
    {
        this.splits = ImmutableList.copyOf(requireNonNull(splits, "splits is null")).iterator();
        this.metrics = requireNonNull(metrics, "metrics is null");
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        ImmutableList.Builder<ConnectorSplit> batch = ImmutableList.builder();
        for (int i = 0; i < maxSize && splits.hasNext(); i++) {
            batch.add(splits.next());
        }
        return CompletableFuture.completedFuture(new ConnectorSplitBatch(batch.build(), !splits.hasNext()));
    }

    @Override
    public boolean isFinished()
    {
        return !splits.hasNext();
    }

    @Override
    public Metrics getMetrics()
    {
        return metrics;
    }

    @Override
    public void close() {}
}
