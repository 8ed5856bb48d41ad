package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * An aggregation pushed into the scan: storage nodes aggregate their rows by the group keys into
 * partial states, and one split merges them, so that the scan returns each group once.
 */
public record NscAggregation(List<NscColumnHandle> groupBy, List<NscAggregateColumnHandle> aggregates)
{
    public NscAggregation
    {
        groupBy = ImmutableList.copyOf(requireNonNull(groupBy, "groupBy is null"));
        aggregates = ImmutableList.copyOf(requireNonNull(aggregates, "aggregates is null"));
    }

    @Override
    public String toString()
    {
        return "groupBy=" + groupBy + " aggregates=" + aggregates;
    }
}
