package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * @param replaced the table a CREATE OR REPLACE ... AS dropped to make room, if there was one
 */
public record CommitResult(long tableId, long version, boolean tableCreated, Optional<DroppedTable> replaced)
{
    public CommitResult
    {
        requireNonNull(replaced, "replaced is null");
    }

    public CommitResult(long tableId, long version, boolean tableCreated)
    {
        this(tableId, version, tableCreated, Optional.empty());
    }
}
