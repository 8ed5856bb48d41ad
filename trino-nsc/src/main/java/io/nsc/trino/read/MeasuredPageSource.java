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

/** A split's page source that tells {@link AdaptiveScanModes} how long the split took once it has ended. */
final class MeasuredPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource delegate;
    private final AdaptiveScanModes.Choice choice;
    private final long rows;

    MeasuredPageSource(ConnectorPageSource delegate, AdaptiveScanModes.Choice choice, long rows)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.choice = requireNonNull(choice, "choice is null");
        this.rows = rows;
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        SourcePage page = delegate.getNextSourcePage();
        recordIfFinished();
        return page;
    }

    @Override
    public boolean isFinished()
    {
        return recordIfFinished();
    }

    private boolean recordIfFinished()
    {
        boolean finished = delegate.isFinished();
        if (finished) {
            choice.finished(rows, choice.nodeSharesCpus() ? storageCpuNanos() : 0);
        }
        return finished;
    }

    private long storageCpuNanos()
    {
        return delegate.getMetrics().getMetrics().get(ReadMetrics.STORAGE_CPU_NANOS) instanceof LongCount count ? count.getTotal() : 0;
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
        if (!choice.changed()) {
            return delegate.getMetrics();
        }
        return delegate.getMetrics().mergeWith(new Metrics(ImmutableMap.of(ReadMetrics.SPLITS_MODE_CHANGED, new LongCount(1))));
    }

    @Override
    public void close()
            throws IOException
    {
        // a split closed before its end (a LIMIT met, a query cancelled) measured nothing
        delegate.close();
    }
}
