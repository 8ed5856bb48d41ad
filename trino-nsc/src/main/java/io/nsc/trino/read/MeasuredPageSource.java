package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import static java.util.Objects.requireNonNull;

/**
 * A split's page source that tells {@link AdaptiveScanModes} how long the split took once it has
 * ended. A split closed before its end (a LIMIT met, a query cancelled) measured nothing.
 */
final class MeasuredPageSource
        extends ForwardingPageSource
{
    private final AdaptiveScanModes.Choice choice;
    private final long rows;

    MeasuredPageSource(ConnectorPageSource delegate, AdaptiveScanModes.Choice choice, long rows)
    {
        super(delegate);
        this.choice = requireNonNull(choice, "choice is null");
        this.rows = rows;
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        SourcePage page = delegate().getNextSourcePage();
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
        boolean finished = delegate().isFinished();
        if (finished) {
            choice.finished(rows, choice.nodeSharesCpus() ? storageCpuNanos() : 0);
        }
        return finished;
    }

    private long storageCpuNanos()
    {
        return delegate().getMetrics().getMetrics().get(ReadMetrics.STORAGE_CPU_NANOS) instanceof LongCount count ? count.getTotal() : 0;
    }

    @Override
    public Metrics getMetrics()
    {
        if (!choice.changed()) {
            return delegate().getMetrics();
        }
        return delegate().getMetrics().mergeWith(new Metrics(ImmutableMap.of(ReadMetrics.SPLITS_MODE_CHANGED, new LongCount(1))));
    }
}
