package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Iterators;
import com.google.common.collect.Sets;
import com.google.common.collect.Streams;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.units.DataSize;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.catalog.TypeWidening;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.RenameColumn;
import io.nsc.protocol.proto.SetColumnType;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.NscAnalyzeProperties;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.delete.MetadataOnlyDelete;
import io.nsc.trino.delete.NscDeletePartitioningHandle;
import io.nsc.trino.delete.NscMergeFragment;
import io.nsc.trino.delete.NscMergeTableHandle;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.optimize.CompactionCandidates;
import io.nsc.trino.optimize.CompactionCandidates.Compaction;
import io.nsc.trino.optimize.NscOptimizeHandle;
import io.nsc.trino.optimize.NscTableProcedureId;
import io.nsc.trino.optimize.OptimizeTableProcedure;
import io.nsc.trino.write.FileSlot;
import io.nsc.trino.write.NscInsertTableHandle;
import io.nsc.trino.write.NscOutputTableHandle;
import io.nsc.trino.write.NscWritableTable;
import io.nsc.trino.write.NscWriteFragment;
import io.nsc.trino.write.NscWriterSettings;
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

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.protocol.catalog.NameRules.problem;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.NscErrorCode.NSC_UNSUPPORTED_TYPE;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.spi.connector.RetryMode.NO_RETRIES;
import static java.util.Objects.requireNonNull;

/**
 * The metadata of one transaction (see {@link NscMetadataFactory}): the first reference to a
 * table pins the version the metadata service names current then, and every later reference in
 * the transaction gets that same version, so a query never reads two versions of one table (a
 * self-join, a subquery) whatever commits land while it is planned. The version travels in the
 * table handle to every file listing of the query: splits, statistics and pushdown decisions. A
 * write through this transaction unpins its table, so that the transaction reads what it wrote.
 */
