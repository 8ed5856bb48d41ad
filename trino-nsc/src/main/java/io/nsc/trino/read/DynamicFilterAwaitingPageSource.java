package io.nsc.trino.read;

import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A split planned before the join's dynamic filter, read once some of the filter stands (or a
 * deadline passes): the engine opens a join's probe side when the build side is done, but a
 * filter that Trino collects on the coordinator (a partitioned join's, or one from another
 * stage) reaches the worker some tens of milliseconds later. Until then the split waits, without
 * blocking a thread, so that its mode is chosen with the filter ({@code LateDynamicFilter});
 * splits wait side by side, and the coordinator schedules them all meanwhile.
 */
final class DynamicFilterAwaitingPageSource
        implements ConnectorPageSource
{
    private final CompletableFuture<?> filterArrived;
    private final Supplier<ConnectorPageSource> open;
    private ConnectorPageSource delegate;
    private boolean closed;

    /**
     * @param filterProgress completes when the filter narrows (the engine's future: never completed here)
     * @param open the page source for the split, chosen with the filter as it then stands
     */
    DynamicFilterAwaitingPageSource(CompletableFuture<?> filterProgress, long maxWaitMillis, Supplier<ConnectorPageSource> open)
    {
        // a dependent future: completing it on time-out leaves the engine's own untouched
        this.filterArrived = requireNonNull(filterProgress, "filterProgress is null")
                .thenApply(_ -> null)
                .completeOnTimeout(null, maxWaitMillis, MILLISECONDS);
        this.open = requireNonNull(open, "open is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        ConnectorPageSource source = opened();
        return source == null ? null : source.getNextSourcePage();
    }

    private ConnectorPageSource opened()
    {
        if (delegate == null && !closed && filterArrived.isDone()) {
            delegate = open.get();
        }
        return delegate;
    }

    @Override
    public boolean isFinished()
    {
        return closed || (delegate != null && delegate.isFinished());
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return delegate == null ? filterArrived : delegate.isBlocked();
    }

    @Override
    public long getCompletedBytes()
    {
        return delegate == null ? 0 : delegate.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return delegate == null ? OptionalLong.of(0) : delegate.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return delegate == null ? 0 : delegate.getReadTimeNanos();
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate == null ? 0 : delegate.getMemoryUsage();
    }

    @Override
    public Metrics getMetrics()
    {
        return delegate == null ? Metrics.EMPTY : delegate.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        closed = true;
        filterArrived.cancel(false);
        if (delegate != null) {
            delegate.close();
        }
    }
}
