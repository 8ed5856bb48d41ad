package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableMap;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.joining;

/**
 * The definitions of many tables read in three queries (their rows, their columns, their
 * properties) rather than three per table: what information_schema and JDBC metadata list over
 * a whole schema or catalog. Pages are ordered by schema and table name and continue after the
 * last name of the page before.
 */
final class TableDefinitionListing
{
    private TableDefinitionListing() {}

    /**
     * @param names when not empty, only these tables
     * @param after the page starts after this table; empty: at the first
     * @param withColumns false: each table with no columns, its other fields as they are
     */
    static List<TableEntry> list(Handle handle, Optional<String> schemaName, List<SchemaTableName> names, Optional<SchemaTableName> after, int limit, boolean withColumns)
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(names, "names is null");
        requireNonNull(after, "after is null");
        checkArgument(limit > 0, "limit must be positive");
        List<String> conditions = new ArrayList<>();
        Map<String, Object> bindings = new HashMap<>();
        schemaName.ifPresent(name -> {
            conditions.add("schema_name = :schema_name");
            bindings.put("schema_name", name);
        });
        if (!names.isEmpty()) {
            List<String> alternatives = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                alternatives.add("(schema_name = :name_schema_%1$s AND table_name = :name_table_%1$s)".formatted(i));
                bindings.put("name_schema_" + i, names.get(i).schemaName());
                bindings.put("name_table_" + i, names.get(i).tableName());
            }
            conditions.add("(" + String.join(" OR ", alternatives) + ")");
        }
        after.ifPresent(name -> {
            // the database's own order of names, the same as ORDER BY's on either catalog
            conditions.add("(schema_name > :after_schema OR (schema_name = :after_schema AND table_name > :after_table))");
            bindings.put("after_schema", name.schemaName());
            bindings.put("after_table", name.tableName());
        });
        Query query = handle.createQuery("SELECT table_id, schema_name, table_name, version, created_millis, row_count, file_count, size_bytes, table_comment FROM tables" +
                (conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions)) +
                " ORDER BY schema_name, table_name LIMIT :limit");
        bindings.forEach(query::bind);
        List<TableRow> tables = query.bind("limit", limit)
                .map((row, _) -> new TableRow(
                        row.getLong("table_id"),
                        new SchemaTableName(row.getString("schema_name"), row.getString("table_name")),
                        row.getLong("version"),
                        row.getLong("created_millis"),
                        row.getLong("row_count"),
                        row.getLong("file_count"),
                        row.getLong("size_bytes"),
                        Optional.ofNullable(row.getString("table_comment"))))
                .list();
        if (tables.isEmpty()) {
            return List.of();
        }
        // ids read from the catalog itself: numbers, safe to write into the statement
        String tableIds = tables.stream().map(table -> Long.toString(table.tableId())).collect(joining(", "));
        Map<Long, List<TableColumn>> columns = withColumns ? columns(handle, tableIds) : Map.of();
        Map<Long, Map<String, String>> properties = properties(handle, tableIds);
        return tables.stream()
                .map(table -> new TableEntry(table.tableId(), table.name(), table.version(), table.createdMillis(),
                        columns.getOrDefault(table.tableId(), List.of()), properties.getOrDefault(table.tableId(), Map.of()),
                        table.rowCount(), table.fileCount(), table.sizeBytes(), table.comment()))
                .toList();
    }

    private record TableRow(long tableId, SchemaTableName name, long version, long createdMillis, long rowCount, long fileCount, long sizeBytes, Optional<String> comment) {}

    private static Map<Long, List<TableColumn>> columns(Handle handle, String tableIds)
    {
        Map<Long, List<TableColumn>> columns = new HashMap<>();
        handle.createQuery("SELECT table_id, column_name, column_type, column_comment, dropped FROM columns WHERE table_id IN (" + tableIds + ") ORDER BY table_id, ordinal")
                .map((row, _) -> Map.entry(row.getLong("table_id"),
                        new TableColumn(row.getString("column_name"), row.getString("column_type"), Optional.ofNullable(row.getString("column_comment")), row.getBoolean("dropped"))))
                .forEach(column -> columns.computeIfAbsent(column.getKey(), _ -> new ArrayList<>()).add(column.getValue()));
        return columns;
    }

    private static Map<Long, Map<String, String>> properties(Handle handle, String tableIds)
    {
        Map<Long, Map<String, String>> properties = new HashMap<>();
        handle.createQuery("SELECT table_id, property_name, property_value FROM table_properties WHERE table_id IN (" + tableIds + ") ORDER BY table_id, property_name")
                .map((row, _) -> Map.entry(row.getLong("table_id"), Map.entry(row.getString("property_name"), row.getString("property_value"))))
                .forEach(property -> properties.computeIfAbsent(property.getKey(), _ -> new LinkedHashMap<>()).put(property.getValue().getKey(), property.getValue().getValue()));
        return ImmutableMap.copyOf(properties);
    }
}
