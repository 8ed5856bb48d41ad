package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What every page sink of one write needs to know beyond the columns: the sort order of each
 * file, the row-group size, and how many replicas each file gets (resolved on the coordinator
 * when the write began, against the storage nodes live then).
 */
public record NscWriterSettings(List<String> sortedBy, RowGroupSize rowGroupSize, int replication)
{
    public NscWriterSettings
    {
        sortedBy = ImmutableList.copyOf(requireNonNull(sortedBy, "sortedBy is null"));
        requireNonNull(rowGroupSize, "rowGroupSize is null");
        checkArgument(replication >= 1, "replication must be at least 1: %s", replication);
    }
}
