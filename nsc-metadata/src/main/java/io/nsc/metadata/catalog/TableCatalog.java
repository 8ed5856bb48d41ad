package io.nsc.metadata.catalog;

import io.nsc.protocol.catalog.TypeWidening;
import org.jdbi.v3.core.statement.Query;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.alreadyExists;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.Names.checkColumnName;
import static io.nsc.metadata.catalog.Names.checkSchemaName;
import static io.nsc.metadata.catalog.Names.checkTableName;
import static io.nsc.metadata.catalog.TableDefinitions.validateColumn;
import static io.nsc.metadata.catalog.TableDefinitions.validateColumns;
import static io.nsc.metadata.catalog.TableDefinitions.validateComment;
import static io.nsc.metadata.catalog.TableDefinitions.validateProperties;
import static io.nsc.metadata.catalog.TableRows.findTable;
import static io.nsc.metadata.catalog.TableRows.schemaExists;
import static java.util.Objects.requireNonNull;

/**
 * Schemas and tables: their creation and removal, their definitions, and the files of their
 * versions. Each public method is one transaction; one that throws has changed nothing. Files
 * are added to tables by {@link CommitCatalog}.
 *
 * <p>A table version stays listable for the table version retention after a later commit
 * replaced it or the table was dropped ({@link TableVersionRetention}): a dropped table's files
 * are kept, and are no orphans, until then.
 */
public final class TableCatalog
{
    private final CatalogDatabase database;
    private final Clock clock;
    private final TableVersionRetention retention;

