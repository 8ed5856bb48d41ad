package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.Query;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.alreadyExists;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.Names.checkSchemaName;
import static io.nsc.metadata.catalog.Names.checkViewName;
import static io.nsc.metadata.catalog.TableDefinitions.validateComment;
import static io.nsc.metadata.catalog.TableRows.schemaExists;
import static io.nsc.metadata.catalog.ViewDefinitions.validateDefinition;
import static io.nsc.metadata.catalog.ViewRows.findView;
import static io.nsc.metadata.catalog.ViewRows.kind;
import static io.nsc.metadata.catalog.ViewRows.tableExists;
import static java.util.Objects.requireNonNull;

/**
 * SQL views, plain and materialized: a name in a schema and the connector's definition, opaque
 * here. Every call names the kind it means, and a view of the other kind is not found by it (DROP
 * VIEW does not drop a materialized view). Views of both kinds and tables share their schema's
 * names: each refuses the others'. Each public method is one transaction;
 * one that throws has changed nothing. A schema's views go with it when it is renamed or dropped
 * ({@link TableCatalog#renameSchema}, {@link TableCatalog#dropSchema}).
 */
public final class ViewCatalog
{
    private final CatalogDatabase database;
    private final Clock clock;

    public ViewCatalog(CatalogDatabase database, Clock clock)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Creates a view at version 1; with {@code replace}, a view of that name is replaced in the
     * same transaction, taking the next version.
     */
    public ViewEntry createView(SchemaTableName name, String definition, Optional<String> comment, boolean replace)
    {
        return createView(name, definition, comment, replace, false);
    }

    /**
     * Creates a view of the kind {@code materialized} at version 1; with {@code replace}, a view
     * of that name and kind is replaced in the same transaction, taking the next version.
     */
    public ViewEntry createView(SchemaTableName name, String definition, Optional<String> comment, boolean replace, boolean materialized)
    {
        checkSchemaName(name.schemaName());
        checkViewName(name.tableName());
        validateDefinition(definition);
        validateComment(comment);
        return database.inTransaction(handle -> {
            if (!schemaExists(handle, name.schemaName())) {
                throw notFound("Schema %s does not exist", name.schemaName());
            }
            checkNoTable(handle, name);
            Optional<ViewEntry> existing = findView(handle, name);
            long now = clock.millis();
            if (existing.isEmpty()) {
                handle.createUpdate("INSERT INTO views (schema_name, view_name, definition, view_comment, version, created_millis, materialized) VALUES (:schema_name, :view_name, :definition, :comment, 1, :now, :materialized)")
                        .bind("schema_name", name.schemaName())
                        .bind("view_name", name.tableName())
                        .bind("definition", definition)
                        .bind("comment", comment.orElse(null))
                        .bind("now", now)
                        .bind("materialized", materialized)
                        .execute();
                return new ViewEntry(name, definition, comment, 1, now, materialized);
            }
            if (!replace || existing.get().materialized() != materialized) {
                // OR REPLACE replaces a view of its own kind only
                throw alreadyExists("%s %s already exists", kind(existing.get().materialized()), name);
            }
            // CREATE OR REPLACE makes a new view: it is created now
            return update(handle, existing.get(), definition, comment, now);
        });
    }

    /**
     * Replaces the definition and comment of the view at {@code expectedVersion} (COMMENT ON
     * VIEW and COMMENT ON COLUMN of a view rewrite the definition they read).
     *
     * @throws io.grpc.StatusRuntimeException NOT_FOUND for a missing view; ABORTED when the view
     *         changed since {@code expectedVersion} was read
     */
    public ViewEntry updateView(SchemaTableName name, String definition, Optional<String> comment, long expectedVersion)
    {
        return updateView(name, definition, comment, expectedVersion, false);
    }

    /** As {@link #updateView(SchemaTableName, String, Optional, long)}, for a view of the kind {@code materialized} (REFRESH MATERIALIZED VIEW records what it read). */
    public ViewEntry updateView(SchemaTableName name, String definition, Optional<String> comment, long expectedVersion, boolean materialized)
    {
        requireNonNull(name, "name is null");
        validateUpdate(definition, comment);
        return database.inTransaction(handle -> update(handle, name, definition, comment, expectedVersion, materialized));
    }

    /** The checks of an update that need no database, for the callers of {@link #update(Handle, SchemaTableName, String, Optional, long, boolean)}. */
    static void validateUpdate(String definition, Optional<String> comment)
    {
        validateDefinition(definition);
        validateComment(comment);
    }

    /**
     * The update of a view at {@code expectedVersion} within a transaction of the caller's: a
     * refresh's commit records the materialized view's new definition in its own.
     */
    static ViewEntry update(Handle handle, SchemaTableName name, String definition, Optional<String> comment, long expectedVersion, boolean materialized)
    {
        ViewEntry view = find(handle, name, materialized);
        if (view.version() != expectedVersion) {
            throw aborted("View %s is at version %s, but the change expects version %s: it was changed meanwhile; nothing was changed", name, view.version(), expectedVersion);
        }
        return update(handle, view, definition, comment, view.createdMillis());
    }

