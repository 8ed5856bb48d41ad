package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AlterColumnResponse;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateSchemaResponse;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.CreateViewRequest;
import io.nsc.protocol.proto.DrainNodeRequest;
import io.nsc.protocol.proto.DrainNodeResponse;
import io.nsc.protocol.proto.DropSchemaRequest;
import io.nsc.protocol.proto.DropSchemaResponse;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.DropTableResponse;
import io.nsc.protocol.proto.DropViewRequest;
import io.nsc.protocol.proto.DropViewResponse;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.FindOrphansResponse;
import io.nsc.protocol.proto.GetColumnStatisticsRequest;
import io.nsc.protocol.proto.GetColumnStatisticsResponse;
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
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.ListTableVersionsRequest;
import io.nsc.protocol.proto.ListTableVersionsResponse;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.ListTablesResponse;
import io.nsc.protocol.proto.ListViewsRequest;
import io.nsc.protocol.proto.ListViewsResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.proto.RenameSchemaRequest;
import io.nsc.protocol.proto.RenameSchemaResponse;
import io.nsc.protocol.proto.RenameTableRequest;
import io.nsc.protocol.proto.RenameTableResponse;
import io.nsc.protocol.proto.RenameViewRequest;
import io.nsc.protocol.proto.RenameViewResponse;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.SetColumnStatisticsRequest;
import io.nsc.protocol.proto.SetColumnStatisticsResponse;
import io.nsc.protocol.proto.SetCommentRequest;
import io.nsc.protocol.proto.SetCommentResponse;
import io.nsc.protocol.proto.SetTablePropertiesRequest;
import io.nsc.protocol.proto.SetTablePropertiesResponse;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TruncateTableRequest;
import io.nsc.protocol.proto.TruncateTableResponse;
import io.nsc.protocol.proto.UpdateViewRequest;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.protocol.security.AccessPolicy;

import static io.nsc.protocol.security.ComponentRole.CLIENT;
import static io.nsc.protocol.security.ComponentRole.METADATA;
import static io.nsc.protocol.security.ComponentRole.STORAGE;
import static java.util.Objects.requireNonNull;

