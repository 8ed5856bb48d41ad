package io.nsc.metadata.catalog;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A table at its current version. The totals are kept with the table row by every commit, so
 * that answering them does not need a scan over the table's files.
 */
public record TableEntry(
        long tableId,
        SchemaTableName name,
        long version,
        long createdMillis,
        List<TableColumn> columns,
        long rowCount,
        long fileCount,
        long sizeBytes)
{
    public TableEntry
    {
        requireNonNull(name, "name is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
    }
}
