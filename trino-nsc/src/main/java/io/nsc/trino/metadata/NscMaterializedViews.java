package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.airlift.json.ObjectMapperProvider;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableVersion;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.MaterializedViewDefinitions.BaseTable;
import io.nsc.trino.metadata.MaterializedViewDefinitions.Refresh;
import io.nsc.trino.metadata.MaterializedViewDefinitions.StoredColumn;
import io.nsc.trino.metadata.MaterializedViewDefinitions.StoredView;
import io.trino.spi.TrinoException;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.CatalogSchemaTableName;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMaterializedViewDefinition;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.MaterializedViewFreshness;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeManager;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.trino.spi.StandardErrorCode.COLUMN_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_VIEW;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TRANSACTION_CONFLICT;
import static io.trino.spi.connector.MaterializedViewFreshness.Freshness.FRESH;
import static io.trino.spi.connector.MaterializedViewFreshness.Freshness.STALE;
import static io.trino.spi.connector.MaterializedViewFreshness.Freshness.UNKNOWN;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Materialized views: the definition in the metadata service, kept with the views (marked
 * materialized), and the data in an nsc table of the view's schema, the storage table, named
 * {@code st_<32 hex digits>} when the view is created and kept under renames. A refresh replaces
 * the storage table's files and records, in the definition, the version of every nsc table its
 * query read, in one metadata transaction; the view is fresh while each of them is still at that
 * version.
 * Other connectors' tables have no version nsc can check: a view reading one is never more than
 * UNKNOWN.
 */
final class NscMaterializedViews
{
    private static final Logger log = Logger.get(NscMaterializedViews.class);

    static final String STORAGE_TABLE_PREFIX = "st_";

    private static final JsonCodec<StoredView> CODEC = new JsonCodecFactory(new ObjectMapperProvider()).jsonCodec(StoredView.class);

    /** What the materialized view support needs of the rest of the connector's metadata. */
    interface StorageTables
    {
        /** CREATE TABLE with the checks of a table's names, types and properties. */
        void create(ConnectorSession session, ConnectorTableMetadata table);

        /** The table's properties as SHOW CREATE TABLE shows them; empty for a missing table. */
        Optional<Map<String, Object>> properties(ConnectorSession session, SchemaTableName table);

        /**
         * Replaces every file of the storage table version the handle read by the fragments' files
         * and records {@code view} in the materialized view, in one metadata transaction.
         *
         * @return whether the view was recorded; false when there was no file to replace (nothing
         *         was committed), or the metadata service ignored the view (an earlier release)
         */
        boolean overwrite(ConnectorSession session, ConnectorTableHandle storageTable, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments, MaterializedViewRefresh view);
    }

    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final CatalogName catalogName;
    private final StorageTables storageTables;

    NscMaterializedViews(NscMetadataClient client, TypeManager typeManager, CatalogName catalogName, StorageTables storageTables)
    {
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.storageTables = requireNonNull(storageTables, "storageTables is null");
    }

    /**
     * Creates the storage table, then the view naming it; when the view cannot be created, the
     * storage table is dropped again. OR REPLACE drops the replaced view's storage table after the
     * new view is in place.
     */
    void create(ConnectorSession session, SchemaTableName name, ConnectorMaterializedViewDefinition definition, Map<String, Object> properties, boolean replace, boolean ignoreExisting)
    {
        Optional<StoredView> existing = getStored(name).map(Stored::view);
        if (existing.isPresent() && ignoreExisting) {
            return;
        }
        if (existing.isPresent() && !replace) {
            throw new TrinoException(TABLE_ALREADY_EXISTS, "Materialized view '%s' already exists".formatted(name));
        }
        // checked again by the service when the view is created; here so that no storage table is made in vain
        if (client.getTable(name).isPresent()) {
            throw new TrinoException(TABLE_ALREADY_EXISTS, "Table '%s' already exists: a materialized view cannot have its name".formatted(name));
        }
        if (client.getView(name).isPresent()) {
            throw new TrinoException(TABLE_ALREADY_EXISTS, "View '%s' already exists: a materialized view cannot have its name".formatted(name));
        }
        String storageTable = STORAGE_TABLE_PREFIX + UUID.randomUUID().toString().replace("-", "");
        StoredView view = StoredView.of(definition, storageTable);
        String json = encode(name, view);
        SchemaTableName storageName = new SchemaTableName(name.getSchemaName(), storageTable);
        storageTables.create(session, new ConnectorTableMetadata(storageName, storageColumns(definition), properties, Optional.of("Data of materialized view " + name)));
        try {
            client.onBehalfOf(session).createView(name, json, definition.getComment(), replace, true);
        }
        catch (RuntimeException e) {
            dropStorageTable(session, storageName, e);
            throw e;
        }
        existing.ifPresent(replaced -> dropStorageTable(session, new SchemaTableName(name.getSchemaName(), replaced.storageTable()), null));
    }

    Optional<ConnectorMaterializedViewDefinition> get(SchemaTableName name)
    {
        return getStored(name).map(stored -> stored.view().toDefinition(catalogName.toString(), name.getSchemaName(), stored.comment()));
    }