/**
 * The gRPC face of the metadata service. gRPC binds one implementation per proto service, so
 * this is it; each call is handed on to the calls of those who make it: clients reading and
 * changing the catalog ({@link CatalogCalls}, {@link ViewCalls}) and writing and reading table
 * files ({@link TableFileCalls}), storage nodes ({@link MembershipCalls}) and operators
 * ({@link OperationsCalls}). Who may make which call is {@link #ACCESS_POLICY}.
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

    private final CatalogCalls catalog;
    private final ViewCalls views;
    private final TableFileCalls tableFiles;
    private final MembershipCalls membership;
    private final OperationsCalls operations;

    @Inject
    MetadataGrpcService(CatalogCalls catalog, ViewCalls views, TableFileCalls tableFiles, MembershipCalls membership, OperationsCalls operations)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.views = requireNonNull(views, "views is null");
        this.tableFiles = requireNonNull(tableFiles, "tableFiles is null");
        this.membership = requireNonNull(membership, "membership is null");
        this.operations = requireNonNull(operations, "operations is null");
    }

    @Override
    public void listSchemas(ListSchemasRequest request, StreamObserver<ListSchemasResponse> observer)
    {
        catalog.listSchemas(request, observer);
    }

    @Override
    public void createSchema(CreateSchemaRequest request, StreamObserver<CreateSchemaResponse> observer)
    {
        catalog.createSchema(request, observer);
    }

    @Override
    public void listTables(ListTablesRequest request, StreamObserver<ListTablesResponse> observer)
    {
        catalog.listTables(request, observer);
    }

    @Override
    public void getTable(GetTableRequest request, StreamObserver<TableInfo> observer)
    {
        catalog.getTable(request, observer);
    }

    @Override
    public void listTableVersions(ListTableVersionsRequest request, StreamObserver<ListTableVersionsResponse> observer)
    {
        catalog.listTableVersions(request, observer);
    }

    @Override
    public void listTableDefinitions(ListTableDefinitionsRequest request, StreamObserver<ListTableDefinitionsResponse> observer)
    {
        catalog.listTableDefinitions(request, observer);
    }

    @Override
    public void createTable(CreateTableRequest request, StreamObserver<CreateTableResponse> observer)
    {
        catalog.createTable(request, observer);
    }

    @Override
    public void dropTable(DropTableRequest request, StreamObserver<DropTableResponse> observer)
    {
        catalog.dropTable(request, observer);
    }

    @Override
    public void setComment(SetCommentRequest request, StreamObserver<SetCommentResponse> observer)
    {
        catalog.setComment(request, observer);
    }

    @Override
    public void setTableProperties(SetTablePropertiesRequest request, StreamObserver<SetTablePropertiesResponse> observer)
    {
        catalog.setTableProperties(request, observer);
    }

    @Override
    public void alterColumn(AlterColumnRequest request, StreamObserver<AlterColumnResponse> observer)
    {
        catalog.alterColumn(request, observer);
    }

    @Override
    public void setColumnStatistics(SetColumnStatisticsRequest request, StreamObserver<SetColumnStatisticsResponse> observer)
    {
        catalog.setColumnStatistics(request, observer);
    }

    @Override
    public void getColumnStatistics(GetColumnStatisticsRequest request, StreamObserver<GetColumnStatisticsResponse> observer)
    {
        catalog.getColumnStatistics(request, observer);
    }

    @Override
    public void dropSchema(DropSchemaRequest request, StreamObserver<DropSchemaResponse> observer)
    {
        catalog.dropSchema(request, observer);
    }

    @Override
    public void truncateTable(TruncateTableRequest request, StreamObserver<TruncateTableResponse> observer)
    {
        catalog.truncateTable(request, observer);
    }

    @Override
    public void renameSchema(RenameSchemaRequest request, StreamObserver<RenameSchemaResponse> observer)
    {
        catalog.renameSchema(request, observer);
    }

    @Override
    public void renameTable(RenameTableRequest request, StreamObserver<RenameTableResponse> observer)
    {
        catalog.renameTable(request, observer);
    }

    @Override
    public void createView(CreateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        views.createView(request, observer);
    }

    @Override
    public void updateView(UpdateViewRequest request, StreamObserver<ViewInfo> observer)
    {
        views.updateView(request, observer);
    }

    @Override
    public void getView(GetViewRequest request, StreamObserver<ViewInfo> observer)
    {
        views.getView(request, observer);
    }

    @Override
    public void listViews(ListViewsRequest request, StreamObserver<ListViewsResponse> observer)
    {
        views.listViews(request, observer);
    }

    @Override
    public void dropView(DropViewRequest request, StreamObserver<DropViewResponse> observer)
    {
        views.dropView(request, observer);
    }

    @Override
    public void renameView(RenameViewRequest request, StreamObserver<RenameViewResponse> observer)
    {
        views.renameView(request, observer);
    }

    @Override
    public void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> observer)
    {
        tableFiles.getTableFiles(request, observer);
    }

    @Override
    public void allocateFiles(AllocateFilesRequest request, StreamObserver<AllocateFilesResponse> observer)
    {
        tableFiles.allocateFiles(request, observer);
    }

    @Override
    public void replaceReplica(ReplaceReplicaRequest request, StreamObserver<FileAllocation> observer)
    {
        tableFiles.replaceReplica(request, observer);
    }

    @Override
    public void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> observer)
    {
        tableFiles.commitFiles(request, observer);
    }

    @Override
    public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> observer)
    {
        membership.registerNode(request, observer);
    }

    @Override
    public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer)
    {
        membership.heartbeat(request, observer);
    }

    @Override
    public void listNodes(ListNodesRequest request, StreamObserver<ListNodesResponse> observer)
    {
        membership.listNodes(request, observer);
    }

    @Override
    public void findOrphans(FindOrphansRequest request, StreamObserver<FindOrphansResponse> observer)
    {
        membership.findOrphans(request, observer);
    }

    @Override
    public void drainNode(DrainNodeRequest request, StreamObserver<DrainNodeResponse> observer)
    {
        operations.drainNode(request, observer);
    }

    @Override
    public void getReplicationStatus(GetReplicationStatusRequest request, StreamObserver<GetReplicationStatusResponse> observer)
    {
        operations.getReplicationStatus(request, observer);
    }

    @Override
    public void backupCatalog(BackupCatalogRequest request, StreamObserver<BackupCatalogResponse> observer)
    {
        operations.backupCatalog(request, observer);
    }
}