    public TableCatalog(CatalogDatabase database, Clock clock, TableVersionRetention retention)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.retention = requireNonNull(retention, "retention is null");
    }

    public List<String> listSchemas()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT schema_name FROM schemas ORDER BY schema_name")
                .mapTo(String.class)
                .list());
    }

    /**
     * @return whether the schema was created; false when it existed and {@code ifNotExists} is set
     */
    public boolean createSchema(String schemaName, boolean ifNotExists)
    {
        checkSchemaName(schemaName);
        return database.inTransaction(handle -> {
            if (schemaExists(handle, schemaName)) {
                if (ifNotExists) {
                    return false;
                }
                throw alreadyExists("Schema %s already exists", schemaName);
            }
            handle.createUpdate("INSERT INTO schemas (schema_name, created_millis) VALUES (:schema_name, :now)")
                    .bind("schema_name", schemaName)
                    .bind("now", clock.millis())
                    .execute();
            return true;
        });
    }

    public boolean dropSchema(String schemaName, boolean ifExists)
    {
        return dropSchema(schemaName, ifExists, false).isPresent();
    }

    /**
     * Drops a schema: an empty one, or with {@code cascade} one with its tables, each dropped as
     * {@link #dropTable} drops it, and its views, all in one transaction. A name that breaks the naming rule
     * cannot exist, so it is not found.
     *
     * @return the tables dropped with the schema; empty when the schema did not exist and {@code ifExists} is set
     */
    public Optional<List<DroppedTable>> dropSchema(String schemaName, boolean ifExists, boolean cascade)
    {
        requireNonNull(schemaName, "schemaName is null");
        return database.inTransaction(handle -> {
            if (!schemaExists(handle, schemaName)) {
                if (ifExists) {
                    return Optional.empty();
                }
                throw notFound("Schema %s does not exist", schemaName);
            }
            List<String> tableNames = handle.createQuery("SELECT table_name FROM tables WHERE schema_name = :schema_name ORDER BY table_name")
                    .bind("schema_name", schemaName)
                    .mapTo(String.class)
                    .list();
            long views = handle.createQuery("SELECT count(*) FROM views WHERE schema_name = :schema_name")
                    .bind("schema_name", schemaName)
                    .mapTo(Long.class)
                    .one();
            if ((!tableNames.isEmpty() || views > 0) && !cascade) {
                throw failedPrecondition("Schema %s is not empty", schemaName);
            }
            handle.createUpdate("DELETE FROM views WHERE schema_name = :schema_name")
                    .bind("schema_name", schemaName)
                    .execute();
            long now = clock.millis();
            List<DroppedTable> dropped = new ArrayList<>();
            for (String tableName : tableNames) {
                TableEntry table = findTable(handle, new SchemaTableName(schemaName, tableName)).orElseThrow();
                dropped.add(retention.drop(handle, table, now));
            }
            handle.createUpdate("DELETE FROM schemas WHERE schema_name = :schema_name")
                    .bind("schema_name", schemaName)
                    .execute();
            return Optional.of(List.copyOf(dropped));
        });
    }

    /**
     * Empties a table: in one transaction it is dropped (its last version stays readable for the
     * retention, as {@link #dropTable} keeps it) and an empty table of the same definition, with
     * its columns, properties, comments and creation time, takes the name under a new id.
     *
     * @param expectedTableId when present, only the table with this id is truncated
     * @return the empty table and the dropped one
     */
    public TruncatedTable truncateTable(SchemaTableName name, OptionalLong expectedTableId)
    {
        requireNonNull(name, "name is null");
        requireNonNull(expectedTableId, "expectedTableId is null");
        return database.inTransaction(handle -> {
            TableEntry table = findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
            if (expectedTableId.isPresent() && expectedTableId.getAsLong() != table.tableId()) {
                throw aborted("Table %s was dropped and created again since the statement began; nothing was truncated", name);
            }
            long now = clock.millis();
            DroppedTable dropped = retention.drop(handle, table, now);
            long tableId = TableRows.insertTable(handle, name, table.columns(), table.properties(), table.comment(), table.createdMillis());
            TableRows.updateTable(handle, tableId, 1, List.of());
            retention.recordVersion(handle, tableId, 1, now, TableOperation.TRUNCATE);
            return new TruncatedTable(findTable(handle, name).orElseThrow(), dropped);
        });
    }

    /** A table emptied by {@link #truncateTable}: the new, empty table, and the one it replaced. */
    public record TruncatedTable(TableEntry table, DroppedTable dropped)
    {
        public TruncatedTable
        {
            requireNonNull(table, "table is null");
            requireNonNull(dropped, "dropped is null");
        }
    }

    /** Renames a schema with every table and view in it; each table keeps its id, versions and files. */
    public void renameSchema(String schemaName, String newSchemaName)
    {
        requireNonNull(schemaName, "schemaName is null");
        checkSchemaName(newSchemaName);
        database.inTransaction(handle -> {
            if (!schemaExists(handle, schemaName)) {
                throw notFound("Schema %s does not exist", schemaName);
            }
            if (schemaExists(handle, newSchemaName)) {
                throw alreadyExists("Schema %s already exists", newSchemaName);
            }
            // the tables reference their schema: the new name exists before they move to it
            handle.createUpdate("INSERT INTO schemas (schema_name, created_millis) SELECT :new_name, created_millis FROM schemas WHERE schema_name = :name")
                    .bind("new_name", newSchemaName)
                    .bind("name", schemaName)
                    .execute();
            handle.createUpdate("UPDATE tables SET schema_name = :new_name WHERE schema_name = :name")
                    .bind("new_name", newSchemaName)
                    .bind("name", schemaName)
                    .execute();
            handle.createUpdate("UPDATE views SET schema_name = :new_name WHERE schema_name = :name")
                    .bind("new_name", newSchemaName)
                    .bind("name", schemaName)
                    .execute();
            return handle.createUpdate("DELETE FROM schemas WHERE schema_name = :name")
                    .bind("name", schemaName)
                    .execute();
        });
    }

    /**
     * Renames a table, within its schema or into another. It keeps its id, and with it its
     * versions and files: a query that planned under the old name reads on.
     */
    public void renameTable(SchemaTableName from, SchemaTableName to)
    {
        requireNonNull(from, "from is null");
        checkSchemaName(to.schemaName());
        checkTableName(to.tableName());
        database.inTransaction(handle -> {
            TableEntry table = findTable(handle, from).orElseThrow(() -> notFound("Table %s does not exist", from));
            if (!schemaExists(handle, to.schemaName())) {
                throw notFound("Schema %s does not exist", to.schemaName());
            }
            if (findTable(handle, to).isPresent()) {
                throw alreadyExists("Table %s already exists", to);
            }
            ViewRows.checkNoView(handle, to);
            return handle.createUpdate("UPDATE tables SET schema_name = :schema_name, table_name = :table_name WHERE table_id = :table_id")
                    .bind("schema_name", to.schemaName())
                    .bind("table_name", to.tableName())
                    .bind("table_id", table.tableId())
                    .execute();
        });
    }

    /**
     * Tables of one schema, or of every schema when {@code schemaName} is empty, ordered by name.
     */
    public List<SchemaTableName> listTables(Optional<String> schemaName)
    {
        return database.inTransaction(handle -> {
            // a name that breaks the naming rule cannot exist: that is NOT_FOUND, not a bad request
            if (schemaName.isPresent() && !schemaExists(handle, schemaName.get())) {
                throw notFound("Schema %s does not exist", schemaName.get());
            }
            String sql = "SELECT schema_name, table_name FROM tables" +
                    (schemaName.isPresent() ? " WHERE schema_name = :schema_name" : "") +
                    " ORDER BY schema_name, table_name";
            Query query = handle.createQuery(sql);
            schemaName.ifPresent(name -> query.bind("schema_name", name));
            return query.map((row, _) -> new SchemaTableName(row.getString("schema_name"), row.getString("table_name")))
                    .list();
        });
    }

    public Optional<TableEntry> getTable(SchemaTableName table)
    {
        requireNonNull(table, "table is null");
        return database.inTransaction(handle -> findTable(handle, table));
    }

    /**
     * A page of table definitions, as {@link #getTable} reads each, in one transaction and a few
     * queries: the tables of one schema (or of every schema when {@code schemaName} is empty),
     * only those named in {@code names} when that is not empty, ordered by schema and table name,
     * at most {@code limit} of them, starting after {@code after} when present.
     *
     * @param withColumns false: the tables without their columns (a listing of comments needs none)
     */
    public List<TableEntry> listTableDefinitions(Optional<String> schemaName, List<SchemaTableName> names, Optional<SchemaTableName> after, int limit, boolean withColumns)
    {
        return database.inTransaction(handle -> {
            // as listTables: a name that breaks the naming rule cannot exist, NOT_FOUND
            if (schemaName.isPresent() && !schemaExists(handle, schemaName.get())) {
                throw notFound("Schema %s does not exist", schemaName.get());
            }
            return TableDefinitionListing.list(handle, schemaName, names, after, limit, withColumns);
        });
    }

    /**
     * Creates an empty table. It starts at version 1, like a table after its first commit, so
     * that every existing table has a version a commit can expect.
     *
     * @param properties stored as given: their values are the connector's to validate
     */
    public CreateTableResult createTable(SchemaTableName name, List<TableColumn> columns, Map<String, String> properties, boolean ifNotExists)
    {
        return createTable(name, columns, properties, Optional.empty(), ifNotExists ? ExistingTable.KEEP : ExistingTable.FAIL);
    }

    /** What a CREATE TABLE does when a table of that name exists. */
    public enum ExistingTable
    {
        /** ALREADY_EXISTS. */
        FAIL,
        /** IF NOT EXISTS: the table stays as it is. */
        KEEP,
        /** OR REPLACE: the table is dropped, as {@link #dropTable} drops it, in the same transaction. */
        REPLACE,
    }

    /** {@link #createTable}, with the table's comment, and what to do with a table of that name. */
    public CreateTableResult createTable(SchemaTableName name, List<TableColumn> columns, Map<String, String> properties, Optional<String> comment, ExistingTable ifExists)
    {
        checkSchemaName(name.schemaName());
        checkTableName(name.tableName());
        validateColumns(columns);
        validateProperties(properties);
        validateComment(comment);
        return database.inTransaction(handle -> {
            if (!schemaExists(handle, name.schemaName())) {
                throw notFound("Schema %s does not exist", name.schemaName());
            }
            Optional<TableEntry> existing = findTable(handle, name);
            long now = clock.millis();
            Optional<DroppedTable> replaced = Optional.empty();
            if (existing.isPresent()) {
                switch (ifExists) {
                    case FAIL -> throw alreadyExists("Table %s already exists", name);
                    case KEEP -> {
                        return new CreateTableResult(existing.get(), false);
                    }
                    case REPLACE -> replaced = Optional.of(retention.drop(handle, existing.get(), now));
                }
            }
            long tableId = TableRows.insertTable(handle, name, columns, properties, comment, now);
            TableRows.updateTable(handle, tableId, 1, List.of());
            retention.recordVersion(handle, tableId, 1, now, TableOperation.CREATE_TABLE);
            return new CreateTableResult(findTable(handle, name).orElseThrow(), true, replaced);
        });
    }

    /**
     * Sets the comment of the table, or of its column {@code column} when present; an empty
     * {@code comment} removes it. Comments belong to no version: the table's version stays.
     */
    public void setComment(SchemaTableName name, Optional<String> column, Optional<String> comment)
    {
        requireNonNull(name, "name is null");
        requireNonNull(column, "column is null");
        validateComment(comment);
        database.inTransaction(handle -> {
            TableEntry table = findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
            if (column.isEmpty()) {
                return handle.createUpdate("UPDATE tables SET table_comment = :comment WHERE table_id = :table_id")
                        .bind("comment", comment.orElse(null))
                        .bind("table_id", table.tableId())
                        .execute();
            }
            int updated = handle.createUpdate("UPDATE columns SET column_comment = :comment WHERE table_id = :table_id AND column_name = :column_name AND dropped = FALSE")
                    .bind("comment", comment.orElse(null))
                    .bind("table_id", table.tableId())
                    .bind("column_name", column.get())
                    .execute();
            if (updated == 0) {
                throw notFound("Column %s of table %s does not exist", column.get(), name);
            }
            return updated;
        });
    }

    /**
     * Replaces every property of the table (ALTER TABLE ... SET PROPERTIES). Properties belong
     * to no version: the table's version stays, and a new version_retention applies to the
     * versions kept now as well as later ones.
     *
     * @param expectedTableId when present, only the table with this id is changed
     */
    public void setProperties(SchemaTableName name, OptionalLong expectedTableId, Map<String, String> properties)
    {
        requireNonNull(name, "name is null");
        requireNonNull(expectedTableId, "expectedTableId is null");
        validateProperties(properties);
        database.inTransaction(handle -> {
            TableEntry table = findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
            if (expectedTableId.isPresent() && expectedTableId.getAsLong() != table.tableId()) {
                throw aborted("Table %s was dropped and created again since the statement began; no property was changed", name);
            }
            TableRows.replaceProperties(handle, table.tableId(), properties);
            return null;
        });
    }

    /**
     * Adds, renames or drops a column (see {@link ColumnChange}) and moves the table to a new
     * version with the same files: a write that began under the old columns then fails at its
     * commit, whose columns no longer match. Comments go with their column: a dropped column's
     * is removed, a renamed one keeps it.
     *
     * @param expectedTableId when present, only the table with this id is altered
     * @param properties when present, the table's properties after the change, replacing all
     * @return the table as it is after the change
     */
    public TableEntry alterColumn(SchemaTableName name, OptionalLong expectedTableId, ColumnChange change, Optional<Map<String, String>> properties)
    {
        requireNonNull(name, "name is null");
        requireNonNull(expectedTableId, "expectedTableId is null");
        requireNonNull(change, "change is null");
        requireNonNull(properties, "properties is null");
        switch (change) {
            case ColumnChange.Add add -> validateColumn(add.column());
            case ColumnChange.Rename rename -> checkColumnName(rename.newName());
            case ColumnChange.Drop _ -> {}
            case ColumnChange.SetType _ -> {}
        }
        properties.ifPresent(TableDefinitions::validateProperties);
        return database.inTransaction(handle -> {
            TableEntry table = findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
            if (expectedTableId.isPresent() && expectedTableId.getAsLong() != table.tableId()) {
                throw aborted("Table %s was dropped and created again since the statement began; no column was changed", name);
            }
            long version = table.version() + 1;
            switch (change) {
                case ColumnChange.Add add -> {
                    checkNoLiveColumn(table, add.column().name());
                    TableRows.insertColumn(handle, table.tableId(), table.columns().size(), add.column(), version);
                }
                case ColumnChange.Rename rename -> {
                    int ordinal = liveColumn(table, rename.name());
                    checkNoLiveColumn(table, rename.newName());
                    handle.createUpdate("UPDATE columns SET column_name = :new_name WHERE table_id = :table_id AND ordinal = :ordinal")
                            .bind("new_name", rename.newName())
                            .bind("table_id", table.tableId())
                            .bind("ordinal", ordinal)
                            .execute();
                }
                case ColumnChange.Drop drop -> {
                    int ordinal = liveColumn(table, drop.name());
                    if (table.columns().stream().filter(column -> !column.dropped()).count() == 1) {
                        throw invalidArgument("Cannot drop column %s: it is the only column of table %s", drop.name(), name);
                    }
                    handle.createUpdate("UPDATE columns SET dropped = TRUE, dropped_version = :version, column_comment = NULL WHERE table_id = :table_id AND ordinal = :ordinal")
                            .bind("version", version)
                            .bind("table_id", table.tableId())
                            .bind("ordinal", ordinal)
                            .execute();
                    // the values are gone for good: so are the statistics ANALYZE computed of them
                    StatisticsCatalog.forgetColumn(handle, table.tableId(), ordinal);
                }
                case ColumnChange.SetType setType -> {
                    int ordinal = liveColumn(table, setType.name());
                    String oldType = table.columns().get(ordinal).type();
                    if (!TypeWidening.isWidening(oldType, setType.newType())) {
                        throw invalidArgument("Cannot change type of column %s of table %s from %s to %s", setType.name(), name, oldType, setType.newType());
                    }
                    // old files keep their values in the old type; readers widen them, and versions
                    // before this one are read with the type they had
                    handle.createUpdate("INSERT INTO column_type_changes (table_id, ordinal, changed_version, old_type) VALUES (:table_id, :ordinal, :version, :old_type)")
                            .bind("table_id", table.tableId())
                            .bind("ordinal", ordinal)
                            .bind("version", version)
                            .bind("old_type", oldType)
                            .execute();
                    handle.createUpdate("UPDATE columns SET column_type = :new_type WHERE table_id = :table_id AND ordinal = :ordinal")
                            .bind("new_type", setType.newType())
                            .bind("table_id", table.tableId())
                            .bind("ordinal", ordinal)
                            .execute();
                }
            }
            properties.ifPresent(replacement -> TableRows.replaceProperties(handle, table.tableId(), replacement));
            TableRows.updateTable(handle, table.tableId(), version, List.of());
            retention.recordVersion(handle, table.tableId(), version, clock.millis(), operation(change));
            return findTable(handle, name).orElseThrow();
        });
    }

    private static TableOperation operation(ColumnChange change)
    {
        return switch (change) {
            case ColumnChange.Add _ -> TableOperation.ADD_COLUMN;
            case ColumnChange.Rename _ -> TableOperation.RENAME_COLUMN;
            case ColumnChange.Drop _ -> TableOperation.DROP_COLUMN;
            case ColumnChange.SetType _ -> TableOperation.SET_COLUMN_TYPE;
        };
    }

    private static int liveColumn(TableEntry table, String columnName)
    {
        for (int ordinal = 0; ordinal < table.columns().size(); ordinal++) {
            TableColumn column = table.columns().get(ordinal);
            if (!column.dropped() && column.name().equals(columnName)) {
                return ordinal;
            }
        }
        throw notFound("Column %s of table %s does not exist", columnName, table.name());
    }

    private static void checkNoLiveColumn(TableEntry table, String columnName)
    {
        if (table.columns().stream().anyMatch(column -> !column.dropped() && column.name().equals(columnName))) {
            throw alreadyExists("Column %s already exists in table %s", columnName, table.name());
        }
    }

    /**
     * Removes the table with its columns, properties and files in one transaction. Its files stay
     * listable by the versions of the table for the table version retention (a query that planned
     * before the drop reads on); after it their ids belong to no table, and storage nodes reclaim
     * them as orphans.
     *
     * @return the dropped table; empty when it did not exist and {@code ifExists} is set
     */
    public Optional<DroppedTable> dropTable(SchemaTableName name, boolean ifExists)
    {
        requireNonNull(name, "name is null");
        return database.inTransaction(handle -> {
            Optional<TableEntry> table = findTable(handle, name);
            if (table.isEmpty()) {
                if (ifExists) {
                    return Optional.empty();
                }
                throw notFound("Table %s does not exist", name);
            }
            return Optional.of(retention.drop(handle, table.get(), clock.millis()));
        });
    }

    /**
     * The table's files at its current version, each with its replicas in the order readers
     * should try them (the order the writer committed), all at once: for small tables and tests;
     * a listing of a table of any size pages through it with {@link #getTableFilesPage}.
     */
    public Optional<TableFiles> getTableFiles(long tableId)
    {
        return getTableFilesPage(TableFilesPageRequest.wholeTable(tableId, true))
                .map(page -> new TableFiles(page.tableId(), page.version(), page.files()));
    }

    /**
     * Some files of a table version, in commit order, each with its replicas in the order readers
     * should try them (see {@link TableFileListing} for why the pages of one version never mix
     * versions).
     *
     * @return empty when the table does not exist (a dropped table's versions are listed for the
     *         table version retention, its current one is not)
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE for a version the table has not reached;
     *         FAILED_PRECONDITION for a version replaced the retention ago or longer
     */
    public Optional<TableFilesPage> getTableFilesPage(TableFilesPageRequest request)
    {
        requireNonNull(request, "request is null");
        return database.inTransaction(handle -> TableFileListing.read(handle, request, retention, clock.millis()));
    }
}
