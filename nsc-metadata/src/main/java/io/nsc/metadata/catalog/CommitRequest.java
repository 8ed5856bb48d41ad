package io.nsc.metadata.catalog;

import java.util.List;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Files to add to a table in one transaction.
 *
 * @param columns the files' schema: a created table gets it, an existing table must match it
 * @param expectedVersion when present, the commit is aborted unless the table is at this version
 */
public record CommitRequest(
        SchemaTableName table,
        List<TableColumn> columns,
        boolean createTable,
        List<FileEntry> files,
        OptionalLong expectedVersion)
{
    public CommitRequest
    {
        requireNonNull(table, "table is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        files = List.copyOf(requireNonNull(files, "files is null"));
        requireNonNull(expectedVersion, "expectedVersion is null");
    }
}
