package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.nsc.metadata.catalog.FileIds.isValidFileId;
import static java.util.Objects.requireNonNull;

/**
 * Storage nodes: what each reported when it last registered or heartbeated, and the catalog's
 * replicas on it, which a registration brings in line with the files the node reports. Whether
 * a node is alive is not persisted; see the membership package.
 */
public final class NodeCatalog
{
    private static final RowMapper<NodeEntry> NODE_ENTRY = (row, _) -> new NodeEntry(
            row.getString("node_id"),
            row.getString("address"),
            row.getLong("capacity_bytes"),
            row.getLong("free_bytes"),
            row.getLong("file_count"),
            row.getLong("last_heartbeat_millis"));

    private final CatalogDatabase database;

    public NodeCatalog(CatalogDatabase database)
    {
        this.database = requireNonNull(database, "database is null");
    }

    /**
     * Upserts the node and makes its replicas of committed files match what it reports: the node
     * is the source of truth for which files it holds. Files the catalog does not know (not
     * committed, or not ours) are ignored.
     */
    public ReplicaSync registerNode(NodeEntry node, Collection<String> fileIds)
    {
        requireNonNull(node, "node is null");
        Set<String> reported = ImmutableSet.copyOf(fileIds);
        return database.inTransaction(handle -> {
            // update, then insert when there was nothing to update: portable, and under
            // concurrency the key check of the insert makes one of two registrations retry
            int updated = handle.createUpdate(
                            """
                            UPDATE nodes SET address = :address, capacity_bytes = :capacity_bytes, free_bytes = :free_bytes,
                                file_count = :file_count, last_heartbeat_millis = :last_heartbeat_millis
                            WHERE node_id = :node_id
                            """)
                    .bindMap(nodeColumns(node))
                    .execute();
            if (updated == 0) {
                handle.createUpdate(
                                """
                                INSERT INTO nodes (node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis)
                                VALUES (:node_id, :address, :capacity_bytes, :free_bytes, :file_count, :last_heartbeat_millis)
                                """)
                        .bindMap(nodeColumns(node))
                        .execute();
            }
            return syncReplicas(handle, node.nodeId(), reported);
        });
    }

    private static Map<String, Object> nodeColumns(NodeEntry node)
    {
        return Map.of(
                "node_id", node.nodeId(),
                "address", node.address(),
                "capacity_bytes", node.capacityBytes(),
                "free_bytes", node.freeBytes(),
                "file_count", node.fileCount(),
                "last_heartbeat_millis", node.lastHeartbeatMillis());
    }

    /**
     * @return false when the node is not in the catalog
     */
    public boolean updateNodeHeartbeat(String nodeId, long freeBytes, long fileCount, long heartbeatMillis)
    {
        return recordHeartbeats(List.of(new NodeHeartbeat(nodeId, freeBytes, fileCount, heartbeatMillis))).isEmpty();
    }

    /**
     * Records the heartbeats of many nodes in one transaction, one batched statement: what a
     * service collected over an interval costs one commit, not one per beat.
     *
     * @return the ids of the nodes that are not in the catalog (nothing was recorded for them)
     */
    public Set<String> recordHeartbeats(List<NodeHeartbeat> heartbeats)
    {
        if (heartbeats.isEmpty()) {
            return Set.of();
        }
        return database.inTransaction(handle -> {
            PreparedBatch batch = handle.prepareBatch("UPDATE nodes SET free_bytes = :free_bytes, file_count = :file_count, last_heartbeat_millis = :heartbeat_millis WHERE node_id = :node_id");
            for (NodeHeartbeat heartbeat : heartbeats) {
                batch.bind("free_bytes", heartbeat.freeBytes())
                        .bind("file_count", heartbeat.fileCount())
                        .bind("heartbeat_millis", heartbeat.heartbeatMillis())
                        .bind("node_id", heartbeat.nodeId())
                        .add();
            }
            int[] updated = batch.execute();
            ImmutableSet.Builder<String> unknown = ImmutableSet.builder();
            for (int i = 0; i < updated.length; i++) {
                if (updated[i] == 0) {
                    unknown.add(heartbeats.get(i).nodeId());
                }
            }
            return unknown.build();
        });
    }

    public List<NodeEntry> listNodes()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis FROM nodes ORDER BY node_id")
                .map(NODE_ENTRY)
                .list());
    }

    /** Every node with its last heartbeat and whether it is being drained, ordered by id. */
    public List<CatalogNode> nodes()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis, draining FROM nodes ORDER BY node_id")
                .map((row, context) -> new CatalogNode(NODE_ENTRY.map(row, context), row.getBoolean("draining")))
                .list());
    }

    /**
     * Makes the node's replicas match its report, except that a replica the node no longer
     * reports is marked missing rather than forgotten: a disk that is unmounted or replaced
     * shows as an empty directory, and its files may come back. Missing replicas are not read
     * and do not count towards replication (they are repaired elsewhere); reported again, they
     * count again.
     */
    private static ReplicaSync syncReplicas(Handle handle, String nodeId, Set<String> reported)
    {
        Map<String, Boolean> current = new HashMap<>();
        handle.createQuery("SELECT file_id, missing FROM file_replicas WHERE node_id = :node_id")
                .bind("node_id", nodeId)
                .map((row, _) -> Map.entry(row.getString("file_id"), row.getBoolean("missing")))
                .forEach(replica -> current.put(replica.getKey(), replica.getValue()));

        int added = 0;
        for (String fileId : reported) {
            Boolean missing = current.get(fileId);
            if (missing != null) {
                if (missing) {
                    handle.createUpdate("UPDATE file_replicas SET missing = FALSE WHERE file_id = :file_id AND node_id = :node_id")
                            .bind("file_id", fileId)
                            .bind("node_id", nodeId)
                            .execute();
                    added++;
                }
                continue;
            }
            if (!isValidFileId(fileId) || !isCommitted(handle, fileId)) {
                continue;
            }
            // a re-discovered replica goes last: the writer's order stays the preferred one
            handle.createUpdate("INSERT INTO file_replicas (file_id, node_id, ordinal) SELECT :file_id, :node_id, COALESCE(MAX(ordinal), -1) + 1 FROM file_replicas WHERE file_id = :file_id")
                    .bind("file_id", fileId)
                    .bind("node_id", nodeId)
                    .execute();
            added++;
        }

        List<String> lost = current.entrySet().stream()
                .filter(replica -> !replica.getValue() && !reported.contains(replica.getKey()))
                .map(Map.Entry::getKey)
                .toList();
        if (!lost.isEmpty()) {
            PreparedBatch markMissing = handle.prepareBatch("UPDATE file_replicas SET missing = TRUE WHERE file_id = :file_id AND node_id = :node_id");
            for (String fileId : lost) {
                markMissing.bind("file_id", fileId).bind("node_id", nodeId).add();
            }
            markMissing.execute();
        }
        return new ReplicaSync(added, lost.size());
    }

    private static boolean isCommitted(Handle handle, String fileId)
    {
        return handle.createQuery("SELECT 1 FROM files WHERE file_id = :file_id")
                .bind("file_id", fileId)
                .mapTo(Integer.class)
                .findOne()
                .isPresent();
    }
}
