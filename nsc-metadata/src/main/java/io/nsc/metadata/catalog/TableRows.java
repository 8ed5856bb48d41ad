package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableMap.toImmutableMap;

/**
 * Reads and writes of the rows that make a table (the table, its columns and properties), inside
 * a transaction of whichever catalog part needs them: a CREATE TABLE and the commit of a
 * CREATE TABLE AS write the same rows.
 */
final class TableRows
{
    private TableRows() {}

    static boolean schemaExists(Handle handle, String schemaName)
    {
        return handle.createQuery("SELECT 1 FROM schemas WHERE schema_name = :schema_name")
                .bind("schema_name", schemaName)
                .mapTo(Integer.class)
                .findOne()
                .isPresent();
    }

    static Optional<TableEntry> findTable(Handle handle, SchemaTableName name)
    {
        return handle.createQuery("SELECT table_id, version, created_millis, row_count, file_count, size_bytes, table_comment FROM tables WHERE schema_name = :schema_name AND table_name = :table_name")
                .bind("schema_name", name.schemaName())
                .bind("table_name", name.tableName())
                .map((row, _) -> new TableCounts(row.getLong("table_id"), row.getLong("version"), row.getLong("created_millis"), row.getLong("row_count"), row.getLong("file_count"), row.getLong("size_bytes"),
                        Optional.ofNullable(row.getString("table_comment"))))
                .findOne()
                .map(table -> new TableEntry(table.tableId(), name, table.version(), table.createdMillis(), columns(handle, table.tableId()), properties(handle, table.tableId()),
                        table.rowCount(), table.fileCount(), table.sizeBytes(), table.comment()));
    }

    /** The row of {@code tables}, read before the columns and properties of the same table. */
    private record TableCounts(long tableId, long version, long createdMillis, long rowCount, long fileCount, long sizeBytes, Optional<String> comment) {}

    private static List<TableColumn> columns(Handle handle, long tableId)
    {
        return handle.createQuery("SELECT column_name, column_type, column_comment, dropped FROM columns WHERE table_id = :table_id ORDER BY ordinal")
                .bind("table_id", tableId)
                .map((row, _) -> new TableColumn(row.getString("column_name"), row.getString("column_type"), Optional.ofNullable(row.getString("column_comment")), row.getBoolean("dropped")))
                .list();
    }

    /**
     * The table's column slots as they were at {@code version}: a column added by a later version
     * holds no live column yet, one dropped by a later version is still live. A column dropped
     * before the catalog recorded when (schema version 12) counts as dropped at every version.
     * Names and comments are today's: a rename is no part of a version.
     */
    static List<TableColumn> columnsAt(Handle handle, long tableId, long version)
    {
        // a slot's type at the version: the old type of its first change after it, or today's
        Map<Integer, String> typesThen = new HashMap<>();
        handle.createQuery("SELECT ordinal, old_type FROM column_type_changes WHERE table_id = :table_id AND changed_version > :version ORDER BY changed_version DESC")
                .bind("table_id", tableId)
                .bind("version", version)
                .map((row, _) -> Map.entry(row.getInt("ordinal"), row.getString("old_type")))
                .forEach(change -> typesThen.put(change.getKey(), change.getValue()));
        return handle.createQuery("SELECT ordinal, column_name, column_type, column_comment, dropped, added_version, dropped_version FROM columns WHERE table_id = :table_id ORDER BY ordinal")
                .bind("table_id", tableId)
                .map((row, _) -> {
                    Long added = row.getObject("added_version", Long.class);
                    Long dropped = row.getObject("dropped_version", Long.class);
                    boolean notYetAdded = added != null && added > version;
                    boolean alreadyDropped = row.getBoolean("dropped") && (dropped == null || dropped <= version);
                    String type = typesThen.getOrDefault(row.getInt("ordinal"), row.getString("column_type"));
                    return new TableColumn(row.getString("column_name"), type, Optional.ofNullable(row.getString("column_comment")), notYetAdded || alreadyDropped);
                })
                .list();
    }

