package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * @param table the new table, or the one that already existed when {@code created} is false
 */
public record CreateTableResult(TableEntry table, boolean created)
{
    public CreateTableResult
    {
        requireNonNull(table, "table is null");
    }
}
