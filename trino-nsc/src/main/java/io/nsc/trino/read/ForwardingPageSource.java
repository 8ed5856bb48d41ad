package io.nsc.trino.read;

import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/** A page source that hands every call to another; subclasses change what they add. */
abstract class ForwardingPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource delegate;

    ForwardingPageSource(ConnectorPageSource delegate)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
    }

    protected final ConnectorPageSource delegate()
    {
        return delegate;
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
        return delegate.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        delegate.close();
    }
}