    private static Map<String, String> properties(Handle handle, long tableId)
    {
        return handle.createQuery("SELECT property_name, property_value FROM table_properties WHERE table_id = :table_id ORDER BY property_name")
                .bind("table_id", tableId)
                .map((row, _) -> Map.entry(row.getString("property_name"), row.getString("property_value")))
                .collect(toImmutableMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /**
     * A table at version 0, with no files: the caller sets the version it starts at.
     *
     * @throws io.grpc.StatusRuntimeException ALREADY_EXISTS when a view has the name
     */
    static long insertTable(Handle handle, SchemaTableName name, List<TableColumn> columns, Map<String, String> properties, Optional<String> comment, long createdMillis)
    {
        ViewRows.checkNoView(handle, name);
        handle.createUpdate("INSERT INTO tables (schema_name, table_name, version, created_millis, row_count, file_count, size_bytes, table_comment) " +
                        "VALUES (:schema_name, :table_name, 0, :created_millis, 0, 0, 0, :table_comment)")
                .bind("schema_name", name.schemaName())
                .bind("table_name", name.tableName())
                .bind("created_millis", createdMillis)
                .bind("table_comment", comment.orElse(null))
                .execute();
        // the name is unique: reading the id back by it needs no driver-specific generated keys
        long tableId = handle.createQuery("SELECT table_id FROM tables WHERE schema_name = :schema_name AND table_name = :table_name")
                .bind("schema_name", name.schemaName())
                .bind("table_name", name.tableName())
                .mapTo(Long.class)
                .one();
        for (int ordinal = 0; ordinal < columns.size(); ordinal++) {
            insertColumn(handle, tableId, ordinal, columns.get(ordinal));
        }
        insertProperties(handle, tableId, properties);
        return tableId;
    }

    static void insertColumn(Handle handle, long tableId, int ordinal, TableColumn column)
    {
        insertColumn(handle, tableId, ordinal, column, null);
    }

    /** A column an ALTER TABLE adds: versions before {@code addedVersion} are read without it. */
    static void insertColumn(Handle handle, long tableId, int ordinal, TableColumn column, Long addedVersion)
    {
        handle.createUpdate("INSERT INTO columns (table_id, ordinal, column_name, column_type, column_comment, dropped, added_version) VALUES (:table_id, :ordinal, :column_name, :column_type, :column_comment, :dropped, :added_version)")
                .bind("added_version", addedVersion)
                .bind("table_id", tableId)
                .bind("ordinal", ordinal)
                .bind("column_name", column.name())
                .bind("column_type", column.type())
                .bind("column_comment", column.comment().orElse(null))
                .bind("dropped", column.dropped())
                .execute();
    }

    /** Replaces every property of the table. */
    static void replaceProperties(Handle handle, long tableId, Map<String, String> properties)
    {
        handle.createUpdate("DELETE FROM table_properties WHERE table_id = :table_id")
                .bind("table_id", tableId)
                .execute();
        insertProperties(handle, tableId, properties);
    }

    private static void insertProperties(Handle handle, long tableId, Map<String, String> properties)
    {
        if (!properties.isEmpty()) {
            PreparedBatch batch = handle.prepareBatch("INSERT INTO table_properties (table_id, property_name, property_value) VALUES (:table_id, :property_name, :property_value)");
            properties.forEach((propertyName, value) -> batch
                    .bind("table_id", tableId)
                    .bind("property_name", propertyName)
                    .bind("property_value", value)
                    .add());
            batch.execute();
        }
    }

    /** Moves the table to {@code version}, adding the counts of the files that version adds. */
    static void updateTable(Handle handle, long tableId, long version, List<FileEntry> files)
    {
        handle.createUpdate("UPDATE tables SET version = :version, row_count = row_count + :rows, file_count = file_count + :files, size_bytes = size_bytes + :bytes WHERE table_id = :table_id")
                .bind("version", version)
                .bind("rows", files.stream().mapToLong(FileEntry::rowCount).sum())
                .bind("files", (long) files.size())
                .bind("bytes", files.stream().mapToLong(FileEntry::sizeBytes).sum())
                .bind("table_id", tableId)
                .execute();
    }

    /** Takes what a DELETE removed out of the table's counts; the version is the commit's to set. */
    static void removeFromCounts(Handle handle, long tableId, long rows, long files, long bytes)
    {
        handle.createUpdate("UPDATE tables SET row_count = row_count - :rows, file_count = file_count - :files, size_bytes = size_bytes - :bytes WHERE table_id = :table_id")
                .bind("rows", rows)
                .bind("files", files)
                .bind("bytes", bytes)
                .bind("table_id", tableId)
                .execute();
    }

    /** The schema and name of the table the file is committed to, as "schema.table". */
    static Optional<String> committedTo(Handle handle, String fileId)
    {
        return handle.createQuery("SELECT t.schema_name, t.table_name FROM files f JOIN tables t ON f.table_id = t.table_id WHERE f.file_id = :file_id")
                .bind("file_id", fileId)
                .map((row, _) -> row.getString("schema_name") + "." + row.getString("table_name"))
                .findOne();
    }
}
