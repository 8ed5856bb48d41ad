package io.nsc.trino.read;

import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.trino.spi.Page;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * A part of a pushed-down aggregation that no storage node had room to scan, computed here as a
 * node would have: the part's rows read raw (keys first, then the aggregate inputs, as the scan
 * request orders them) folded into the same partial states a node returns, so that
 * {@link AggregationPageSource} merges them like any part's. The groups it holds are reported as
 * its memory, which Trino accounts to the query (the coordinator pushed the aggregation down
 * because the distinct counts bound them).
 */
final class PartialAggregationPageSource
        implements ConnectorPageSource
{
    private static final int RESULT_PAGE_ROWS = 8192;

    private final ConnectorPageSource rows;
    private final GroupedAggregation groups;
    private final int[] groupChannels;
    private final int[] inputChannels;

    /**
     * @param groupChannels the channels of {@code rows} each group key is in
     * @param inputChannels the channel of {@code rows} each aggregate's input is in (ignored for count(*))
     */
    PartialAggregationPageSource(ConnectorPageSource rows, List<Type> groupTypes, List<AggregateSpec> aggregates, int[] groupChannels, int[] inputChannels)
    {
        this.rows = requireNonNull(rows, "rows is null");
        this.groups = new GroupedAggregation(groupTypes, aggregates);
        this.groupChannels = groupChannels.clone();
        this.inputChannels = inputChannels.clone();
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (!rows.isFinished()) {
            SourcePage page = rows.getNextSourcePage();
            if (page != null) {
                groups.addInput(page.getPage(), groupChannels, inputChannels);
            }
            return null;
        }
        if (groups.groupCount() == 0) {
            return null;
        }
        Page partial = groups.takePartialPage(RESULT_PAGE_ROWS);
        return SourcePage.create(partial);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return rows.isBlocked();
    }

    @Override
    public boolean isFinished()
    {
        return rows.isFinished() && groups.groupCount() == 0;
    }

    @Override
    public long getCompletedBytes()
    {
        return rows.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return rows.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return rows.getReadTimeNanos();
    }

    @Override
    public long getMemoryUsage()
    {
        return rows.getMemoryUsage() + groups.retainedBytes();
    }

    @Override
    public Metrics getMetrics()
    {
        return rows.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        rows.close();
    }
}
