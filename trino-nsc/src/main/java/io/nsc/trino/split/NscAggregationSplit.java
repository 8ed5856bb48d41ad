package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ConnectorSplit;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * The one split of a scan with a pushed-down aggregation: it asks the storage nodes for the
 * partial states of every part (the row groups that survived pruning, file by file) and merges
 * them, so each group leaves the scan once. Row groups the compact stats answered come as a
 * partial state of their own.
 */
public record NscAggregationSplit(List<NscSplit> parts, Optional<StatsAnswer> statsAnswer)
        implements ConnectorSplit
{
    private static final int INSTANCE_SIZE = instanceSize(NscAggregationSplit.class);

    public NscAggregationSplit
    {
        parts = ImmutableList.copyOf(requireNonNull(parts, "parts is null"));
        requireNonNull(statsAnswer, "statsAnswer is null");
    }

    @Override
    public List<HostAddress> getAddresses()
    {
        return List.of();
    }

    @Override
    public boolean isRemotelyAccessible()
    {
        return true;
    }

    @Override
    public Map<String, String> getSplitInfo()
    {
        return Map.of("parts", String.valueOf(parts.size()), "rowGroupsAnsweredFromStats", String.valueOf(statsAnswer.map(StatsAnswer::rowGroups).orElse(0L)));
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return INSTANCE_SIZE + estimatedSizeOf(parts, NscSplit::getRetainedSizeInBytes);
    }
}
