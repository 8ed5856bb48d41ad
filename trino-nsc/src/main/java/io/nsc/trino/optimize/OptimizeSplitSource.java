package io.nsc.trino.optimize;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.metrics.Metrics;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * An OPTIMIZE's split source: the scan's, which reports to the engine, once finished, the ids of
 * the files it listed (Trino hands them to {@code finishTableExecute}, which rewrites exactly
 * those).
 */
public final class OptimizeSplitSource
        implements ConnectorSplitSource
{
    private final ConnectorSplitSource splits;
    private final Set<String> fileIds;

    /**
     * @param fileIds filled by the scan's file listing with every file it lists
     */
    public OptimizeSplitSource(ConnectorSplitSource splits, Set<String> fileIds)
    {
        this.splits = requireNonNull(splits, "splits is null");
        this.fileIds = requireNonNull(fileIds, "fileIds is null");
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        return splits.getNextBatch(maxSize);
    }

    @Override
    public boolean isFinished()
    {
        return splits.isFinished();
    }

    @Override
    public Optional<List<Object>> getTableExecuteSplitsInfo()
    {
        return Optional.of(ImmutableList.copyOf(fileIds));
    }

    @Override
    public Metrics getMetrics()
    {
        return splits.getMetrics();
    }

    @Override
    public void close()
    {
        splits.close();
    }
}
