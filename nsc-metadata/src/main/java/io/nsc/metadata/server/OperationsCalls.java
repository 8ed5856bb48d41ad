package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.backup.CatalogBackups;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.metadata.repair.ReplicationMonitor;
import io.nsc.metadata.security.CatalogAuditLog;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.proto.DrainNodeRequest;
import io.nsc.protocol.proto.DrainNodeResponse;
import io.nsc.protocol.proto.GetReplicationStatusRequest;
import io.nsc.protocol.proto.GetReplicationStatusResponse;

import static io.nsc.metadata.server.MetadataProtoMapper.toStorageNode;
import static java.util.Objects.requireNonNull;

/** The calls operators make: draining a storage node, watching replication, backing up the catalog. */
final class OperationsCalls
{
    private final ReplicationMonitor replication;
    private final CatalogBackups backups;
    private final CatalogAuditLog audit;
    private final MetadataStats stats;
    private final Responder responder;

    @Inject
    OperationsCalls(ReplicationMonitor replication, CatalogBackups backups, CatalogAuditLog audit, MetadataStats stats, Responder responder)
    {
        this.replication = requireNonNull(replication, "replication is null");
        this.backups = requireNonNull(backups, "backups is null");
        this.audit = requireNonNull(audit, "audit is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.responder = requireNonNull(responder, "responder is null");
    }

    void drainNode(DrainNodeRequest request, StreamObserver<DrainNodeResponse> observer)
    {
        responder.audited("DrainNode", request.getNodeId() + (request.getCancel() ? " (cancel)" : ""), observer, () -> {
            StorageNodeState node = replication.drain(request.getNodeId(), !request.getCancel());
            return DrainNodeResponse.newBuilder()
                    .setNode(toStorageNode(node, replication.replicaCounts()))
                    .build();
        });
    }

    void getReplicationStatus(GetReplicationStatusRequest request, StreamObserver<GetReplicationStatusResponse> observer)
    {
        responder.respond("GetReplicationStatus", observer, replication::status);
    }

    void backupCatalog(BackupCatalogRequest request, StreamObserver<BackupCatalogResponse> observer)
    {
        // a stream the client paces, so it answers for itself rather than through the responder
        new CatalogBackupCall(backups, audit, stats, (ServerCallStreamObserver<BackupCatalogResponse>) observer).start();
    }
}
