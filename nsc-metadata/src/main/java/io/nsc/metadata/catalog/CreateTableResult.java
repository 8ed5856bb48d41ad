package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * @param table the new table, or the one that already existed when {@code created} is false
 * @param replaced the table a CREATE OR REPLACE dropped to make room, if there was one
 */
public record CreateTableResult(TableEntry table, boolean created, Optional<DroppedTable> replaced)
{
    public CreateTableResult
    {
        requireNonNull(table, "table is null");
        requireNonNull(replaced, "replaced is null");
    }

    public CreateTableResult(TableEntry table, boolean created)
    {
        this(table, created, Optional.empty());
    }
}