    private static ViewEntry update(Handle handle, ViewEntry view, String definition, Optional<String> comment, long createdMillis)
    {
        long version = view.version() + 1;
        handle.createUpdate("UPDATE views SET definition = :definition, view_comment = :comment, version = :version, created_millis = :created_millis WHERE schema_name = :schema_name AND view_name = :view_name")
                .bind("definition", definition)
                .bind("comment", comment.orElse(null))
                .bind("version", version)
                .bind("created_millis", createdMillis)
                .bind("schema_name", view.name().schemaName())
                .bind("view_name", view.name().tableName())
                .execute();
        return new ViewEntry(view.name(), definition, comment, version, createdMillis, view.materialized());
    }

    public void dropView(SchemaTableName name)
    {
        dropView(name, false);
    }

    public void dropView(SchemaTableName name, boolean materialized)
    {
        requireNonNull(name, "name is null");
        database.inTransaction(handle -> {
            find(handle, name, materialized);
            return handle.createUpdate("DELETE FROM views WHERE schema_name = :schema_name AND view_name = :view_name")
                    .bind("schema_name", name.schemaName())
                    .bind("view_name", name.tableName())
                    .execute();
        });
    }

    /** ALTER VIEW ... RENAME TO, within its schema or into another; the view keeps its version. */
    public void renameView(SchemaTableName from, SchemaTableName to)
    {
        renameView(from, to, false);
    }

    public void renameView(SchemaTableName from, SchemaTableName to, boolean materialized)
    {
        requireNonNull(from, "from is null");
        checkSchemaName(to.schemaName());
        checkViewName(to.tableName());
        database.inTransaction(handle -> {
            find(handle, from, materialized);
            if (!schemaExists(handle, to.schemaName())) {
                throw notFound("Schema %s does not exist", to.schemaName());
            }
            checkNoTable(handle, to);
            findView(handle, to).ifPresent(view -> {
                throw alreadyExists("%s %s already exists", kind(view.materialized()), to);
            });
            return handle.createUpdate("UPDATE views SET schema_name = :new_schema_name, view_name = :new_view_name WHERE schema_name = :schema_name AND view_name = :view_name")
                    .bind("new_schema_name", to.schemaName())
                    .bind("new_view_name", to.tableName())
                    .bind("schema_name", from.schemaName())
                    .bind("view_name", from.tableName())
                    .execute();
        });
    }

    public Optional<ViewEntry> getView(SchemaTableName name)
    {
        return getView(name, false);
    }

    /** The view of that name if it is of the kind {@code materialized}. */
    public Optional<ViewEntry> getView(SchemaTableName name, boolean materialized)
    {
        requireNonNull(name, "name is null");
        return database.inTransaction(handle -> findView(handle, name).filter(view -> view.materialized() == materialized));
    }

    /** Views of one schema, or of every schema when {@code schemaName} is empty, ordered by name. */
    public List<SchemaTableName> listViews(Optional<String> schemaName)
    {
        return listViews(schemaName, false);
    }

    /** Views of the kind {@code materialized} of one schema, or of every schema, ordered by name. */
    public List<SchemaTableName> listViews(Optional<String> schemaName, boolean materialized)
    {
        requireNonNull(schemaName, "schemaName is null");
        return database.inTransaction(handle -> {
            // as listing tables: a name that breaks the naming rule cannot exist, so it is not found
            if (schemaName.isPresent() && !schemaExists(handle, schemaName.get())) {
                throw notFound("Schema %s does not exist", schemaName.get());
            }
            String sql = "SELECT schema_name, view_name FROM views WHERE materialized = :materialized" +
                    (schemaName.isPresent() ? " AND schema_name = :schema_name" : "") +
                    " ORDER BY schema_name, view_name";
            Query query = handle.createQuery(sql).bind("materialized", materialized);
            schemaName.ifPresent(name -> query.bind("schema_name", name));
            return query.map((row, _) -> new SchemaTableName(row.getString("schema_name"), row.getString("view_name")))
                    .list();
        });
    }

    /** The view of that name and kind; NOT_FOUND otherwise. */
    private static ViewEntry find(Handle handle, SchemaTableName name, boolean materialized)
    {
        return findView(handle, name)
                .filter(view -> view.materialized() == materialized)
                .orElseThrow(() -> notFound("%s %s does not exist", kind(materialized), name));
    }

    private static void checkNoTable(Handle handle, SchemaTableName name)
    {
        if (tableExists(handle, name)) {
            throw alreadyExists("Table %s already exists: a view cannot have its name", name);
        }
    }
}
