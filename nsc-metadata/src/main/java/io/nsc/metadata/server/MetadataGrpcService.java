package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.backup.CatalogBackups;
import io.nsc.metadata.catalog.AllocationCatalog;
import io.nsc.metadata.catalog.ClusterCatalog;
import io.nsc.metadata.catalog.ColumnChange;
import io.nsc.metadata.catalog.CommitCatalog;
import io.nsc.metadata.catalog.CommitRequest;
import io.nsc.metadata.catalog.CommitResult;
import io.nsc.metadata.catalog.CreateTableResult;
import io.nsc.metadata.catalog.DroppedTable;
import io.nsc.metadata.catalog.FileEntry;
import io.nsc.metadata.catalog.RemovalCounts;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableColumn;
import io.nsc.metadata.catalog.TableEntry;
import io.nsc.metadata.catalog.TableFilesPage;
import io.nsc.metadata.catalog.TableHistory;
import io.nsc.metadata.catalog.StatisticsCatalog;
import io.nsc.metadata.catalog.ViewCatalog;
import io.nsc.metadata.catalog.ViewEntry;
import io.nsc.metadata.catalog.ViewRefresh;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.metadata.placement.FileAllocator;
import io.nsc.metadata.repair.ReplicationMonitor;
import io.nsc.metadata.placement.FileAllocator.FileAllocationResult;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AlterColumnResponse;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateSchemaResponse;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.CreateViewRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.DrainNodeRequest;
import io.nsc.protocol.proto.DrainNodeResponse;
import io.nsc.protocol.proto.DropSchemaRequest;
import io.nsc.protocol.proto.DropSchemaResponse;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.DropTableResponse;
import io.nsc.protocol.proto.DropViewRequest;
import io.nsc.protocol.proto.DropViewResponse;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.FindOrphansResponse;
import io.nsc.protocol.proto.GetReplicationStatusRequest;
import io.nsc.protocol.proto.GetReplicationStatusResponse;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.GetViewRequest;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListNodesResponse;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListSchemasResponse;
import io.nsc.protocol.proto.ListTableVersionsRequest;
import io.nsc.protocol.proto.ListTableVersionsResponse;
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.ListTablesResponse;
import io.nsc.protocol.proto.ListViewsRequest;
import io.nsc.protocol.proto.ListViewsResponse;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RemovedRowGroups;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.proto.RenameSchemaRequest;
import io.nsc.protocol.proto.RenameSchemaResponse;
import io.nsc.protocol.proto.RenameTableRequest;
import io.nsc.protocol.proto.RenameTableResponse;
import io.nsc.protocol.proto.RenameViewRequest;
import io.nsc.protocol.proto.RenameViewResponse;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.nsc.protocol.proto.GetColumnStatisticsRequest;
import io.nsc.protocol.proto.GetColumnStatisticsResponse;
import io.nsc.protocol.proto.SetColumnStatisticsRequest;
import io.nsc.protocol.proto.SetColumnStatisticsResponse;
import io.nsc.protocol.proto.SetCommentRequest;
import io.nsc.protocol.proto.SetCommentResponse;
import io.nsc.protocol.proto.SetTablePropertiesRequest;
import io.nsc.protocol.proto.SetTablePropertiesResponse;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import io.nsc.protocol.proto.TableVersion;
import io.nsc.protocol.proto.TruncateTableRequest;
import io.nsc.protocol.proto.TruncateTableResponse;
import io.nsc.protocol.proto.UpdateViewRequest;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.metadata.security.CatalogAuditLog;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.PeerAuthentication;
import io.nsc.protocol.security.TransportSecurity;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;

import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.protocol.security.ComponentRole.CLIENT;
import static io.nsc.protocol.security.ComponentRole.METADATA;
import static io.nsc.protocol.security.ComponentRole.STORAGE;
import static java.util.Objects.requireNonNull;

/**
 * The gRPC face of the metadata service: translates between protobuf messages and the catalog,
 * placement and membership components, and turns failures into gRPC statuses.
 */
