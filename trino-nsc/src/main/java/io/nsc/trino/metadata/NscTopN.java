package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * {@code ORDER BY ... LIMIT count} pushed into the scan: each split returns its first
 * {@code count} rows in this order, and Trino's own top-N merges the splits' rows.
 */
public record NscTopN(long count, List<SortItem> order)
{
    public record SortItem(NscColumnHandle column, boolean ascending, boolean nullsFirst)
    {
        public SortItem
        {
            requireNonNull(column, "column is null");
        }
    }

    public NscTopN
    {
        checkArgument(count > 0, "count must be positive");
        order = ImmutableList.copyOf(requireNonNull(order, "order is null"));
        checkArgument(!order.isEmpty(), "no sort item");
    }

    @Override
    public String toString()
    {
        // in the words of Trino's own TopN node
        return "sortOrder=" + order.stream()
                .map(item -> "%s:%s %s NULLS %s".formatted(item.column().name(), item.column().type().getDisplayName(), item.ascending() ? "ASC" : "DESC", item.nullsFirst() ? "FIRST" : "LAST"))
                .toList()
                + " limit=" + count;
    }
}
