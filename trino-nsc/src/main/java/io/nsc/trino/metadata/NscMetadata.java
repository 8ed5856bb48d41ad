package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Iterators;
import com.google.common.collect.Sets;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.catalog.TypeWidening;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.RenameColumn;
import io.nsc.protocol.proto.SetColumnType;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.NscAnalyzeProperties;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.write.WriteTypes;
import io.trino.spi.RefreshType;
import io.trino.spi.TrinoException;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ColumnPosition;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorAnalyzeMetadata;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMaterializedViewDefinition;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorOutputMetadata;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableLayout;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.ConnectorViewDefinition;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.MaterializedViewFreshness;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.RelationCommentMetadata;
import io.trino.spi.connector.RelationType;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SortItem;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.connector.TableNotFoundException;
import io.trino.spi.connector.TopNApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.TrinoPrincipal;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;

import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.trino.metadata.NameChecks.checkName;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

/**
 * The metadata of one transaction (see {@link NscMetadataFactory}): the first reference to a
 * table pins the version the metadata service names current then, and every later reference in
 * the transaction gets that same version, so a query never reads two versions of one table (a
 * self-join, a subquery) whatever commits land while it is planned. The version travels in the
 * table handle to every file listing of the query: splits, statistics and pushdown decisions. A
 * write through this transaction unpins its table, so that the transaction reads what it wrote.
 * <p>
 * Writes ({@link NscTableWrites}), row changes ({@link NscRowChanges}), OPTIMIZE
 * ({@link NscOptimize}) and pushdown ({@link NscPushdown}) are delegated; the pinned versions are the transaction's
 * {@link PlannedTables}, which the statements that change tables share.
 */