public final class MetadataGrpcService
        extends MetadataServiceGrpc.MetadataServiceImplBase
{
    /** Clients read and change the catalog; storage nodes only speak for themselves. */
    public static final AccessPolicy ACCESS_POLICY = AccessPolicy.builder()
            .allow(MetadataServiceGrpc.getListSchemasMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getListTablesMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getGetTableMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getListTableVersionsMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getListTableDefinitionsMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getGetTableFilesMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getListNodesMethod(), CLIENT, METADATA)
            .allow(MetadataServiceGrpc.getCreateSchemaMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getCreateTableMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getDropTableMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getDropSchemaMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getSetCommentMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getSetTablePropertiesMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getAlterColumnMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getSetColumnStatisticsMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getGetColumnStatisticsMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getRenameTableMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getRenameSchemaMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getTruncateTableMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getAllocateFilesMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getCommitFilesMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getReplaceReplicaMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getRegisterNodeMethod(), STORAGE)
            .allow(MetadataServiceGrpc.getHeartbeatMethod(), STORAGE)
            .allow(MetadataServiceGrpc.getFindOrphansMethod(), STORAGE)
            .allow(MetadataServiceGrpc.getDrainNodeMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getGetReplicationStatusMethod(), CLIENT, METADATA)
            .allow(MetadataServiceGrpc.getBackupCatalogMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getCreateViewMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getUpdateViewMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getGetViewMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getListViewsMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getDropViewMethod(), CLIENT)
            .allow(MetadataServiceGrpc.getRenameViewMethod(), CLIENT)
            .requireComplete(MetadataServiceGrpc.getServiceDescriptor())
            .build();

    private static final Logger log = Logger.get(MetadataGrpcService.class);

    // its limits are the protocol's (nsc.proto: ListTableDefinitionsRequest), no setting
    private static final TableDefinitionsPaging TABLE_DEFINITIONS_PAGING = new TableDefinitionsPaging();

    private final TableCatalog tables;
    private final TableHistory history;
    private final ViewCatalog views;
    private final StatisticsCatalog statistics;
    private final CommitCatalog commits;
    private final AllocationCatalog allocations;
    private final FileAllocator allocator;
    private final NodeRegistry nodes;
    private final MetadataStats stats;
    private final GrantAuthority grants;
    private final CatalogAuditLog audit;
    private final ReplicationMonitor replication;
    private final CatalogBackups backups;
    private final TableFilesPaging paging;
    // insecure services check no identity, so there is nobody whose attestations could be required
    private final boolean requireAttestations;
    private final long heartbeatIntervalMillis;
    // read once: it never changes, and every membership and orphan answer carries it
    private final String clusterId;

    @Inject
    public MetadataGrpcService(
            ClusterCatalog cluster,
            TableCatalog tables,
            TableHistory history,
            ViewCatalog views,
            StatisticsCatalog statistics,
            CommitCatalog commits,
            AllocationCatalog allocations,
            FileAllocator allocator,
            NodeRegistry nodes,
            MetadataStats stats,
            MetadataConfig config,
            GrantAuthority grants,
            CatalogAuditLog audit,
            TransportSecurity security,
            ReplicationMonitor replication,
            CatalogBackups backups)
    {
        this.replication = requireNonNull(replication, "replication is null");
        this.backups = requireNonNull(backups, "backups is null");
        this.grants = requireNonNull(grants, "grants is null");
        this.audit = requireNonNull(audit, "audit is null");
        this.requireAttestations = !security.isInsecure();
        this.tables = requireNonNull(tables, "tables is null");
        this.history = requireNonNull(history, "history is null");
        this.views = requireNonNull(views, "views is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.commits = requireNonNull(commits, "commits is null");
        this.allocations = requireNonNull(allocations, "allocations is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.heartbeatIntervalMillis = config.getHeartbeatInterval().toMillis();
        this.paging = new TableFilesPaging(config.getTableFilesPageMaxFiles(), config.getTableFilesPageMaxSize().toBytes());
        this.clusterId = cluster.clusterId();
        // the id storage nodes compare with theirs: an operator chasing a mismatch looks for it here
        log.info("Cluster id %s (catalog %s)", clusterId, config.describeCatalog());
    }

    @Override
    public void listSchemas(ListSchemasRequest request, StreamObserver<ListSchemasResponse> observer)
    {
        respond("ListSchemas", observer, () -> ListSchemasResponse.newBuilder()
                .addAllSchemaNames(tables.listSchemas())
                .build());
    }

    @Override
    public void createSchema(CreateSchemaRequest request, StreamObserver<CreateSchemaResponse> observer)
    {
        audited("CreateSchema", request.getSchemaName(), observer, () -> CreateSchemaResponse.newBuilder()
                .setCreated(tables.createSchema(request.getSchemaName(), request.getIfNotExists()))
                .build());
    }

    @Override
    public void listTables(ListTablesRequest request, StreamObserver<ListTablesResponse> observer)
    {
        respond("ListTables", observer, () -> {
            Optional<String> schema = Optional.of(request.getSchemaName()).filter(name -> !name.isEmpty());
            ListTablesResponse.Builder response = ListTablesResponse.newBuilder();
            for (SchemaTableName table : tables.listTables(schema)) {
                response.addTables(TableName.newBuilder()
                        .setSchemaName(table.schemaName())
                        .setTableName(table.tableName()));
            }
            return response.build();
        });
    }

    @Override
    public void getTable(GetTableRequest request, StreamObserver<TableInfo> observer)
    {
        respond("GetTable", observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            TableEntry table = switch (request.getAsOfCase()) {
                case ASOF_NOT_SET -> tables.getTable(name).orElseThrow(() -> notFound("Table %s does not exist", name));
                case VERSION -> history.tableAtVersion(name, request.getVersion());
                case TIMESTAMP_MILLIS -> history.tableAsOf(name, request.getTimestampMillis());
            };
            stats.tableLookedUp();
            return toTableInfo(table);
        });
    }

    @Override
    public void listTableVersions(ListTableVersionsRequest request, StreamObserver<ListTableVersionsResponse> observer)
    {
        respond("ListTableVersions", observer, () -> {
            ListTableVersionsResponse.Builder response = ListTableVersionsResponse.newBuilder();
            for (io.nsc.metadata.catalog.TableVersion version : history.listVersions(new SchemaTableName(request.getSchemaName(), request.getTableName()))) {
                TableVersion.Builder builder = TableVersion.newBuilder()
                        .setVersion(version.version())
                        .setCommittedMillis(version.committedMillis())
                        .setCurrent(version.current());
                version.operation().ifPresent(builder::setOperation);
                version.rowCount().ifPresent(builder::setRowCount);
                version.fileCount().ifPresent(builder::setFileCount);
                version.sizeBytes().ifPresent(builder::setSizeBytes);
                version.expiresMillis().ifPresent(builder::setExpiresMillis);
                response.addVersions(builder);
            }
            return response.build();
        });
    }

    @Override
    public void listTableDefinitions(ListTableDefinitionsRequest request, StreamObserver<ListTableDefinitionsResponse> observer)
    {
        respond("ListTableDefinitions", observer, () -> {
            ListTableDefinitionsResponse response = TABLE_DEFINITIONS_PAGING.answer(tables, request, MetadataGrpcService::toTableInfo);
            stats.tableDefinitionsListed(response.getTablesCount());
            return response;
        });
    }

    @Override
    public void createTable(CreateTableRequest request, StreamObserver<CreateTableResponse> observer)
    {
        audited("CreateTable", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            Optional<String> comment = request.hasComment() ? Optional.of(request.getComment()) : Optional.empty();
            TableCatalog.ExistingTable ifExists = request.getReplace() ? TableCatalog.ExistingTable.REPLACE
                    : request.getIfNotExists() ? TableCatalog.ExistingTable.KEEP : TableCatalog.ExistingTable.FAIL;
            CreateTableResult result = tables.createTable(name, toTableColumns(request.getColumnsList()), request.getPropertiesMap(), comment, ifExists);
            if (result.created()) {
                stats.tableCreated();
                log.info("Created table %s (id %s)", name, result.table().tableId());
            }
            result.replaced().ifPresent(replaced -> logReplaced(name, replaced));
            return CreateTableResponse.newBuilder()
                    .setTable(toTableInfo(result.table()))
                    .setCreated(result.created())
                    .build();
        });
    }

    @Override
    public void dropTable(DropTableRequest request, StreamObserver<DropTableResponse> observer)
    {
        audited("DropTable", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            Optional<DroppedTable> dropped = tables.dropTable(name, request.getIfExists());
            dropped.ifPresent(table -> {
                stats.tableDropped(table.filesReleased());
                log.info("Dropped table %s (id %s), releasing %s files once the table version retention passes", name, table.tableId(), table.filesReleased());
            });
            return DropTableResponse.newBuilder()
                    .setDropped(dropped.isPresent())
                    .setFilesReleased(dropped.map(DroppedTable::filesReleased).orElse(0))
                    .build();
        });
    }

    @Override
    public void setComment(SetCommentRequest request, StreamObserver<SetCommentResponse> observer)
    {
        String target = request.getSchemaName() + "." + request.getTableName() + (request.hasColumnName() ? "." + request.getColumnName() : "");
        audited("SetComment", target, observer, () -> {
            tables.setComment(
                    new SchemaTableName(request.getSchemaName(), request.getTableName()),
                    request.hasColumnName() ? Optional.of(request.getColumnName()) : Optional.empty(),
                    request.hasComment() ? Optional.of(request.getComment()) : Optional.empty());
            return SetCommentResponse.getDefaultInstance();
        });
    }

    @Override
    public void setTableProperties(SetTablePropertiesRequest request, StreamObserver<SetTablePropertiesResponse> observer)
    {
        audited("SetTableProperties", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            tables.setProperties(new SchemaTableName(request.getSchemaName(), request.getTableName()), expectedTableId, request.getPropertiesMap());
            return SetTablePropertiesResponse.getDefaultInstance();
        });
    }

    @Override
    public void alterColumn(AlterColumnRequest request, StreamObserver<AlterColumnResponse> observer)
    {
        audited("AlterColumn", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            ColumnChange change = switch (request.getChangeCase()) {
                case ADD_COLUMN -> {
                    if (request.getAddColumn().getDropped()) {
                        throw invalidArgument("An added column cannot be dropped");
                    }
                    yield new ColumnChange.Add(toTableColumn(request.getAddColumn()));
                }
                case RENAME_COLUMN -> new ColumnChange.Rename(request.getRenameColumn().getName(), request.getRenameColumn().getNewName());
                case DROP_COLUMN -> new ColumnChange.Drop(request.getDropColumn());
                case SET_COLUMN_TYPE -> new ColumnChange.SetType(request.getSetColumnType().getName(), request.getSetColumnType().getNewType());
                case CHANGE_NOT_SET -> throw invalidArgument("AlterColumn needs add_column, rename_column, drop_column or set_column_type");
            };
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            Optional<Map<String, String>> properties = request.getReplaceProperties() ? Optional.of(request.getPropertiesMap()) : Optional.empty();
            TableEntry table = tables.alterColumn(name, expectedTableId, change, properties);
            log.info("Altered table %s (id %s): %s, now at version %s", name, table.tableId(), change, table.version());
            return AlterColumnResponse.newBuilder().setTable(toTableInfo(table)).build();
        });
    }

    @Override
    public void setColumnStatistics(SetColumnStatisticsRequest request, StreamObserver<SetColumnStatisticsResponse> observer)
    {
        audited("SetColumnStatistics", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            List<StatisticsCatalog.ColumnCounts> columns = request.getColumnsList().stream()
                    .map(column -> new StatisticsCatalog.ColumnCounts(column.getOrdinal(), column.getNonNullCount(), column.getDistinctCount()))
                    .toList();
            int stored = statistics.setColumnStatistics(name, expectedTableId, request.getVersion(), request.getRowCount(), columns);
            log.info("Stored statistics of %s of %s columns of table %s at version %s", stored, columns.size(), name, request.getVersion());
            return SetColumnStatisticsResponse.newBuilder().setColumnsStored(stored).build();
        });
    }

    @Override
    public void getColumnStatistics(GetColumnStatisticsRequest request, StreamObserver<GetColumnStatisticsResponse> observer)
    {
        respond("GetColumnStatistics", observer, () -> {
            List<io.nsc.metadata.catalog.AnalyzedColumn> columns = statistics.getColumnStatistics(request.getTableId())
                    .orElseThrow(() -> notFound("Table with id %s does not exist", request.getTableId()));
            GetColumnStatisticsResponse.Builder response = GetColumnStatisticsResponse.newBuilder();
            for (io.nsc.metadata.catalog.AnalyzedColumn column : columns) {
                response.addColumns(AnalyzedColumn.newBuilder()
                        .setOrdinal(column.ordinal())
                        .setAnalyzedVersion(column.analyzedVersion())
                        .setAnalyzedMillis(column.analyzedMillis())
                        .setRowCount(column.rowCount())
                        .setNonNullCount(column.nonNullCount())
                        .setDistinctCount(column.distinctCount()));
            }
            return response.build();
        });
    }

    @Override
    public void dropSchema(DropSchemaRequest request, StreamObserver<DropSchemaResponse> observer)
    {
        audited("DropSchema", request.getSchemaName(), observer, () -> {
            Optional<List<DroppedTable>> dropped = tables.dropSchema(request.getSchemaName(), request.getIfExists(), request.getCascade());
            List<DroppedTable> droppedTables = dropped.orElse(List.of());
            droppedTables.forEach(table -> stats.tableDropped(table.filesReleased()));
            long filesReleased = droppedTables.stream().mapToLong(DroppedTable::filesReleased).sum();
            if (dropped.isPresent()) {
                log.info("Dropped schema %s with %s tables, releasing %s files once the table version retention passes", request.getSchemaName(), droppedTables.size(), filesReleased);
            }
            return DropSchemaResponse.newBuilder()
                    .setDropped(dropped.isPresent())
                    .setTablesDropped(droppedTables.size())
                    .setFilesReleased(filesReleased)
                    .build();
        });
    }

    @Override
    public void truncateTable(TruncateTableRequest request, StreamObserver<TruncateTableResponse> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
        audited("TruncateTable", name.toString(), observer, () -> {
            // table ids start at 1, so 0 means no expectation
            TableCatalog.TruncatedTable truncated = tables.truncateTable(name,
                    request.getExpectedTableId() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedTableId()));
            stats.tableDropped(truncated.dropped().filesReleased());
            log.info("Truncated table %s (id %s, now %s), releasing %s files once the table version retention passes",
                    name, truncated.dropped().tableId(), truncated.table().tableId(), truncated.dropped().filesReleased());
            return TruncateTableResponse.newBuilder()
                    .setTable(toTableInfo(truncated.table()))
                    .setFilesReleased(truncated.dropped().filesReleased())
                    .build();
        });
    }

    @Override
    public void renameSchema(RenameSchemaRequest request, StreamObserver<RenameSchemaResponse> observer)
    {
        audited("RenameSchema", request.getSchemaName() + " to " + request.getNewSchemaName(), observer, () -> {
            tables.renameSchema(request.getSchemaName(), request.getNewSchemaName());
            log.info("Renamed schema %s to %s", request.getSchemaName(), request.getNewSchemaName());
            return RenameSchemaResponse.getDefaultInstance();
        });
    }

    @Override
    public void renameTable(RenameTableRequest request, StreamObserver<RenameTableResponse> observer)
    {
        SchemaTableName from = new SchemaTableName(request.getSchemaName(), request.getTableName());
        SchemaTableName to = new SchemaTableName(request.getNewSchemaName(), request.getNewTableName());
        audited("RenameTable", from + " to " + to, observer, () -> {
            tables.renameTable(from, to);
            log.info("Renamed table %s to %s", from, to);
            return RenameTableResponse.getDefaultInstance();
        });
    }

    @Override
    public void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> observer)
    {
        respond("GetTableFiles", observer, () -> {
            TableFilesPage page = tables.getTableFilesPage(paging.toPageRequest(request))
                    .orElseThrow(() -> notFound("Table with id %s does not exist", request.getTableId()));
            if (!TableFilesPaging.isPaged(request)) {
                paging.requireWhole(page);
            }
            stats.tableFilesListed(page.files().size());
            GetTableFilesResponse.Builder response = GetTableFilesResponse.newBuilder()
                    .setTableId(page.tableId())
                    .setVersion(page.version())
                    .setNextPageToken(TableFilesPaging.nextPageToken(page));
            Set<String> referencedNodes = new LinkedHashSet<>();
            for (FileEntry file : page.files()) {
                response.addFiles(toDataFile(file));
                referencedNodes.addAll(file.replicaNodeIds());
            }
            for (String nodeId : referencedNodes) {
                // replica nodes are persisted and loaded into the registry at start, so the fallback is only defensive
                response.addNodes(nodes.node(nodeId)
                        .map(MetadataGrpcService::toStorageNode)
                        .orElseGet(() -> StorageNode.newBuilder().setNodeId(nodeId).setAlive(false).build()));
            }
            return response.build();
        });
    }

    @Override
    public void allocateFiles(AllocateFilesRequest request, StreamObserver<AllocateFilesResponse> observer)
    {
        respond("AllocateFiles", observer, () -> {
            List<FileAllocationResult> allocations = allocator.allocate(request.getFileCount(), request.getReplication());
            stats.allocated(allocations.size());
            AllocateFilesResponse.Builder response = AllocateFilesResponse.newBuilder();
            for (FileAllocationResult allocation : allocations) {
                FileAllocation.Builder file = FileAllocation.newBuilder().setFileId(allocation.fileId());
                allocation.replicas().forEach(node -> file
                        .addReplicas(toStorageNode(node))
                        .addGrants(grants.grant(allocation.fileId(), node.nodeId())));
                response.addFiles(file);
            }
            return response.build();
        });
    }

    @Override
    public void replaceReplica(ReplaceReplicaRequest request, StreamObserver<FileAllocation> observer)
    {
        respond("ReplaceReplica", observer, () -> {
            FileAllocationResult replacement = allocator.replaceReplica(request.getFileId(), request.getFailedNodeIdsList(), request.getSizeBytes());
            stats.replicaReplaced();
            StorageNodeState node = replacement.replicas().getFirst();
            // a replacement means a node failed a writer: worth a line even when all goes well
            log.info("Replica of file %s placed on storage node %s (the upload failed on: %s)", replacement.fileId(), node.nodeId(),
                    request.getFailedNodeIdsCount() == 0 ? "not said" : String.join(", ", request.getFailedNodeIdsList()));
            return FileAllocation.newBuilder()
                    .setFileId(replacement.fileId())
                    .addReplicas(toStorageNode(node))
                    .addGrants(grants.grant(replacement.fileId(), node.nodeId()))
                    .build();
        });
    }

    @Override
    public void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> observer)
    {
        audited("CommitFiles", commitTarget(request), observer, () -> {
            if (requireAttestations) {
                request.getFilesList().forEach(grants::verifyAttested);
            }
            CommitResult result = commits.commit(new CommitRequest(
                    new SchemaTableName(request.getSchemaName(), request.getTableName()),
                    toTableColumns(request.getColumnsList()),
                    request.getCreateTable(),
                    request.getFilesList().stream()
                            .map(MetadataGrpcService::toFileEntry)
                            .toList(),
                    // proto3 has no "unset": 0 means no expectation, and no existing table is ever at version 0
                    request.getExpectedVersion() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedVersion()),
                    request.getTablePropertiesMap(),
                    request.getMustCreate(),
                    // table ids start at 1, so 0 means no expectation
                    request.getExpectedTableId() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedTableId()),
                    request.hasTableComment() ? Optional.of(request.getTableComment()) : Optional.empty(),
                    request.getReplace(),
                    request.hasRemovals() ? Optional.of(toFileRemovals(request.getRemovals())) : Optional.empty(),
                    request.hasMaterializedView() ? Optional.of(toViewRefresh(request)) : Optional.empty()));
            stats.committed(request.getFilesCount(), result.tableCreated());
            if (result.tableCreated()) {
                log.info("Created table %s.%s (id %s)", request.getSchemaName(), request.getTableName(), result.tableId());
            }
            result.replaced().ifPresent(replaced -> logReplaced(new SchemaTableName(request.getSchemaName(), request.getTableName()), replaced));
            if (request.hasRemovals() && request.getRemovals().getOptimize()) {
                stats.optimized(result.removed());
                log.info("OPTIMIZE of %s.%s (id %s) at version %s: %s files rewritten into %s",
                        request.getSchemaName(), request.getTableName(), result.tableId(), result.version(), result.removed().filesRewritten(), request.getFilesCount());
            }
            else if (request.hasRemovals()) {
                RemovalCounts removed = result.removed();
                stats.removed(removed);
                log.info("DELETE from %s.%s (id %s) at version %s: %s files and %s row groups removed in the metadata, %s files rewritten into %s, %s rows deleted",
                        request.getSchemaName(), request.getTableName(), result.tableId(), result.version(),
                        removed.filesRemoved(), removed.rowGroupsRemoved(), removed.filesRewritten(), request.getFilesCount(), removed.rowsRemoved());
            }
            result.view().ifPresent(view -> log.info("Refreshed materialized view %s (version %s): its storage table %s.%s (id %s) at version %s",
                    view.name(), view.version(), request.getSchemaName(), request.getTableName(), result.tableId(), result.version()));
            CommitFilesResponse.Builder response = CommitFilesResponse.newBuilder()
                    .setTableId(result.tableId())
                    .setVersion(result.version())
                    .setTableCreated(result.tableCreated())
                    .setFilesRemoved(result.removed().filesRemoved())
                    .setFilesRewritten(result.removed().filesRewritten())
                    .setRowGroupsRemoved(result.removed().rowGroupsRemoved())
                    .setRowsRemoved(result.removed().rowsRemoved());
            result.view().ifPresent(view -> response.setViewVersion(view.version()));
            return response.build();
        });
    }

    private static ViewRefresh toViewRefresh(CommitFilesRequest request)
    {
        MaterializedViewRefresh refresh = request.getMaterializedView();
        return new ViewRefresh(
                new SchemaTableName(request.getSchemaName(), refresh.getViewName()),
                refresh.getDefinition(),
                refresh.hasComment() ? Optional.of(refresh.getComment()) : Optional.empty(),
                refresh.getExpectedVersion());
    }

    private static String commitTarget(CommitFilesRequest request)
    {
        String target = "%s.%s (%s files".formatted(request.getSchemaName(), request.getTableName(), request.getFilesCount());
        if (request.hasRemovals()) {
            FileRemovals removals = request.getRemovals();
            target += (removals.getOptimize() ? ", optimize" : "") + ", removing %s files, rewriting %s, removing row groups of %s".formatted(
                    removals.getRemovedFileIdsCount(), removals.getRewrittenFileIdsCount(), removals.getRemovedRowGroupsCount());
        }
        if (request.hasMaterializedView()) {
            MaterializedViewRefresh refresh = request.getMaterializedView();
            target += ", refreshing materialized view %s.%s (version %s)".formatted(request.getSchemaName(), refresh.getViewName(), refresh.getExpectedVersion());
        }
        return target + ")";
    }

    private static io.nsc.metadata.catalog.FileRemovals toFileRemovals(FileRemovals removals)
    {
        Map<String, List<Integer>> rowGroups = new LinkedHashMap<>();
        for (RemovedRowGroups removed : removals.getRemovedRowGroupsList()) {
            if (rowGroups.put(removed.getFileId(), removed.getRowGroupsList()) != null) {
                throw invalidArgument("File %s is named twice in the commit's removals", removed.getFileId());
            }
        }
        Set<String> inserted = new HashSet<>();
        for (String fileId : removals.getInsertedFileIdsList()) {
            if (!inserted.add(fileId)) {
                throw invalidArgument("File %s is named twice as holding inserted rows", fileId);
            }
        }
        return new io.nsc.metadata.catalog.FileRemovals(removals.getReadVersion(), removals.getRemovedFileIdsList(), removals.getRewrittenFileIdsList(), rowGroups, inserted, removals.getOptimize());
    }

    @Override
    public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> observer)
    {
        audited("RegisterNode", request.getNodeId() + " at " + request.getAddress(), observer, () -> {
            PeerAuthentication.requireStorageNode(request.getNodeId());
            nodes.register(request.getNodeId(), request.getAddress(), request.getCapacityBytes(), request.getFreeBytes(), request.getFileIdsList());
            stats.nodeRegistered();
            return RegisterNodeResponse.newBuilder()
                    .setHeartbeatIntervalMillis(heartbeatIntervalMillis)
                    .setClusterId(clusterId)
                    .setGrantKey(grants.nodeKey(request.getNodeId()))
                    .build();
        });
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer)
    {
        respond("Heartbeat", observer, () -> {
            PeerAuthentication.requireStorageNode(request.getNodeId());
            boolean known = nodes.heartbeat(request.getNodeId(), request.getFreeBytes(), request.getFileCount(), request.getLoad());
            HeartbeatResponse.Builder response = HeartbeatResponse.newBuilder()
                    .setKnown(known)
                    .setClusterId(clusterId)
                    .setGrantKey(grants.nodeKey(request.getNodeId()));
            if (known) {
                // the node gives back what it did not report when it was unknown: nothing is lost
                request.getDamagedReplicasList().forEach(damaged -> replication.damaged(request.getNodeId(), damaged));
                request.getCopiedReplicasList().forEach(copied -> replication.copied(request.getNodeId(), copied));
                request.getFailedCopiesList().forEach(failed -> replication.copyFailed(request.getNodeId(), failed));
                response.addAllCopyTasks(replication.tasksFor(request.getNodeId()));
            }
            return response.build();
        });
    }

    @Override
    public void listNodes(ListNodesRequest request, StreamObserver<ListNodesResponse> observer)
    {
        respond("ListNodes", observer, () -> {
            ListNodesResponse.Builder response = ListNodesResponse.newBuilder();
            Map<String, Long> replicas = replication.replicaCounts();
            nodes.nodes().forEach(node -> response.addNodes(toStorageNode(node).toBuilder().setReplicaCount(replicas.getOrDefault(node.nodeId(), 0L))));
            return response.build();
        });
    }

    @Override
    public void drainNode(DrainNodeRequest request, StreamObserver<DrainNodeResponse> observer)
    {
        audited("DrainNode", request.getNodeId() + (request.getCancel() ? " (cancel)" : ""), observer, () -> {
            StorageNodeState node = replication.drain(request.getNodeId(), !request.getCancel());
            return DrainNodeResponse.newBuilder()
                    .setNode(toStorageNode(node).toBuilder().setReplicaCount(replication.replicaCounts().getOrDefault(node.nodeId(), 0L)))
                    .build();
        });
    }

    @Override
    public void getReplicationStatus(GetReplicationStatusRequest request, StreamObserver<GetReplicationStatusResponse> observer)
    {
        respond("GetReplicationStatus", observer, replication::status);
    }

    @Override
    public void findOrphans(FindOrphansRequest request, StreamObserver<FindOrphansResponse> observer)
    {
        respond("FindOrphans", observer, () -> {
            PeerAuthentication.requireStorageNode(request.getNodeId());
            List<String> orphans = allocations.findOrphans(request.getNodeId(), request.getFileIdsList()).stream()
                    // a copy the node makes right now is claimed, though not committed to it yet
                    .filter(fileId -> !replication.isCopyTarget(fileId, request.getNodeId()))
                    .toList();
            stats.orphanCheck(orphans.size());
            // a node asks every few minutes: only the answers that make it delete something are news
            if (orphans.isEmpty()) {
                log.debug("Storage node %s asked about %s files: no orphans", request.getNodeId(), request.getFileIdsCount());
            }
            else {
                log.info("Storage node %s asked about %s files: reporting %s orphans", request.getNodeId(), request.getFileIdsCount(), orphans.size());
            }
            // the id lets the node check, answer by answer, that the catalog naming its files orphans is its own
            return FindOrphansResponse.newBuilder()
                    .addAllOrphanFileIds(orphans)
                    .setClusterId(clusterId)
                    .build();
        });
    }

    @Override
    public void backupCatalog(BackupCatalogRequest request, StreamObserver<BackupCatalogResponse> observer)
    {
        new CatalogBackupCall(backups, audit, stats, (ServerCallStreamObserver<BackupCatalogResponse>) observer).start();
    }

    @Override
    public void createView(CreateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        audited("CreateView", name + (request.getMaterialized() ? " (materialized)" : "") + (request.getReplace() ? " (or replace)" : ""), observer, () -> {
            ViewEntry view = views.createView(name, request.getDefinition(), request.hasComment() ? Optional.of(request.getComment()) : Optional.empty(), request.getReplace(), request.getMaterialized());
            log.info("%s %s %s (version %s)", view.version() == 1 ? "Created" : "Replaced", kind(view.materialized()), name, view.version());
            return toViewInfo(view);
        });
    }

    @Override
    public void updateView(UpdateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        audited("UpdateView", name + " (version " + request.getExpectedVersion() + ")", observer, () -> toViewInfo(
                views.updateView(name, request.getDefinition(), request.hasComment() ? Optional.of(request.getComment()) : Optional.empty(), request.getExpectedVersion(), request.getMaterialized())));
    }

    @Override
    public void getView(GetViewRequest request, StreamObserver<ViewInfo> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        respond("GetView", observer, () -> views.getView(name, request.getMaterialized())
                .map(MetadataGrpcService::toViewInfo)
                .orElseThrow(() -> notFound("%s %s does not exist", request.getMaterialized() ? "Materialized view" : "View", name)));
    }

    @Override
    public void listViews(ListViewsRequest request, StreamObserver<ListViewsResponse> observer)
    {
        Optional<String> schema = request.getSchemaName().isEmpty() ? Optional.empty() : Optional.of(request.getSchemaName());
        respond("ListViews", observer, () -> {
            ListViewsResponse.Builder response = ListViewsResponse.newBuilder();
            views.listViews(schema, request.getMaterialized()).forEach(name -> response.addViews(TableName.newBuilder().setSchemaName(name.schemaName()).setTableName(name.tableName())));
            return response.build();
        });
    }

    @Override
    public void dropView(DropViewRequest request, StreamObserver<DropViewResponse> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getViewName());
        audited("DropView", name.toString(), observer, () -> {
            views.dropView(name, request.getMaterialized());
            log.info("Dropped %s %s", kind(request.getMaterialized()), name);
            return DropViewResponse.getDefaultInstance();
        });
    }

    @Override
    public void renameView(RenameViewRequest request, StreamObserver<RenameViewResponse> observer)
    {
        SchemaTableName from = new SchemaTableName(request.getSchemaName(), request.getViewName());
        SchemaTableName to = new SchemaTableName(request.getNewSchemaName(), request.getNewViewName());
        audited("RenameView", from + " to " + to, observer, () -> {
            views.renameView(from, to, request.getMaterialized());
            log.info("Renamed %s %s to %s", kind(request.getMaterialized()), from, to);
            return RenameViewResponse.getDefaultInstance();
        });
    }

    private static ViewInfo toViewInfo(ViewEntry view)
    {
        ViewInfo.Builder info = ViewInfo.newBuilder()
                .setSchemaName(view.name().schemaName())
                .setViewName(view.name().tableName())
                .setDefinition(view.definition())
                .setVersion(view.version())
                .setCreatedMillis(view.createdMillis())
                .setMaterialized(view.materialized());
        view.comment().ifPresent(info::setComment);
        return info.build();
    }

    private static String kind(boolean materialized)
    {
        return materialized ? "materialized view" : "view";
    }

    /** Runs one call that changes the catalog, and records who asked for what and how it ended. */
    private void logReplaced(SchemaTableName name, DroppedTable replaced)
    {
        stats.tableDropped(replaced.filesReleased());
        log.info("Replaced table %s (id %s), releasing %s files once the table version retention passes", name, replaced.tableId(), replaced.filesReleased());
    }

    private <T> void audited(String method, String target, StreamObserver<T> observer, Supplier<T> call)
    {
        respond(method, observer, () -> {
            T response;
            try {
                response = call.get();
            }
            catch (StatusRuntimeException e) {
                audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, e.getStatus().getCode().name());
                throw e;
            }
            catch (RuntimeException e) {
                audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, "INTERNAL");
                throw e;
            }
            audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, "OK");
            return response;
        });
    }

    /**
     * Runs one call. Statuses raised on purpose (bad input, missing objects, conflicts) go back
     * as they are; anything else is the service's own failure: logged, and reported as INTERNAL.
     */
    private <T> void respond(String method, StreamObserver<T> observer, Supplier<T> call)
    {
        T response;
        try {
            response = call.get();
        }
        catch (StatusRuntimeException e) {
            stats.rpcFailed(false);
            log.debug("%s failed: %s", method, e.getStatus());
            observer.onError(e);
            return;
        }
        catch (RuntimeException e) {
            stats.rpcFailed(true);
            log.error(e, "%s failed", method);
            observer.onError(Status.INTERNAL.withDescription(method + " failed: " + e.getMessage()).withCause(e).asRuntimeException());
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }

    static TableInfo toTableInfo(TableEntry table)
    {
        TableInfo.Builder info = TableInfo.newBuilder()
                .setTableId(table.tableId())
                .setSchemaName(table.name().schemaName())
                .setTableName(table.name().tableName())
                .setVersion(table.version())
                .setRowCount(table.rowCount())
                .setFileCount(table.fileCount())
                .setSizeBytes(table.sizeBytes());
        for (TableColumn column : table.columns()) {
            Column.Builder builder = Column.newBuilder().setName(column.name()).setType(column.type()).setDropped(column.dropped());
            column.comment().ifPresent(builder::setComment);
            info.addColumns(builder);
        }
        info.putAllProperties(table.properties());
        table.comment().ifPresent(info::setComment);
        return info.build();
    }

    private static List<TableColumn> toTableColumns(List<Column> columns)
    {
        return columns.stream()
                .map(MetadataGrpcService::toTableColumn)
                .toList();
    }

    private static TableColumn toTableColumn(Column column)
    {
        return new TableColumn(column.getName(), column.getType(), column.hasComment() ? Optional.of(column.getComment()) : Optional.empty(), column.getDropped());
    }

    private static DataFile toDataFile(FileEntry file)
    {
        return DataFile.newBuilder()
                .setFileId(file.fileId())
                .setSizeBytes(file.sizeBytes())
                .setRowCount(file.rowCount())
                .addAllReplicaNodeIds(file.replicaNodeIds())
                .setCompactStats(file.compactStats())
                .setCrc32C(file.crc32c())
                .setColumnSketches(file.columnSketches())
                .addAllRemovedRowGroups(file.removedRowGroups())
                .build();
    }

    private static FileEntry toFileEntry(DataFile file)
    {
        if (file.getRemovedRowGroupsCount() > 0) {
            throw invalidArgument("File %s of the commit names removed row groups: a commit removes them with its removals", file.getFileId());
        }
        return new FileEntry(
                file.getFileId(),
                file.getSizeBytes(),
                file.getRowCount(),
                file.getCrc32C(),
                file.getCompactStats(),
                file.getReplicaNodeIdsList(),
                file.getColumnSketches());
    }

    private static StorageNode toStorageNode(StorageNodeState node)
    {
        return StorageNode.newBuilder()
                .setNodeId(node.nodeId())
                .setAddress(node.address())
                .setAlive(node.alive())
                .setLastHeartbeatMillis(node.lastHeartbeatMillis())
                .setCapacityBytes(node.capacityBytes())
                .setFreeBytes(node.freeBytes())
                .setFileCount(node.fileCount())
                .setDraining(node.draining())
                .build();
    }
}