public class NscMetadata
        implements ConnectorMetadata
{
    private static final Logger log = Logger.get(NscMetadata.class);

    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final TableFilesCache tableFilesCache;
    private final ParquetWriteCodec defaultCompressionCodec;
    private final Map<SchemaTableName, TableInfo> plannedTables = new ConcurrentHashMap<>();
    private final Map<Long, Map<Integer, AnalyzedColumn>> analyzedColumns = new ConcurrentHashMap<>();
    private final NscViews views;
    private final NscMaterializedViews materializedViews;
    private final NscPushdown pushdown;

    /**
     * @param defaultCompressionCodec what writes into tables that set no compression_codec use
     */
    public NscMetadata(NscMetadataClient client, TypeManager typeManager, TableFilesCache tableFilesCache, ParquetWriteCodec defaultCompressionCodec, CatalogName catalogName)
    {
        this.defaultCompressionCodec = requireNonNull(defaultCompressionCodec, "defaultCompressionCodec is null");
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
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
        TableInfo planned = plannedTables.get(tableName);
        if (planned == null) {
            Optional<TableInfo> current = client.getTable(tableName);
            if (current.isEmpty()) {
                // not pinned: a table created later in this transaction is found then
                return null;
            }
            planned = plannedTables.computeIfAbsent(tableName, _ -> current.get());
        }
        return toTableHandle(planned);
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
        TableInfo info = tableInfo(handle);
        return new ConnectorTableMetadata(
                handle.schemaTableName(),
                toColumnMetadata(handle.columns(), info),
                NscTableProperties.fromStored(handle.schemaTableName().toString(), handle.properties()),
                info.hasComment() ? Optional.of(info.getComment()) : Optional.empty());
    }

    /** The table as the handle's transaction planned it: comments are read from it, not from the handle. */
    private TableInfo tableInfo(NscTableHandle handle)
    {
        TableInfo planned = plannedTables.get(handle.schemaTableName());
        if (planned != null && planned.getTableId() == handle.tableId()) {
            return planned;
        }
        return client.getTable(handle.schemaTableName())
                .filter(table -> table.getTableId() == handle.tableId())
                .orElseThrow(() -> new TableNotFoundException(handle.schemaTableName()));
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
            case NscColumnHandle nscColumn -> toColumnMetadata(nscColumn, tableInfo((NscTableHandle) table));
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
        return views.get(viewName);
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
        return beginInsert(session, storageTable, ImmutableList.copyOf(storageTable.columns()), retryMode);
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

        /**
         * Every file of the version the refresh read leaves, the refresh's files enter, and the
         * view records what the refresh read: one metadata transaction, one new version.
         */
        @Override
        public boolean overwrite(ConnectorSession session, ConnectorTableHandle storageTable, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments, MaterializedViewRefresh view)
        {
            NscTableHandle table = (NscTableHandle) storageTable;
            List<String> oldFiles;
            try (TableFileBatches files = tableFilesCache.fileBatches(table)) {
                oldFiles = Streams.stream(files).flatMap(List::stream).map(TableFiles.FileEntry::fileId).collect(toImmutableList());
            }
            List<DataFile> newFiles = toDataFiles(fragments);
            if (oldFiles.isEmpty() && newFiles.isEmpty()) {
                return false;
            }
            CommitFilesRequest.Builder request = CommitFilesRequest.newBuilder()
                    .setSchemaName(table.schemaTableName().getSchemaName())
                    .setTableName(table.schemaTableName().getTableName())
                    .addAllColumns(toFileColumns((NscInsertTableHandle) insertHandle))
                    .setCreateTable(false)
                    // the table the refresh began on, not another one created under its name since
                    .setExpectedTableId(table.tableId())
                    .addAllFiles(newFiles)
                    .setMaterializedView(view);
            if (!oldFiles.isEmpty()) {
                request.setRemovals(FileRemovals.newBuilder()
                        .setReadVersion(table.version())
                        .addAllRemovedFileIds(oldFiles)
                        .addAllInsertedFileIds(newFiles.stream().map(DataFile::getFileId).collect(toImmutableList())));
            }
            CommitFilesResponse response;
            try {
                response = client(session).commitFiles(request.build());
            }
            finally {
                tableFilesCache.invalidate(table.tableId());
                plannedTables.remove(table.schemaTableName());
            }
            if (!response.hasViewVersion()) {
                // a service of an earlier release ignores what it does not know: the caller records the view itself
                log.warn("The metadata service committed the refresh of materialized view %s.%s without recording it in the view: it is of a release that records a refresh in a second transaction",
                        table.schemaTableName().getSchemaName(), view.getViewName());
            }
            return response.hasViewVersion();
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
        return NscTableStatistics.compute(handle.columns(), tableFilesCache.summary(handle), handle.version(), analyzedColumns(session, handle.tableId()));
    }

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
        plannedTables.keySet().removeIf(table -> table.getSchemaName().equals(schemaName));
    }

    @Override
    public void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        NewTable table = checkNewTable(tableMetadata);
        client(session).createTable(table.name(), table.protoColumns(), table.storedProperties(), table.comment(), saveMode);
        plannedTables.remove(table.name());
    }

    @Override
    public ConnectorOutputTableHandle beginCreateTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, Optional<ConnectorTableLayout> layout, RetryMode retryMode, boolean replace)
    {
        checkNoRetries(retryMode);
        NewTable table = checkNewTable(tableMetadata);
        // Trino's CREATE TABLE AS has no syntax for column comments; were one to come, it must not be lost
        if (table.columnComments().stream().anyMatch(Optional::isPresent)) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support creating tables with column comment");
        }
        // checked again, atomically, by the commit (must_create); here so that nothing is written in vain
        if (!client.listSchemas().contains(table.name().getSchemaName())) {
            throw NscMetadataClient.schemaNotFound(table.name().getSchemaName(), null);
        }
        if (!replace && client.getTable(table.name()).isPresent()) {
            throw new TrinoException(TABLE_ALREADY_EXISTS, "Table '%s' already exists".formatted(table.name()));
        }
        return new NscOutputTableHandle(table.name(), table.columns(), table.settings(), table.storedProperties(), table.comment(), replace);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishCreateTable(ConnectorSession session, ConnectorOutputTableHandle tableHandle, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        NscOutputTableHandle handle = (NscOutputTableHandle) tableHandle;
        // one transaction creates the table with every file of the statement; no files is a valid (empty) table
        CommitFilesRequest.Builder commit = CommitFilesRequest.newBuilder()
                .setSchemaName(handle.schemaTableName().getSchemaName())
                .setTableName(handle.schemaTableName().getTableName())
                .addAllColumns(toProtoColumns(handle.columns(), List.of()))
                .setCreateTable(true)
                .setMustCreate(true)
                // OR REPLACE: the table it replaces is dropped in the same transaction
                .setReplace(handle.replace())
                .putAllTableProperties(handle.tableProperties())
                .addAllFiles(toDataFiles(fragments));
        handle.comment().ifPresent(commit::setTableComment);
        client(session).commitFiles(commit.build());
        plannedTables.remove(handle.schemaTableName());
        return Optional.empty();
    }

    @Override
    public ConnectorInsertTableHandle beginInsert(ConnectorSession session, ConnectorTableHandle tableHandle, List<ColumnHandle> columns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        NscTableHandle table = (NscTableHandle) tableHandle;
        // pages arrive with one channel per column in the order given; files must have the table's order
        if (!columns.equals(table.columns())) {
            throw new TrinoException(NOT_SUPPORTED, "nsc inserts need every column of %s in table order, got %s".formatted(table.schemaTableName(), columns));
        }
        for (NscColumnHandle column : table.columns()) {
            WriteTypes.checkSupported(column.type());
        }
        return insertHandle(table, writerSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties())));
    }

    /** How a write into the table version writes its files: every live column in table order, NULL in the dropped ones' slots. */
    private NscInsertTableHandle insertHandle(NscTableHandle table, NscWriterSettings settings)
    {
        TableInfo info = tableInfo(table);
        ImmutableList.Builder<NscColumnHandle> dropped = ImmutableList.builder();
        for (int ordinal = 0; ordinal < info.getColumnsCount(); ordinal++) {
            Column column = info.getColumns(ordinal);
            if (column.getDropped()) {
                dropped.add(new NscColumnHandle(column.getName(), toType(info, column), ordinal));
            }
        }
        return new NscInsertTableHandle(table.schemaTableName(), table.tableId(), table.columns(), dropped.build(), settings);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishInsert(
            ConnectorSession session,
            ConnectorInsertTableHandle insertHandle,
            List<ConnectorTableHandle> sourceTableHandles,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics)
    {
        NscInsertTableHandle handle = (NscInsertTableHandle) insertHandle;
        if (fragments.isEmpty()) {
            // nothing written: a commit would only bump the table's version
            return Optional.empty();
        }
        try {
            client(session).commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName(handle.schemaTableName().getSchemaName())
                    .setTableName(handle.schemaTableName().getTableName())
                    .addAllColumns(toFileColumns(handle))
                    .setCreateTable(false)
                    // the table this INSERT began on, not another one created under its name since
                    .setExpectedTableId(handle.tableId())
                    .addAllFiles(toDataFiles(fragments))
                    .build());
        }
        finally {
            tableFilesCache.invalidate(handle.tableId());
            plannedTables.remove(handle.schemaTableName());
        }
        return Optional.empty();
    }

    @Override
    public void truncateTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        // the table this statement planned, not another created under its name since
        client(session).truncateTable(handle.schemaTableName(), handle.tableId());
        tableFilesCache.invalidate(handle.tableId());
        plannedTables.remove(handle.schemaTableName());
    }

    /**
     * The metadata-only DELETE: Trino asks when the connector enforces the statement's whole
     * predicate. It is taken when the compact stats tell of every row group of the version that
     * it matches the predicate entirely or not at all; otherwise the row-level path reads the rows.
     */
    @Override
    public Optional<ConnectorTableHandle> applyDelete(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        if (handle.aggregation().isPresent() || handle.limit().isPresent() || handle.topN().isPresent()) {
            return Optional.empty();
        }
        if (!handle.constraintEnforced() && !handle.constraint().isAll()) {
            // a pruning hint: the rows it matches are Trino's to find
            return Optional.empty();
        }
        try (TableFileBatches files = tableFilesCache.fileBatches(handle)) {
            return new MetadataOnlyDelete(handle).plan(files).map(_ -> handle);
        }
    }

    @Override
    public OptionalLong executeDelete(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        NscMergeFragment delete;
        // the version applyDelete planned on: the same files, the same answer
        try (TableFileBatches files = tableFilesCache.fileBatches(handle)) {
            delete = new MetadataOnlyDelete(handle).plan(files)
                    .orElseThrow(() -> new TrinoException(GENERIC_INTERNAL_ERROR, "DELETE from %s planned as metadata-only, but version %s of its files needs rows read".formatted(handle.schemaTableName(), handle.version())));
        }
        if (delete.isEmpty()) {
            return OptionalLong.of(0);
        }
        // a DELETE that writes no file: the table's columns as they are
        return OptionalLong.of(commitDelete(session, handle, delete, tableInfo(handle).getColumnsList()).getRowsRemoved());
    }

    @Override
    public ColumnHandle getMergeRowIdColumnHandle(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return new NscRowIdColumnHandle();
    }

    /**
     * Files are immutable: an UPDATE or MERGE deletes the old row (its file rewritten or removed,
     * as a DELETE does) and inserts the new one (into new files, as an INSERT writes them), and
     * both are committed in one metadata transaction.
     */
    @Override
    public RowChangeParadigm getRowChangeParadigm(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return RowChangeParadigm.DELETE_ROW_AND_INSERT_ROW;
    }

    @Override
    public Optional<ConnectorPartitioningHandle> getUpdateLayout(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        return Optional.of(NscDeletePartitioningHandle.INSTANCE);
    }

    @Override
    public ConnectorMergeTableHandle beginMerge(ConnectorSession session, ConnectorTableHandle tableHandle, Map<Integer, Collection<ColumnHandle>> updateCaseColumns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        NscTableHandle table = (NscTableHandle) tableHandle;
        // live storage nodes are checked by the first file written, if any: a DELETE that only removes needs none
        NscWriterSettings settings = resolveWriterSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties()));
        return new NscMergeTableHandle(table, insertHandle(table, settings));
    }

    @Override
    public void finishMerge(ConnectorSession session, ConnectorMergeTableHandle mergeTableHandle, List<ConnectorTableHandle> sourceTableHandles, Collection<Slice> fragments, Collection<ComputedStatistics> computedStatistics)
    {
        NscMergeTableHandle handle = (NscMergeTableHandle) mergeTableHandle;
        NscMergeFragment changes = NscMergeFragment.combine(fragments.stream().map(NscMergeFragment::fromSlice).collect(toImmutableList()));
        if (changes.isEmpty()) {
            // no row matched and none was inserted: nothing to commit, and the version stays
            return;
        }
        // the files written have the columns the statement began with: a column change since fails the commit
        commitDelete(session, handle.table(), changes, toFileColumns(handle.rewrite()));
    }

    /**
     * One metadata transaction against the version the statement read: the removals, the
     * rewritten files' survivors and the inserted rows' files. A MERGE that only inserts commits
     * as an INSERT does.
     */
    private CommitFilesResponse commitDelete(ConnectorSession session, NscTableHandle table, NscMergeFragment changes, List<Column> fileColumns)
    {
        try {
            CommitFilesRequest.Builder request = CommitFilesRequest.newBuilder()
                    .setSchemaName(table.schemaTableName().getSchemaName())
                    .setTableName(table.schemaTableName().getTableName())
                    .addAllColumns(fileColumns)
                    .setCreateTable(false)
                    // the table this statement began on, not another one created under its name since
                    .setExpectedTableId(table.tableId())
                    .addAllFiles(changes.filesToAdd().stream().map(NscWriteFragment::toDataFile).collect(toImmutableList()));
            if (changes.removesFiles()) {
                request.setRemovals(changes.toRemovals(table.version()));
            }
            CommitFilesResponse response = client(session).commitFiles(request.build());
            log.info("Row changes in %s read version %s and committed version %s: %s files and %s row groups removed in the metadata, %s files rewritten into %s, %s rows deleted, %s files of inserted rows",
                    table.schemaTableName(), table.version(), response.getVersion(), response.getFilesRemoved(), response.getRowGroupsRemoved(),
                    response.getFilesRewritten(), changes.written().size(), response.getRowsRemoved(), changes.inserted().size());
            return response;
        }
        finally {
            tableFilesCache.invalidate(table.tableId());
            plannedTables.remove(table.schemaTableName());
        }
    }

    /** {@code ALTER TABLE ... EXECUTE optimize}: see {@link OptimizeTableProcedure}. */
    @Override
    public Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(
            ConnectorSession session,
            ConnectorAccessControl accessControl,
            ConnectorTableHandle tableHandle,
            String procedureName,
            Map<String, Object> executeProperties,
            RetryMode retryMode)
    {
        NscTableHandle table = (NscTableHandle) tableHandle;
        NscTableProcedureId procedure;
        try {
            procedure = NscTableProcedureId.valueOf(procedureName);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown table procedure: " + procedureName, e);
        }
        return switch (procedure) {
            case OPTIMIZE -> {
                checkNoRetries(retryMode);
                // the files are written again: a type nsc reads but does not write fails here, before anything is read
                for (NscColumnHandle column : table.columns()) {
                    WriteTypes.checkSupported(column.type());
                }
                long fileSizeThreshold = ((DataSize) executeProperties.get(OptimizeTableProcedure.FILE_SIZE_THRESHOLD)).toBytes();
                // the new files are written as an INSERT writes them: enough live storage nodes, or nothing is read
                NscWriterSettings settings = writerSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties()));
                yield Optional.of(new NscOptimizeHandle(table, fileSizeThreshold, insertHandle(table, settings)));
            }
        };
    }

    /**
     * The scan reads the files the OPTIMIZE rewrites, whole: a WHERE clause would leave rows of
     * them out of the new files, so it is refused. With nothing worth rewriting, it reads nothing.
     */
    @Override
    public BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, ConnectorTableHandle updatedSourceTableHandle)
    {
        NscOptimizeHandle optimize = (NscOptimizeHandle) tableExecuteHandle;
        NscTableHandle source = (NscTableHandle) updatedSourceTableHandle;
        if (!source.constraint().isAll() || !source.filterExpressions().isEmpty()) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support optimize with a WHERE clause: it rewrites whole files");
        }
        Compaction compaction = compaction(optimize);
        NscTableHandle scan = source.withOptimize(optimize.fileSizeThreshold());
        if (!compaction.isWorthDoing()) {
            scan = scan.withConstraint(TupleDomain.none(), true);
        }
        return new BeginTableExecuteResult<>(optimize, scan);
    }

    /**
     * One commit against the version the OPTIMIZE read: its files leave, the new ones enter, and
     * the metadata service checks that they hold the same rows; a commit that changed one of
     * those files since fails it with TRANSACTION_CONFLICT. Nothing worth rewriting commits
     * nothing: the table keeps its version.
     */
    @Override
    public void finishTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Collection<Slice> fragments, List<Object> splitSourceInfo)
    {
        NscOptimizeHandle optimize = (NscOptimizeHandle) tableExecuteHandle;
        NscTableHandle table = optimize.table();
        Compaction compaction = compaction(optimize);
        List<NscWriteFragment> written = fragments.stream().map(NscWriteFragment::fromSlice).collect(toImmutableList());
        if (!compaction.isWorthDoing()) {
            checkState(written.isEmpty(), "OPTIMIZE of %s had nothing to rewrite, but wrote %s files", table.schemaTableName(), written.size());
            return;
        }
        // the files the scan listed, as its split source reported them: the same, or the new files hold other rows
        if (!ImmutableSet.copyOf(splitSourceInfo).equals(ImmutableSet.copyOf(compaction.fileIds()))) {
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "OPTIMIZE of %s read %s files of version %s, but planned to rewrite %s".formatted(
                    table.schemaTableName(), splitSourceInfo.size(), table.version(), compaction.fileIds().size()));
        }
        long rowsWritten = written.stream().mapToLong(NscWriteFragment::rowCount).sum();
        if (rowsWritten != compaction.rows()) {
            // never swap files for ones that lost or invented rows
            throw new TrinoException(NSC_BAD_DATA, "OPTIMIZE of %s read %s files of version %s holding %s rows, but wrote %s rows".formatted(
                    table.schemaTableName(), compaction.fileIds().size(), table.version(), compaction.rows(), rowsWritten));
        }
        try {
            CommitFilesResponse response = client(session).commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName(table.schemaTableName().getSchemaName())
                    .setTableName(table.schemaTableName().getTableName())
                    .addAllColumns(toFileColumns(optimize.rewrite()))
                    .setCreateTable(false)
                    // the table this statement began on, not another one created under its name since
                    .setExpectedTableId(table.tableId())
                    .addAllFiles(written.stream().map(NscWriteFragment::toDataFile).collect(toImmutableList()))
                    .setRemovals(FileRemovals.newBuilder()
                            .setReadVersion(table.version())
                            .addAllRewrittenFileIds(compaction.fileIds())
                            .setOptimize(true))
                    .build());
            log.info("OPTIMIZE of %s read version %s and committed version %s: %s files rewritten into %s, %s rows",
                    table.schemaTableName(), table.version(), response.getVersion(), response.getFilesRewritten(), written.size(), rowsWritten);
        }
        finally {
            tableFilesCache.invalidate(table.tableId());
            plannedTables.remove(table.schemaTableName());
        }
    }

    private Compaction compaction(NscOptimizeHandle optimize)
    {
        try (TableFileBatches files = tableFilesCache.fileBatches(optimize.table())) {
            return CompactionCandidates.plan(files, optimize.fileSizeThreshold());
        }
    }

    @Override
    public void renameSchema(ConnectorSession session, String source, String target)
    {
        checkName("schema", target);
        client(session).renameSchema(source, target);
        plannedTables.keySet().removeIf(table -> table.getSchemaName().equals(source) || table.getSchemaName().equals(target));
    }

    @Override
    public void renameTable(ConnectorSession session, ConnectorTableHandle tableHandle, SchemaTableName newTableName)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        checkName("schema", newTableName.getSchemaName());
        checkName("table", newTableName.getTableName());
        client(session).renameTable(handle.schemaTableName(), newTableName);
        plannedTables.remove(handle.schemaTableName());
        plannedTables.remove(newTableName);
    }

    @Override
    public void setTableComment(ConnectorSession session, ConnectorTableHandle tableHandle, Optional<String> comment)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).setComment(handle.schemaTableName(), Optional.empty(), comment);
        plannedTables.remove(handle.schemaTableName());
    }

    @Override
    public void setColumnComment(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, Optional<String> comment)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).setComment(handle.schemaTableName(), Optional.of(((NscColumnHandle) column).name()), comment);
        plannedTables.remove(handle.schemaTableName());
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
        plannedTables.remove(handle.schemaTableName());
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
        plannedTables.remove(handle.schemaTableName());
    }

    @Override
    public void dropTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        client(session).dropTable(handle.schemaTableName());
        tableFilesCache.invalidate(handle.tableId());
        plannedTables.remove(handle.schemaTableName());
    }

    /**
     * A table about to be created, checked: names, types and properties are all acceptable.
     *
     * @param columnComments the comment of each column, in column order
     */
    private record NewTable(
            SchemaTableName name,
            List<NscColumnHandle> columns,
            List<Optional<String>> columnComments,
            Optional<String> comment,
            NscWriterSettings settings,
            Map<String, String> storedProperties)
    {
        List<Column> protoColumns()
        {
            return toProtoColumns(columns, columnComments);
        }
    }

    private NewTable checkNewTable(ConnectorTableMetadata tableMetadata)
    {
        SchemaTableName name = tableMetadata.getTable();
        checkName("schema", name.getSchemaName());
        checkName("table", name.getTableName());
        ImmutableList.Builder<NscColumnHandle> columns = ImmutableList.builder();
        ImmutableList.Builder<Optional<String>> columnComments = ImmutableList.builder();
        List<ColumnMetadata> columnMetadata = tableMetadata.getColumns().stream().filter(column -> !column.isHidden()).collect(toImmutableList());
        for (int ordinal = 0; ordinal < columnMetadata.size(); ordinal++) {
            ColumnMetadata column = columnMetadata.get(ordinal);
            checkName("column", column.getName());
            WriteTypes.checkSupported(column.getType());
            columns.add(new NscColumnHandle(column.getName(), column.getType(), ordinal));
            columnComments.add(Optional.ofNullable(column.getComment()));
        }

        Map<String, Object> properties = tableMetadata.getProperties();
        NscTableProperties.checkSortedBy(NscTableProperties.getSortedBy(properties), columnMetadata.stream().map(ColumnMetadata::getName).collect(toImmutableList()));
        NscTableProperties.checkBloomFilterColumns(NscTableProperties.getBloomFilterColumns(properties), columnMetadata, NscTableProperties.getRowGroupSize(properties));
        return new NewTable(name, columns.build(), columnComments.build(), tableMetadata.getComment(), writerSettings(properties), NscTableProperties.toStored(properties));
    }

    /** How a write into a table with these properties writes its files; the properties must be valid, and enough storage nodes live. */
    private NscWriterSettings writerSettings(Map<String, Object> properties)
    {
        NscWriterSettings settings = resolveWriterSettings(properties);
        // the properties are valid; whether the cluster can take the write is checked last
        checkLiveNodes(settings.replication(), NscTableProperties.getReplication(properties).isEmpty());
        return settings;
    }

    private NscWriterSettings resolveWriterSettings(Map<String, Object> properties)
    {
        int replication = NscTableProperties.getReplication(properties).orElse(NscTableProperties.DEFAULT_REPLICATION);
        int minReplicas = NscTableProperties.resolveMinReplicas(properties, replication);
        // a DELETE's rewrite reads the table's properties too, so it keeps the table's codec
        ParquetWriteCodec compressionCodec = NscTableProperties.getCompressionCodec(properties).orElse(defaultCompressionCodec);
        return new NscWriterSettings(NscTableProperties.getSortedBy(properties), NscTableProperties.getRowGroupSize(properties), replication, minReplicas,
                ImmutableSet.copyOf(NscTableProperties.getBloomFilterColumns(properties)), compressionCodec);
    }

    /**
     * A write places every file on {@code replication} distinct live storage nodes: with fewer
     * live nodes it fails here, before anything is written. The replication is never lowered to
     * fit the cluster, the default no more than an explicit value: a table would silently hold
     * fewer copies than it says.
     *
     * @param isDefault the table does not set replication, so the connector's default applies
     */
    private void checkLiveNodes(int replication, boolean isDefault)
    {
        long live = client.listNodes().stream().filter(StorageNode::getAlive).count();
        if (replication > live) {
            throw new TrinoException(NSC_NOT_ENOUGH_STORAGE_NODES, "%s %s%s needs %s live storage nodes, but %s".formatted(
                    NscTableProperties.REPLICATION, replication, isDefault ? " (the default)" : "", replication, liveNodes(live)));
        }
    }

    private static String liveNodes(long live)
    {
        return switch ((int) live) {
            case 0 -> "no storage node is live";
            case 1 -> "only 1 is live";
            default -> "only %s are live".formatted(live);
        };
    }

    private static void checkNoRetries(RetryMode retryMode)
    {
        // a retried writer task would upload its files again under new ids, and both would be committed
        if (retryMode != NO_RETRIES) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support query retries");
        }
    }

    private static void checkName(String kind, String name)
    {
        problem(kind, name).ifPresent(problem -> {
            throw new TrinoException(NOT_SUPPORTED, problem);
        });
    }

    /**
     * @param comments each column's comment, or none at all for columns without comments
     */
    private static List<Column> toProtoColumns(List<NscColumnHandle> columns, List<Optional<String>> comments)
    {
        ImmutableList.Builder<Column> protoColumns = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            Column.Builder column = Column.newBuilder()
                    .setName(columns.get(i).name())
                    .setType(columns.get(i).type().getTypeSignature().toString());
            if (!comments.isEmpty()) {
                comments.get(i).ifPresent(column::setComment);
            }
            protoColumns.add(column.build());
        }
        return protoColumns.build();
    }

    /** Every slot of the table's files, dropped ones too: what the commit checks against the table. */
    private static List<Column> toFileColumns(NscWritableTable table)
    {
        return FileSlot.of(table).stream()
                .map(slot -> Column.newBuilder()
                        .setName(slot.column().name())
                        .setType(slot.column().type().getTypeSignature().toString())
                        .setDropped(slot.dropped())
                        .build())
                .collect(toImmutableList());
    }

    private static List<DataFile> toDataFiles(Collection<Slice> fragments)
    {
        return fragments.stream()
                .map(NscWriteFragment::fromSlice)
                .map(NscWriteFragment::toDataFile)
                .collect(toImmutableList());
    }

    private NscTableHandle toTableHandle(TableInfo table)
    {
        ImmutableList.Builder<NscColumnHandle> columns = ImmutableList.builder();
        for (int ordinal = 0; ordinal < table.getColumnsCount(); ordinal++) {
            Column column = table.getColumns(ordinal);
            // a dropped column keeps its place in the files, never a handle
            if (!column.getDropped()) {
                columns.add(new NscColumnHandle(column.getName(), toType(table, column), ordinal));
            }
        }
        return NscTableHandle.forTable(
                new SchemaTableName(table.getSchemaName(), table.getTableName()),
                table.getTableId(),
                table.getVersion(),
                columns.build(),
                table.getPropertiesMap());
    }

    private Type toType(TableInfo table, Column column)
    {
        try {
            return typeManager.fromSqlType(column.getType());
        }
        catch (RuntimeException e) {
            throw new TrinoException(NSC_UNSUPPORTED_TYPE, "Column %s of %s.%s has type %s, which this Trino does not know".formatted(
                    column.getName(), table.getSchemaName(), table.getTableName(), column.getType()), e);
        }
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
