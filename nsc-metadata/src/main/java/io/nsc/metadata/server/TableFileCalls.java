package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.catalog.CommitCatalog;
import io.nsc.metadata.catalog.CommitResult;
import io.nsc.metadata.catalog.FileEntry;
import io.nsc.metadata.catalog.RemovalCounts;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableFilesPage;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.metadata.placement.FileAllocator;
import io.nsc.metadata.placement.FileAllocator.FileAllocationResult;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.TransportSecurity;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.server.CatalogCalls.logReplaced;
import static io.nsc.metadata.server.MetadataProtoMapper.toCommitRequest;
import static io.nsc.metadata.server.MetadataProtoMapper.toDataFile;
import static io.nsc.metadata.server.MetadataProtoMapper.toStorageNode;
import static java.util.Objects.requireNonNull;

/**
 * The calls clients make on a table's data files: listing them to scan, placing new ones on
 * storage nodes with grants to upload them, and committing them to the table.
 */
final class TableFileCalls
{
    private static final Logger log = Logger.get(TableFileCalls.class);

    private final TableCatalog tables;
    private final CommitCatalog commits;
    private final FileAllocator allocator;
    private final NodeRegistry nodes;
    private final GrantAuthority grants;
    private final MetadataStats stats;
    private final Responder responder;
    private final TableFilesPaging paging;
    // insecure services check no identity, so there is nobody whose attestations could be required
    private final boolean requireAttestations;

    @Inject
    TableFileCalls(
            TableCatalog tables,
            CommitCatalog commits,
            FileAllocator allocator,
            NodeRegistry nodes,
            GrantAuthority grants,
            MetadataStats stats,
            Responder responder,
            MetadataConfig config,
            TransportSecurity security)
    {
        this.tables = requireNonNull(tables, "tables is null");
        this.commits = requireNonNull(commits, "commits is null");
        this.allocator = requireNonNull(allocator, "allocator is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.grants = requireNonNull(grants, "grants is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.responder = requireNonNull(responder, "responder is null");
        this.paging = new TableFilesPaging(config.getTableFilesPageMaxFiles(), config.getTableFilesPageMaxSize().toBytes());
        this.requireAttestations = !security.isInsecure();
    }

    void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> observer)
    {
        responder.respond("GetTableFiles", observer, () -> {
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
                        .map(MetadataProtoMapper::toStorageNode)
                        .orElseGet(() -> StorageNode.newBuilder().setNodeId(nodeId).setAlive(false).build()));
            }
            return response.build();
        });
    }

    void allocateFiles(AllocateFilesRequest request, StreamObserver<AllocateFilesResponse> observer)
    {
        responder.respond("AllocateFiles", observer, () -> {
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

    void replaceReplica(ReplaceReplicaRequest request, StreamObserver<FileAllocation> observer)
    {
        responder.respond("ReplaceReplica", observer, () -> {
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

    void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> observer)
    {
        responder.audited("CommitFiles", commitTarget(request), observer, () -> {
            if (requireAttestations) {
                request.getFilesList().forEach(grants::verifyAttested);
            }
            CommitResult result = commits.commit(toCommitRequest(request));
            stats.committed(request.getFilesCount(), result.tableCreated());
            if (result.tableCreated()) {
                log.info("Created table %s.%s (id %s)", request.getSchemaName(), request.getTableName(), result.tableId());
            }
            result.replaced().ifPresent(replaced -> logReplaced(stats, new SchemaTableName(request.getSchemaName(), request.getTableName()), replaced));
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
}
