package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/** A split's page source whose metrics count one more thing about how the split was read. */
final class CountedPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource delegate;
    private final Metrics count;

    CountedPageSource(ConnectorPageSource delegate, String metric)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.count = new Metrics(ImmutableMap.of(requireNonNull(metric, "metric is null"), new LongCount(1)));
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        return delegate.getNextSourcePage();
    }

    @Override
    public boolean isFinished()
    {
        return delegate.isFinished();
    }

    @Override
    public long getCompletedBytes()
    {
        return delegate.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return delegate.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return delegate.getReadTimeNanos();
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate.getMemoryUsage();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return delegate.isBlocked();
    }

    @Override
    public Metrics getMetrics()
    {
        return delegate.getMetrics().mergeWith(count);
    }

    @Override
    public void close()
            throws IOException
    {
        delegate.close();
    }
}