public class NscMetadata
        implements ConnectorMetadata
{
    private static final Logger log = Logger.get(NscMetadata.class);

    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final TableFilesCache tableFilesCache;
    private final PlannedTables plannedTables;
    private final Map<Long, Map<Integer, AnalyzedColumn>> analyzedColumns = new ConcurrentHashMap<>();
    private final Map<ConstrainedScan, TableStatistics> constrainedStatistics = new ConcurrentHashMap<>();
    private final NscViews views;
    private final NscMaterializedViews materializedViews;
    private final NscPushdown pushdown;
    private final NscTableWrites writes;
    private final NscRowChanges rowChanges;
    private final NscOptimize optimize;

    /**
     * @param defaultCompressionCodec what writes into tables that set no compression_codec use
     */
    public NscMetadata(NscMetadataClient client, TypeManager typeManager, TableFilesCache tableFilesCache, ParquetWriteCodec defaultCompressionCodec, CatalogName catalogName)
    {
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
        this.plannedTables = new PlannedTables(client);
        this.writes = new NscTableWrites(client, typeManager, tableFilesCache, defaultCompressionCodec, plannedTables);
        this.rowChanges = new NscRowChanges(client, tableFilesCache, plannedTables, writes);
        this.optimize = new NscOptimize(client, tableFilesCache, plannedTables, writes);
        this.views = new NscViews(client);
        this.materializedViews = new NscMaterializedViews(client, typeManager, catalogName, new StorageTables());
        this.pushdown = new NscPushdown(tableFilesCache);
    }

    /** The metadata service for a statement that changes the catalog: its audit log names the session's user and query. */
    private NscMetadataClient client(ConnectorSession session)
    {
        return client.onBehalfOf(session);
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session)
    {
        return client.listSchemas();
    }

    /** Tables, views and materialized views, as the SPI asks: they share their schema's names. */
    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName)
    {
        // a set: a name that moved from a table to a view between the listings is listed once
        return ImmutableSet.<SchemaTableName>builder()
                .addAll(client.listTables(schemaName))
                .addAll(client.listViews(schemaName))
                .addAll(materializedViews.list(schemaName))
                .build()
                .asList();
    }

    @Override
    public Map<SchemaTableName, RelationType> getRelationTypes(ConnectorSession session, Optional<String> schemaName)
    {
        Map<SchemaTableName, RelationType> relations = new HashMap<>();
        client.listTables(schemaName).forEach(table -> relations.put(table, RelationType.TABLE));
        // listed after the tables: a name that moved from a table to a view between the two listings is a view now
        client.listViews(schemaName).forEach(view -> relations.put(view, RelationType.VIEW));
        materializedViews.list(schemaName).forEach(view -> relations.put(view, RelationType.MATERIALIZED_VIEW));
        return relations;
    }

    @Override
    public ConnectorTableHandle getTableHandle(
            ConnectorSession session,
            SchemaTableName tableName,
            Optional<ConnectorTableVersion> startVersion,
            Optional<ConnectorTableVersion> endVersion)
    {
        if (startVersion.isPresent()) {
            throw new TrinoException(NOT_SUPPORTED, "nsc tables are read at one version: FOR VERSION AS OF or FOR TIMESTAMP AS OF, not a range");
        }
        if (endVersion.isPresent()) {
            if (client.getTable(tableName).isEmpty()) {
                // a missing table is what the statement gets wrong first, whatever its pointer
                return null;
            }
            // an earlier version never changes: it needs no pin, and a query may read it beside the current one
            return client.getTable(tableName, TableVersionPointers.toPointer(session, endVersion.get()))
                    .map(this::toTableHandle)
                    .orElse(null);
        }
        return plannedTables.pin(tableName)
                .map(this::toTableHandle)
                .orElse(null);
    }

    @Override
    public Optional<SystemTable> getSystemTable(ConnectorSession session, SchemaTableName tableName)
    {
        Optional<SystemTable> filesTable = NscFilesTable.Name.parse(tableName)
                .flatMap(name -> client.getTable(name.dataTable())
                        .map(table -> new NscFilesTable(tableName, name.kind(), toTableHandle(table), tableFilesCache)));
        if (filesTable.isPresent()) {
            return filesTable;
        }
        return NscHistoryTable.Name.parse(tableName)
                .filter(name -> client.getTable(name.dataTable()).isPresent())
                .map(name -> new NscHistoryTable(tableName, name.kind(), () -> client.listTableVersions(name.dataTable())
                        .orElseThrow(() -> new TableNotFoundException(name.dataTable()))));
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        TableInfo info = plannedTables.tableInfo(handle);
        return new ConnectorTableMetadata(
                handle.schemaTableName(),
                toColumnMetadata(handle.columns(), info),
                NscTableProperties.fromStored(handle.schemaTableName().toString(), handle.properties()),
                info.hasComment() ? Optional.of(info.getComment()) : Optional.empty());
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        handle.columns().forEach(column -> columns.put(column.name(), column));
        return columns.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(ConnectorSession session, ConnectorTableHandle table, ColumnHandle column)
    {
        return switch (column) {
            case NscColumnHandle nscColumn -> toColumnMetadata(nscColumn, plannedTables.tableInfo((NscTableHandle) table));
            case NscAggregateColumnHandle aggregate -> new ColumnMetadata(aggregate.name(), aggregate.type());
            case NscComputedColumnHandle computed -> computed.toColumnMetadata();
            case NscRowIdColumnHandle rowId -> rowId.toColumnMetadata();
            default -> throw new IllegalArgumentException("not an nsc column: " + column);
        };
    }

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Map<SchemaTableName, RelationType> relations = getRelationTypes(session, schemaName);
        Set<SchemaTableName> kept = relationFilter.apply(relations.keySet());
        Iterator<RelationColumnsMetadata> tables = Iterators.transform(
                tableDefinitions(schemaName, relations, kept, true),
                table -> RelationColumnsMetadata.forTable(nameOf(table), toColumnMetadata(toTableHandle(table).columns(), table)));
        // a view dropped since it was listed is left out
        Iterator<RelationColumnsMetadata> viewColumns = kept(relations, kept, RelationType.VIEW).stream()
                .map(name -> views.get(name).map(view -> RelationColumnsMetadata.forView(name, view.getColumns())))
                .flatMap(Optional::stream)
                .iterator();
        Iterator<RelationColumnsMetadata> materializedViewColumns = kept(relations, kept, RelationType.MATERIALIZED_VIEW).stream()
                .map(name -> materializedViews.get(name).map(view -> RelationColumnsMetadata.forMaterializedView(name, view.getColumns())))
                .flatMap(Optional::stream)
                .iterator();
        return Iterators.concat(tables, viewColumns, materializedViewColumns);
    }

    @Override
    public Iterator<RelationCommentMetadata> streamRelationComments(ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter)
    {
        Map<SchemaTableName, RelationType> relations = getRelationTypes(session, schemaName);
        Set<SchemaTableName> kept = relationFilter.apply(relations.keySet());
        Iterator<RelationCommentMetadata> tables = Iterators.transform(
                tableDefinitions(schemaName, relations, kept, false),
                table -> RelationCommentMetadata.forRelation(nameOf(table), table.hasComment() ? Optional.of(table.getComment()) : Optional.empty()));
        Iterator<RelationCommentMetadata> viewComments = kept(relations, kept, RelationType.VIEW).stream()
                .map(name -> views.get(name).map(view -> RelationCommentMetadata.forRelation(name, view.getComment())))
                .flatMap(Optional::stream)
                .iterator();
        Iterator<RelationCommentMetadata> materializedViewComments = kept(relations, kept, RelationType.MATERIALIZED_VIEW).stream()
                .map(name -> materializedViews.get(name).map(view -> RelationCommentMetadata.forRelation(name, view.getComment())))
                .flatMap(Optional::stream)
                .iterator();
        return Iterators.concat(tables, viewComments, materializedViewComments);
    }

    /**
     * The tables of a listing (information_schema, JDBC metadata) that the filter kept, with
     * their definitions, a page of many tables per metadata call rather than a call per table.
     * Trino's filter (access control) sees the names first; when it kept only some tables, only
     * those are fetched.
     */
    private Iterator<TableInfo> tableDefinitions(Optional<String> schemaName, Map<SchemaTableName, RelationType> relations, Set<SchemaTableName> kept, boolean withColumns)
    {
        Set<SchemaTableName> tables = relations.entrySet().stream()
                .filter(relation -> relation.getValue() == RelationType.TABLE)
                .map(Map.Entry::getKey)
                .collect(toImmutableSet());
        Set<SchemaTableName> keptTables = Sets.intersection(tables, kept).immutableCopy();
        if (keptTables.isEmpty()) {
            return Collections.emptyIterator();
        }
        Iterator<TableInfo> definitions = keptTables.size() == tables.size()
                ? client.listTableDefinitions(schemaName, withColumns)
                : client.listTableDefinitions(keptTables, withColumns);
        // a table created since the names were listed was not seen by the filter
        return Iterators.filter(definitions, table -> keptTables.contains(nameOf(table)));
    }

    private static List<SchemaTableName> kept(Map<SchemaTableName, RelationType> relations, Set<SchemaTableName> kept, RelationType type)
    {
        return kept.stream()
                .filter(name -> relations.get(name) == type)
                .sorted(Comparator.comparing(SchemaTableName::toString))
                .toList();
    }

    private static SchemaTableName nameOf(TableInfo table)
    {
        return new SchemaTableName(table.getSchemaName(), table.getTableName());
    }

    @Override
    public void createView(ConnectorSession session, SchemaTableName viewName, ConnectorViewDefinition definition, Map<String, Object> viewProperties, boolean replace)
    {
        checkName("schema", viewName.getSchemaName());
        checkName("view", viewName.getTableName());
        views.create(session, viewName, definition, replace);
    }

    @Override
    public void dropView(ConnectorSession session, SchemaTableName viewName)
    {
        client(session).dropView(viewName);
    }

    @Override
    public void renameView(ConnectorSession session, SchemaTableName source, SchemaTableName target)
    {
        checkName("schema", target.getSchemaName());
        checkName("view", target.getTableName());
        client(session).renameView(source, target);
    }

    @Override
    public void setViewComment(ConnectorSession session, SchemaTableName viewName, Optional<String> comment)
    {
        views.setComment(session, viewName, comment);
    }

    @Override
    public void setViewColumnComment(ConnectorSession session, SchemaTableName viewName, String columnName, Optional<String> comment)
    {
        views.setColumnComment(session, viewName, columnName, comment);
    }

    @Override
    public List<SchemaTableName> listViews(ConnectorSession session, Optional<String> schemaName)
    {
        return client.listViews(schemaName);
    }

    @Override
    public Map<SchemaTableName, ConnectorViewDefinition> getViews(ConnectorSession session, Optional<String> schemaName)
    {
        return views.getAll(schemaName);
    }

    @Override
    public Optional<ConnectorViewDefinition> getView(ConnectorSession session, SchemaTableName viewName)
    {
        if (isTable(viewName)) {
            return Optional.empty();
        }
        return views.get(viewName);
    }

    /**
     * Trino asks for a materialized view and a view of each name a query reads before it asks for
     * the table: tables, views and materialized views share one namespace (the metadata service
     * refuses a second relation of a name), so a table found says there is no view, and the
     * table it pins for the transaction is the one getTableHandle takes next. One call to the
     * metadata service per table read instead of three.
     */
    private boolean isTable(SchemaTableName name)
    {
        return plannedTables.pin(name).isPresent();
    }

    /** Materialized views: {@link NscMaterializedViews}; a refresh writes as an INSERT does and commits as an overwrite. */
    @Override
    public void createMaterializedView(ConnectorSession session, SchemaTableName viewName, ConnectorMaterializedViewDefinition definition, Map<String, Object> properties, boolean replace, boolean ignoreExisting)
    {
        checkName("schema", viewName.getSchemaName());
        checkName("materialized view", viewName.getTableName());
        materializedViews.create(session, viewName, definition, properties, replace, ignoreExisting);
    }

    @Override
    public void dropMaterializedView(ConnectorSession session, SchemaTableName viewName)
    {
        materializedViews.drop(session, viewName);
    }

    @Override
    public void renameMaterializedView(ConnectorSession session, SchemaTableName source, SchemaTableName target)
    {
        checkName("materialized view", target.getTableName());
        materializedViews.rename(session, source, target);
    }

    @Override
    public void setMaterializedViewColumnComment(ConnectorSession session, SchemaTableName viewName, String columnName, Optional<String> comment)
    {
        materializedViews.setColumnComment(session, viewName, columnName, comment);
    }

    @Override
    public List<SchemaTableName> listMaterializedViews(ConnectorSession session, Optional<String> schemaName)
    {
        return materializedViews.list(schemaName);
    }

    @Override
    public Map<SchemaTableName, ConnectorMaterializedViewDefinition> getMaterializedViews(ConnectorSession session, Optional<String> schemaName)
    {
        return materializedViews.getAll(schemaName);
    }

    @Override
    public Optional<ConnectorMaterializedViewDefinition> getMaterializedView(ConnectorSession session, SchemaTableName viewName)
    {
        if (isTable(viewName)) {
            return Optional.empty();
        }
        return materializedViews.get(viewName);
    }

    @Override
    public Map<String, Object> getMaterializedViewProperties(ConnectorSession session, SchemaTableName viewName, ConnectorMaterializedViewDefinition definition)
    {
        return materializedViews.properties(session, viewName, definition);
    }

    @Override
    public MaterializedViewFreshness getMaterializedViewFreshness(ConnectorSession session, SchemaTableName viewName)
    {
        return materializedViews.freshness(viewName);
    }

    /** Trino plans the refresh's query and writes into the storage table; the connector only commits it. */
    @Override
    public boolean delegateMaterializedViewRefreshToConnector(ConnectorSession session, SchemaTableName viewName)
    {
        return false;
    }

    @Override
    public ConnectorInsertTableHandle beginRefreshMaterializedView(ConnectorSession session, ConnectorTableHandle tableHandle, List<ConnectorTableHandle> sourceTableHandles, RetryMode retryMode, RefreshType refreshType)
    {
        NscTableHandle storageTable = (NscTableHandle) tableHandle;
        return writes.beginInsert(storageTable, ImmutableList.copyOf(storageTable.columns()), retryMode);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishRefreshMaterializedView(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            ConnectorInsertTableHandle insertHandle,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics,
            List<ConnectorTableHandle> sourceTableHandles,
            List<String> sourceTableFunctions)
    {
        materializedViews.finishRefresh(session, (NscTableHandle) tableHandle, insertHandle, fragments, sourceTableHandles);
        return Optional.empty();
    }

    /** What {@link NscMaterializedViews} needs of the tables: the checks of CREATE TABLE, properties, and the refresh's commit. */
    private final class StorageTables
            implements NscMaterializedViews.StorageTables
    {
        @Override
        public void create(ConnectorSession session, ConnectorTableMetadata table)
        {
            createTable(session, table, SaveMode.FAIL);
        }

        @Override
        public Optional<Map<String, Object>> properties(ConnectorSession session, SchemaTableName table)
        {
            return client.getTable(table).map(info -> NscTableProperties.fromStored(table.toString(), toTableHandle(info).properties()));
        }

        @Override
        public boolean overwrite(ConnectorSession session, ConnectorTableHandle storageTable, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments, MaterializedViewRefresh view)
        {
            return writes.commitRefresh(session, storageTable, insertHandle, fragments, view);
        }
    }

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle table, Constraint constraint)
    {
        return pushdown.applyFilter(session, table, constraint);
    }

    @Override
    public Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(
            ConnectorSession session,
            ConnectorTableHandle table,
            List<ConnectorExpression> projections,
            Map<String, ColumnHandle> assignments)
    {
        return pushdown.applyProjection(session, table, projections, assignments);
    }

    @Override
    public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(ConnectorSession session, ConnectorTableHandle table, long limit)
    {
        return pushdown.applyLimit(session, table, limit);
    }

    @Override
    public Optional<AggregationApplicationResult<ConnectorTableHandle>> applyAggregation(
            ConnectorSession session,
            ConnectorTableHandle table,
            List<AggregateFunction> aggregates,
            Map<String, ColumnHandle> assignments,
            List<List<ColumnHandle>> groupingSets)
    {
        return pushdown.applyAggregation(session, table, aggregates, assignments, groupingSets);
    }

    @Override
    public Optional<TopNApplicationResult<ConnectorTableHandle>> applyTopN(
            ConnectorSession session,
            ConnectorTableHandle table,
            long topNCount,
            List<SortItem> sortItems,
            Map<String, ColumnHandle> assignments)
    {
        return pushdown.applyTopN(session, table, topNCount, sortItems, assignments);
    }

    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle table)
    {
        NscTableHandle handle = (NscTableHandle) table;
        if (handle.aggregation().isPresent()) {
            // groups, not rows: the inputs' statistics would mislead the optimizer
            return TableStatistics.empty();
        }
        if (ConstrainedTableStatistics.unconstrained(handle)) {
            return wholeTableStatistics(session, handle);
        }
        // planning asks for a scan's statistics many times: its files are read once per transaction
        ConstrainedScan scan = new ConstrainedScan(handle.tableId(), handle.version(), handle.constraint(), handle.constraintEnforced(), handle.filterExpressions(), handle.limit());
        return constrainedStatistics.computeIfAbsent(scan, _ -> {
            try (TableFileBatches files = tableFilesCache.fileBatches(handle)) {
                return ConstrainedTableStatistics.constrain(wholeTableStatistics(session, handle), handle, files);
            }
        });
    }

    private TableStatistics wholeTableStatistics(ConnectorSession session, NscTableHandle handle)
    {
        return NscTableStatistics.compute(handle.columns(), tableFilesCache.summary(handle), handle.version(), analyzedColumns(session, handle.tableId()));
    }

    private record ConstrainedScan(long tableId, long version, TupleDomain<NscColumnHandle> constraint, boolean constraintEnforced, List<String> filterExpressions, OptionalLong limit) {}

    /** What ANALYZE stored for the table, by column ordinal: read once per transaction (planning asks for statistics many times). */
    private Map<Integer, AnalyzedColumn> analyzedColumns(ConnectorSession session, long tableId)
    {
        return analyzedColumns.computeIfAbsent(tableId, _ -> client(session).getColumnStatistics(tableId).stream()
                .collect(toImmutableMap(AnalyzedColumn::getOrdinal, column -> column)));
    }

    @Override
    public ConnectorAnalyzeMetadata getStatisticsCollectionMetadata(ConnectorSession session, ConnectorTableHandle tableHandle, Map<String, Object> analyzeProperties)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        return new ConnectorAnalyzeMetadata(handle, NscAnalyze.statisticsToCollect(handle, NscAnalyzeProperties.getColumns(analyzeProperties)));
    }

    @Override
    public ConnectorTableHandle beginStatisticsCollection(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        // the scan reads the handle's version: the statistics are stored as that version's
        return tableHandle;
    }

    @Override
    public void finishStatisticsCollection(ConnectorSession session, ConnectorTableHandle tableHandle, Collection<ComputedStatistics> computedStatistics)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        NscAnalyze.Result result = NscAnalyze.result(handle, computedStatistics);
        int stored = client(session).setColumnStatistics(handle.schemaTableName(), handle.tableId(), handle.version(), result.rowCount(), result.columns());
        analyzedColumns.remove(handle.tableId());
        log.info("ANALYZE of %s at version %s: %s rows, statistics of %s of %s columns stored", handle.schemaTableName(), handle.version(), result.rowCount(), stored, result.columns().size());
    }

    @Override
    public Optional<Type> getSupportedType(ConnectorSession session, Map<String, Object> tableProperties, Type type)
    {
        return WriteTypes.storedType(type);
    }

    @Override
    public void createSchema(ConnectorSession session, String schemaName, Map<String, Object> properties, TrinoPrincipal owner)
    {
        checkName("schema", schemaName);
        client(session).createSchema(schemaName);
    }

    @Override
    public void dropSchema(ConnectorSession session, String schemaName, boolean cascade)
    {
        client(session).dropSchema(schemaName, cascade);
        plannedTables.unpinSchema(schemaName);
    }

    @Override
    public void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        writes.createTable(session, tableMetadata, saveMode);
    }

    @Override
    public ConnectorOutputTableHandle beginCreateTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, Optional<ConnectorTableLayout> layout, RetryMode retryMode, boolean replace)
    {
        return writes.beginCreateTable(tableMetadata, retryMode, replace);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishCreateTable(ConnectorSession session, ConnectorOutputTableHandle tableHandle, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        writes.finishCreateTable(session, tableHandle, fragments);
        return Optional.empty();
    }

    @Override
    public ConnectorInsertTableHandle beginInsert(ConnectorSession session, ConnectorTableHandle tableHandle, List<ColumnHandle> columns, RetryMode retryMode)
    {
        return writes.beginInsert(tableHandle, columns, retryMode);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishInsert(
            ConnectorSession session,
            ConnectorInsertTableHandle insertHandle,
            List<ConnectorTableHandle> sourceTableHandles,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics)
    {
        writes.finishInsert(session, insertHandle, fragments);
        return Optional.empty();
    }

    @Override
    public void truncateTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        rowChanges.truncateTable(session, tableHandle);
    }

    @Override
    public Optional<ConnectorTableHandle> applyDelete(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return rowChanges.applyDelete(tableHandle);
    }

    @Override
    public OptionalLong executeDelete(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return rowChanges.executeDelete(session, tableHandle);
    }

    @Override
    public ColumnHandle getMergeRowIdColumnHandle(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return rowChanges.getMergeRowIdColumnHandle();
    }

    @Override
    public RowChangeParadigm getRowChangeParadigm(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return rowChanges.getRowChangeParadigm();
    }

    @Override
    public Optional<ConnectorPartitioningHandle> getUpdateLayout(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return rowChanges.getUpdateLayout();
    }

    @Override
    public ConnectorMergeTableHandle beginMerge(ConnectorSession session, ConnectorTableHandle tableHandle, Map<Integer, Collection<ColumnHandle>> updateCaseColumns, RetryMode retryMode)
    {
        return rowChanges.beginMerge(tableHandle, retryMode);
    }

    @Override
    public void finishMerge(ConnectorSession session, ConnectorMergeTableHandle mergeTableHandle, List<ConnectorTableHandle> sourceTableHandles, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        rowChanges.finishMerge(session, mergeTableHandle, fragments);
    }

    /** {@code ALTER TABLE ... EXECUTE optimize}: see {@link NscOptimize}. */
    @Override
    public Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(
            ConnectorSession session,
            ConnectorAccessControl accessControl,
            ConnectorTableHandle tableHandle,
            String procedureName,
            Map<String, Object> executeProperties,
            RetryMode retryMode)
    {
        return optimize.getTableHandleForExecute(tableHandle, procedureName, executeProperties, retryMode);
    }

    @Override
    public BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, ConnectorTableHandle updatedSourceTableHandle)
    {
        return optimize.beginTableExecute(tableExecuteHandle, updatedSourceTableHandle);
    }

    @Override
    public void finishTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Collection<Slice> fragments, List<Object> splitSourceInfo)
    {
        optimize.finishTableExecute(session, tableExecuteHandle, fragments, splitSourceInfo);
    }

    @Override
    public void renameSchema(ConnectorSession session, String source, String target)
    {
        checkName("schema", target);
        client(session).renameSchema(source, target);
        plannedTables.unpinSchema(source);
        plannedTables.unpinSchema(target);
    }

    @Override
    public void renameTable(ConnectorSession session, ConnectorTableHandle tableHandle, SchemaTableName newTableName)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        checkName("schema", newTableName.getSchemaName());
        checkName("table", newTableName.getTableName());
        client(session).renameTable(handle.schemaTableName(), newTableName);
        plannedTables.unpin(handle.schemaTableName());
        plannedTables.unpin(newTableName);
    }

    @Override
    public void setTableComment(ConnectorSession session, ConnectorTableHandle tableHandle, Optional<String> comment)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).setComment(handle.schemaTableName(), Optional.empty(), comment);
        plannedTables.unpin(handle.schemaTableName());
    }

    @Override
    public void setColumnComment(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, Optional<String> comment)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).setComment(handle.schemaTableName(), Optional.of(((NscColumnHandle) column).name()), comment);
        plannedTables.unpin(handle.schemaTableName());
    }

    @Override
    public void addColumn(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnMetadata column, ColumnPosition position)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        switch (position) {
            case ColumnPosition.First _ -> throw new TrinoException(NOT_SUPPORTED, "This connector does not support adding columns with FIRST clause");
            case ColumnPosition.After _ -> throw new TrinoException(NOT_SUPPORTED, "This connector does not support adding columns with AFTER clause");
            case ColumnPosition.Last _ -> {}
        }
        checkName("column", column.getName());
        WriteTypes.checkSupported(column.getType());
        Column.Builder added = Column.newBuilder()
                .setName(column.getName())
                .setType(column.getType().getTypeSignature().toString());
        Optional.ofNullable(column.getComment()).ifPresent(added::setComment);
        alterColumn(session, handle, AlterColumnRequest.newBuilder().setAddColumn(added), Optional.empty());
    }

    @Override
    public void setTableProperties(ConnectorSession session, ConnectorTableHandle tableHandle, Map<String, Optional<Object>> properties)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        // the table this statement planned, not another created under its name since
        client(session).setTableProperties(handle.schemaTableName(), handle.tableId(), NscTableProperties.setProperties(handle.properties(), properties));
        plannedTables.unpin(handle.schemaTableName());
    }

    @Override
    public void renameColumn(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle source, String target)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        String name = ((NscColumnHandle) source).name();
        checkName("column", target);
        // the properties that name the column follow it, in the same transaction
        Map<String, String> properties = NscTableProperties.renameColumn(handle.properties(), name, target);
        alterColumn(
                session,
                handle,
                AlterColumnRequest.newBuilder().setRenameColumn(RenameColumn.newBuilder().setName(name).setNewName(target)),
                properties.equals(handle.properties()) ? Optional.empty() : Optional.of(properties));
    }

    @Override
    public void dropColumn(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        String name = ((NscColumnHandle) column).name();
        // files stay sorted by it, but no property names a column the table no longer has
        Map<String, String> properties = NscTableProperties.dropColumn(handle.properties(), name);
        alterColumn(
                session,
                handle,
                AlterColumnRequest.newBuilder().setDropColumn(name),
                properties.equals(handle.properties()) ? Optional.empty() : Optional.of(properties));
    }

    /**
     * ALTER COLUMN ... SET DATA TYPE, for the widenings {@link TypeWidening} allows: files keep
     * the old type's values, which every reader widens as it decodes (trino-parquet reads an INT32
     * column as bigint, a FLOAT one as double, a decimal as a wider one of its scale), and new
     * files are written in the new type. The stats keys of the old and new types are the same
     * for every value both hold, so pruning reads old files' stats as they are; a Bloom filter
     * over another Parquet type is never asked.
     */
    @Override
    public void setColumnType(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, Type type)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        NscColumnHandle columnHandle = (NscColumnHandle) column;
        String from = columnHandle.type().getTypeSignature().toString();
        String to = type.getTypeSignature().toString();
        if (!TypeWidening.isWidening(from, to)) {
            throw new TrinoException(NOT_SUPPORTED, "Cannot change type from %s to %s".formatted(columnHandle.type(), type));
        }
        alterColumn(
                session,
                handle,
                AlterColumnRequest.newBuilder().setSetColumnType(SetColumnType.newBuilder().setName(columnHandle.name()).setNewType(to)),
                Optional.empty());
    }

    private void alterColumn(ConnectorSession session, NscTableHandle handle, AlterColumnRequest.Builder change, Optional<Map<String, String>> properties)
    {
        // the table this statement planned, not another created under its name since
        client(session).alterColumn(handle.schemaTableName(), handle.tableId(), change, properties);
        tableFilesCache.invalidate(handle.tableId());
        plannedTables.unpin(handle.schemaTableName());
    }

    @Override
    public void dropTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).dropTable(handle.schemaTableName());
        tableFilesCache.invalidate(handle.tableId());
        plannedTables.unpin(handle.schemaTableName());
    }

    private NscTableHandle toTableHandle(TableInfo table)
    {
        ImmutableList.Builder<NscColumnHandle> columns = ImmutableList.builder();
        for (int ordinal = 0; ordinal < table.getColumnsCount(); ordinal++) {
            // a dropped column keeps its place in the files, never a handle
            if (!table.getColumns(ordinal).getDropped()) {
                columns.add(NscColumnHandle.fromStored(typeManager, table, ordinal));
            }
        }
        return NscTableHandle.forTable(
                new SchemaTableName(table.getSchemaName(), table.getTableName()),
                table.getTableId(),
                table.getVersion(),
                columns.build(),
                table.getPropertiesMap());
    }

    private static List<ColumnMetadata> toColumnMetadata(List<NscColumnHandle> columns, TableInfo table)
    {
        return columns.stream().map(column -> toColumnMetadata(column, table)).collect(toImmutableList());
    }

    private static ColumnMetadata toColumnMetadata(NscColumnHandle column, TableInfo table)
    {
        Column stored = table.getColumns(column.ordinal());
        return ColumnMetadata.builderFrom(column.toColumnMetadata())
                .setComment(stored.hasComment() ? Optional.of(stored.getComment()) : Optional.empty())
                .build();
    }
}