    List<SchemaTableName> list(Optional<String> schemaName)
    {
        return client.listViews(schemaName, true);
    }

    /** Materialized views of one schema or of all, read one by one: a view dropped meanwhile is left out. */
    Map<SchemaTableName, ConnectorMaterializedViewDefinition> getAll(Optional<String> schemaName)
    {
        ImmutableMap.Builder<SchemaTableName, ConnectorMaterializedViewDefinition> views = ImmutableMap.builder();
        for (SchemaTableName name : list(schemaName)) {
            get(name).ifPresent(view -> views.put(name, view));
        }
        return views.buildOrThrow();
    }

    Map<String, Object> properties(ConnectorSession session, SchemaTableName name, ConnectorMaterializedViewDefinition definition)
    {
        CatalogSchemaTableName storage = definition.getStorageTable()
                .orElseThrow(() -> new TrinoException(GENERIC_INTERNAL_ERROR, "Materialized view '%s' has no storage table".formatted(name)));
        return storageTables.properties(session, storage.getSchemaTableName())
                .orElseThrow(() -> missingStorageTable(name, storage.getSchemaTableName()));
    }

    /** The view first, then its storage table: a failure in between leaves a table, never a view without its data. */
    void drop(ConnectorSession session, SchemaTableName name)
    {
        StoredView view = getStored(name).orElseThrow(() -> notFound(name)).view();
        client.onBehalfOf(session).dropView(name, true);
        dropStorageTable(session, new SchemaTableName(name.getSchemaName(), view.storageTable()), null);
    }

    /** Within its schema: the storage table, named by the view, keeps its name. */
    void rename(ConnectorSession session, SchemaTableName source, SchemaTableName target)
    {
        if (!source.getSchemaName().equals(target.getSchemaName())) {
            // the words of Trino's own refusal; the storage table stays in the view's schema
            throw new TrinoException(NOT_SUPPORTED, "Materialized View rename across schemas is not supported");
        }
        client.onBehalfOf(session).renameView(source, target, true);
    }

    void setColumnComment(ConnectorSession session, SchemaTableName name, String columnName, Optional<String> comment)
    {
        update(session, name, view -> {
            if (view.columns().stream().noneMatch(column -> column.name().equals(columnName))) {
                throw new TrinoException(COLUMN_NOT_FOUND, "Column '%s' does not exist in materialized view '%s'".formatted(columnName, name));
            }
            List<StoredColumn> columns = view.columns().stream()
                    .map(column -> column.name().equals(columnName) ? new StoredColumn(column.name(), column.type(), comment) : column)
                    .collect(toImmutableList());
            return view.withColumns(columns);
        });
    }

    /**
     * FRESH while every nsc table the last refresh read is still at the version it read (the same
     * table, not one created since under its name); STALE once one moved on, or before the first
     * refresh; UNKNOWN when they all are but the query also read tables of other catalogs. The
     * last fresh time, which Trino weighs against a grace period, is absent for a FRESH view (as
     * Trino asks); for a STALE one it is the commit of the first version after the one read, of
     * the base table that moved on first (the last refresh's time when a table was replaced or its
     * history no longer holds that version); for an UNKNOWN one, the last refresh's.
     */
    MaterializedViewFreshness freshness(SchemaTableName name)
    {
        StoredView view = getStored(name).orElseThrow(() -> notFound(name)).view();
        if (view.lastRefresh().isEmpty()) {
            return new MaterializedViewFreshness(STALE, Optional.empty());
        }
        Refresh refresh = view.lastRefresh().get();
        Optional<Long> staleSince = Optional.empty();
        for (BaseTable base : refresh.baseTables()) {
            Optional<Long> changed = changedSince(base, refresh.refreshedMillis());
            if (changed.isPresent() && (staleSince.isEmpty() || changed.get() < staleSince.get())) {
                staleSince = changed;
            }
        }
        if (staleSince.isPresent()) {
            return new MaterializedViewFreshness(STALE, staleSince.map(Instant::ofEpochMilli));
        }
        if (refresh.otherSources()) {
            return new MaterializedViewFreshness(UNKNOWN, Optional.of(Instant.ofEpochMilli(refresh.refreshedMillis())));
        }
        return new MaterializedViewFreshness(FRESH, Optional.empty());
    }

    /** When the base table moved on from the version the refresh read; empty while it is still there. */
    private Optional<Long> changedSince(BaseTable base, long refreshedMillis)
    {
        SchemaTableName table = new SchemaTableName(base.schema(), base.table());
        Optional<TableInfo> current = client.getTable(table);
        if (current.isEmpty() || current.get().getTableId() != base.tableId()) {
            return Optional.of(refreshedMillis);
        }
        if (current.get().getVersion() == base.version()) {
            return Optional.empty();
        }
        long committed = client.listTableVersions(table).orElse(List.of()).stream()
                .filter(version -> version.getVersion() > base.version())
                .mapToLong(TableVersion::getCommittedMillis)
                .min()
                .orElse(refreshedMillis);
        return Optional.of(committed);
    }

