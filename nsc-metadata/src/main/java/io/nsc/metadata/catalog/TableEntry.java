package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableMap;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A table at its current version. The totals are kept with the table row by every commit, so
 * that answering them does not need a scan over the table's files.
 *
 * @param properties the table properties as the creator gave them, ordered by name
 * @param comment the table's comment (COMMENT ON TABLE), no part of any version
 */
public record TableEntry(
        long tableId,
        SchemaTableName name,
        long version,
        long createdMillis,
        List<TableColumn> columns,
        Map<String, String> properties,
        long rowCount,
        long fileCount,
        long sizeBytes,
        Optional<String> comment)
{
    public TableEntry
    {
        requireNonNull(name, "name is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        requireNonNull(comment, "comment is null");
    }
}
