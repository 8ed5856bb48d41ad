package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;

import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.alreadyExists;

/**
 * Reads of the {@code views} table inside a transaction of whichever catalog part needs them: a
 * table may not take a view's name, nor a view a table's.
 */
final class ViewRows
{
    private ViewRows() {}

    static Optional<ViewEntry> findView(Handle handle, SchemaTableName name)
    {
        return handle.createQuery("SELECT definition, view_comment, version, created_millis, materialized FROM views WHERE schema_name = :schema_name AND view_name = :view_name")
                .bind("schema_name", name.schemaName())
                .bind("view_name", name.tableName())
                .map((row, _) -> new ViewEntry(name, row.getString("definition"), Optional.ofNullable(row.getString("view_comment")), row.getLong("version"), row.getLong("created_millis"), row.getBoolean("materialized")))
                .findOne();
    }

    // reads no column of a later migration: tests write tables into catalogs of earlier schema versions
    static boolean viewExists(Handle handle, SchemaTableName name)
    {
        return handle.createQuery("SELECT 1 FROM views WHERE schema_name = :schema_name AND view_name = :view_name")
                .bind("schema_name", name.schemaName())
                .bind("view_name", name.tableName())
                .mapTo(Integer.class)
                .findOne()
                .isPresent();
    }

    /** Tables and views (plain or materialized) share their schema's names: a table may not take a view's. */
    static void checkNoView(Handle handle, SchemaTableName name)
    {
        if (viewExists(handle, name)) {
            boolean materialized = findView(handle, name).map(ViewEntry::materialized).orElse(false);
            throw alreadyExists("%s %s already exists: a table cannot have its name", kind(materialized), name);
        }
    }

    /** "View" or "Materialized view", for messages. */
    static String kind(boolean materialized)
    {
        return materialized ? "Materialized view" : "View";
    }

    static boolean tableExists(Handle handle, SchemaTableName name)
    {
        return handle.createQuery("SELECT 1 FROM tables WHERE schema_name = :schema_name AND table_name = :table_name")
                .bind("schema_name", name.schemaName())
                .bind("table_name", name.tableName())
                .mapTo(Integer.class)
                .findOne()
                .isPresent();
    }
}