    /**
     * The storage table's files replaced and the versions the query read recorded in the view, in
     * one metadata transaction that names the view version read: a view changed meanwhile (a
     * refresh, a comment) fails the statement, and the storage table keeps its rows. When no file
     * changes (an empty table stays empty), the view's record alone is the one transaction.
     */
    void finishRefresh(ConnectorSession session, NscTableHandle storageTable, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments, List<ConnectorTableHandle> sourceTableHandles)
    {
        SchemaTableName name = viewOf(storageTable.schemaTableName());
        Stored stored = getStored(name).orElseThrow(() -> notFound(name));
        ImmutableList.Builder<BaseTable> baseTables = ImmutableList.builder();
        boolean otherSources = false;
        for (ConnectorTableHandle source : sourceTableHandles) {
            if (source instanceof NscTableHandle table) {
                if (table.tableId() != storageTable.tableId()) {
                    baseTables.add(new BaseTable(table.schemaTableName().getSchemaName(), table.schemaTableName().getTableName(), table.tableId(), table.version()));
                }
            }
            else {
                otherSources = true;
            }
        }
        StoredView refreshed = stored.view().withLastRefresh(new Refresh(System.currentTimeMillis(), baseTables.build().stream().distinct().collect(toImmutableList()), otherSources));
        String definition = encode(name, refreshed);
        MaterializedViewRefresh.Builder record = MaterializedViewRefresh.newBuilder()
                .setViewName(name.getTableName())
                .setDefinition(definition)
                .setExpectedVersion(stored.version());
        stored.comment().ifPresent(record::setComment);
        if (!storageTables.overwrite(session, storageTable, insertHandle, fragments, record.build())) {
            client.onBehalfOf(session).updateView(name, definition, stored.comment(), stored.version(), true);
        }
    }

    /** The materialized view whose storage table this is: a refresh writes to it knowing only the table. */
    private SchemaTableName viewOf(SchemaTableName storageTable)
    {
        for (SchemaTableName name : list(Optional.of(storageTable.getSchemaName()))) {
            Optional<Stored> stored = getStored(name);
            if (stored.isPresent() && stored.get().view().storageTable().equals(storageTable.getTableName())) {
                return name;
            }
        }
        throw new TrinoException(TRANSACTION_CONFLICT, "No materialized view has storage table '%s' any more: it was dropped or replaced during the refresh".formatted(storageTable));
    }

    private void update(ConnectorSession session, SchemaTableName name, UnaryOperator<StoredView> change)
    {
        Stored stored = getStored(name).orElseThrow(() -> notFound(name));
        client.onBehalfOf(session).updateView(name, encode(name, change.apply(stored.view())), stored.comment(), stored.version(), true);
    }

    private List<ColumnMetadata> storageColumns(ConnectorMaterializedViewDefinition definition)
    {
        return definition.getColumns().stream()
                .map(column -> new ColumnMetadata(column.getName(), typeManager.getType(column.getType())))
                .collect(toImmutableList());
    }

    private void dropStorageTable(ConnectorSession session, SchemaTableName storageTable, RuntimeException failure)
    {
        try {
            client.onBehalfOf(session).dropTable(storageTable);
        }
        catch (RuntimeException e) {
            if (failure != null) {
                failure.addSuppressed(e);
            }
            log.warn(e, "Storage table %s of a materialized view was left behind: drop it with DROP TABLE", storageTable);
        }
    }

    private Optional<Stored> getStored(SchemaTableName name)
    {
        return client.getView(name, true).map(NscMaterializedViews::decode);
    }

    private static TrinoException notFound(SchemaTableName name)
    {
        return new TrinoException(TABLE_NOT_FOUND, "Materialized view '%s' does not exist".formatted(name));
    }

    private static TrinoException missingStorageTable(SchemaTableName name, SchemaTableName storageTable)
    {
        return new TrinoException(NSC_METADATA_ERROR, "The storage table '%s' of materialized view '%s' is missing: drop the view and create it again".formatted(storageTable, name));
    }

    static String encode(SchemaTableName name, StoredView view)
    {
        String json = CODEC.toJson(view);
        int bytes = json.getBytes(UTF_8).length;
        if (bytes > NscViews.MAX_DEFINITION_BYTES) {
            throw new TrinoException(INVALID_VIEW, "The definition of materialized view '%s' takes %s bytes, over the limit of %s bytes".formatted(name, bytes, NscViews.MAX_DEFINITION_BYTES));
        }
        return json;
    }

    private static Stored decode(ViewInfo info)
    {
        StoredView view;
        try {
            view = CODEC.fromJson(info.getDefinition());
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(NSC_METADATA_ERROR, "Materialized view '%s.%s' has a definition this connector cannot read: %s".formatted(info.getSchemaName(), info.getViewName(), e.getMessage()), e);
        }
        return new Stored(view, info.hasComment() ? Optional.of(info.getComment()) : Optional.empty(), info.getVersion());
    }

    private record Stored(StoredView view, Optional<String> comment, long version) {}
}
