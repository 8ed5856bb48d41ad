package io.nsc.trino.read;

import com.google.common.collect.ImmutableMap;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.metrics.Metrics;

import static java.util.Objects.requireNonNull;

/** A split's page source whose metrics count one more thing about how the split was read. */
final class CountedPageSource
        extends ForwardingPageSource
{
    private final Metrics count;

    CountedPageSource(ConnectorPageSource delegate, String metric)
    {
        super(delegate);
        this.count = new Metrics(ImmutableMap.of(requireNonNull(metric, "metric is null"), new LongCount(1)));
    }

    @Override
    public Metrics getMetrics()
    {
        return delegate().getMetrics().mergeWith(count);
    }
}
