package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * @param replaced the table a CREATE OR REPLACE ... AS dropped to make room, if there was one
 * @param removed what a DELETE's removals took out of the table
 * @param view the materialized view a refresh's commit recorded its new definition in
 */
public record CommitResult(long tableId, long version, boolean tableCreated, Optional<DroppedTable> replaced, RemovalCounts removed, Optional<ViewEntry> view)
{
    public CommitResult
    {
        requireNonNull(replaced, "replaced is null");
        requireNonNull(removed, "removed is null");
        requireNonNull(view, "view is null");
    }

    public CommitResult(long tableId, long version, boolean tableCreated, Optional<DroppedTable> replaced, RemovalCounts removed)
    {
        this(tableId, version, tableCreated, replaced, removed, Optional.empty());
    }

    public CommitResult withView(ViewEntry view)
    {
        return new CommitResult(tableId, version, tableCreated, replaced, removed, Optional.of(view));
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
