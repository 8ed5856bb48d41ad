package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * @param replaced the table a CREATE OR REPLACE ... AS dropped to make room, if there was one
 * @param removed what a DELETE's removals took out of the table
 */
public record CommitResult(long tableId, long version, boolean tableCreated, Optional<DroppedTable> replaced, RemovalCounts removed)
{
    public CommitResult
    {
        requireNonNull(replaced, "replaced is null");
        requireNonNull(removed, "removed is null");
    }

    public CommitResult(long tableId, long version, boolean tableCreated, Optional<DroppedTable> replaced)
    {
        this(tableId, version, tableCreated, replaced, RemovalCounts.NONE);
    }

    public CommitResult(long tableId, long version, boolean tableCreated)
    {
        this(tableId, version, tableCreated, Optional.empty());
    }
}
