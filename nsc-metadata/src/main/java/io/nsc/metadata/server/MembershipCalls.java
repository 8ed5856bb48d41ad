package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.catalog.AllocationCatalog;
import io.nsc.metadata.catalog.ClusterCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.repair.ReplicationMonitor;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.FindOrphansResponse;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListNodesResponse;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.security.PeerAuthentication;

import java.util.List;
import java.util.Map;

import static io.nsc.metadata.server.MetadataProtoMapper.toStorageNode;
import static java.util.Objects.requireNonNull;

/**
 * The calls storage nodes make to join the cluster, stay in it and learn which of their files
 * no table holds; and the listing of the nodes for clients and other metadata services.
 */
final class MembershipCalls
{
    private static final Logger log = Logger.get(MembershipCalls.class);

    private final NodeRegistry nodes;
    private final AllocationCatalog allocations;
    private final ReplicationMonitor replication;
    private final GrantAuthority grants;
    private final MetadataStats stats;
    private final Responder responder;
    private final long heartbeatIntervalMillis;
    // read once: it never changes, and every membership and orphan answer carries it
    private final String clusterId;

    @Inject
    MembershipCalls(
            ClusterCatalog cluster,
            NodeRegistry nodes,
            AllocationCatalog allocations,
            ReplicationMonitor replication,
            GrantAuthority grants,
            MetadataStats stats,
            Responder responder,
            MetadataConfig config)
    {
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.allocations = requireNonNull(allocations, "allocations is null");
        this.replication = requireNonNull(replication, "replication is null");
        this.grants = requireNonNull(grants, "grants is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.responder = requireNonNull(responder, "responder is null");
        this.heartbeatIntervalMillis = config.getHeartbeatInterval().toMillis();
        this.clusterId = cluster.clusterId();
        // the id storage nodes compare with theirs: an operator chasing a mismatch looks for it here
        log.info("Cluster id %s (catalog %s)", clusterId, config.describeCatalog());
    }

    void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> observer)
    {
        responder.audited("RegisterNode", request.getNodeId() + " at " + request.getAddress(), observer, () -> {
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

    void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> observer)
    {
        responder.respond("Heartbeat", observer, () -> {
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

    void listNodes(ListNodesRequest request, StreamObserver<ListNodesResponse> observer)
    {
        responder.respond("ListNodes", observer, () -> {
            ListNodesResponse.Builder response = ListNodesResponse.newBuilder();
            Map<String, Long> replicas = replication.replicaCounts();
            nodes.nodes().forEach(node -> response.addNodes(toStorageNode(node, replicas)));
            return response.build();
        });
    }

    void findOrphans(FindOrphansRequest request, StreamObserver<FindOrphansResponse> observer)
    {
        responder.respond("FindOrphans", observer, () -> {
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
}
