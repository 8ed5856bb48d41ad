package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.protobuf.ByteString;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * The catalog's view of replicas for keeping files at their replication: which nodes hold each
 * committed file, replicas added by copies and dropped when damaged or in excess, and the nodes
 * being drained. Each method is one transaction of the {@link CatalogDatabase}.
 */
public final class ReplicaCatalog
{
    private final CatalogDatabase database;
    private final int defaultReplication;

    /**
     * @param defaultReplication what a table without a replication property wants (the service's default)
     */
    public ReplicaCatalog(CatalogDatabase database, int defaultReplication)
    {
        this.database = requireNonNull(database, "database is null");
        this.defaultReplication = defaultReplication;
    }

    /** Every committed file with its replicas and its table's replication. */
    public List<FileReplicas> fileReplicas()
    {
        return database.inTransaction(handle -> {
            Map<String, List<String>> replicas = new HashMap<>();
            handle.createQuery("SELECT file_id, node_id FROM file_replicas WHERE NOT missing ORDER BY file_id, ordinal")
                    .map((row, _) -> Map.entry(row.getString("file_id"), row.getString("node_id")))
                    .forEach(replica -> replicas.computeIfAbsent(replica.getKey(), _ -> new ArrayList<>()).add(replica.getValue()));
            return handle.createQuery(
                            """
                            SELECT f.file_id, f.size_bytes, f.crc32c, p.property_value
                            FROM files f LEFT JOIN table_properties p ON p.table_id = f.table_id AND p.property_name = 'replication'
                            ORDER BY f.table_id, f.committed_version, f.commit_ordinal
                            """)
                    .map((row, _) -> new FileReplicas(
                            row.getString("file_id"),
                            row.getLong("size_bytes"),
                            row.getInt("crc32c"),
                            replication(row.getString("property_value")),
                            replicas.getOrDefault(row.getString("file_id"), List.of())))
                    .collect(ImmutableList.toImmutableList());
        });
    }

    private int replication(String property)
    {
        if (property == null) {
            return defaultReplication;
        }
        try {
            return Math.max(1, Integer.parseInt(property.strip()));
        }
        catch (NumberFormatException e) {
            // the connector validates the property; a value it did not write means the default
            return defaultReplication;
        }
    }

    /** What the catalog committed for the file: what a copy must be identical to. */
    public Optional<FileEntry> committedFile(String fileId)
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT size_bytes, row_count, crc32c, compact_stats FROM files WHERE file_id = :file_id")
                .bind("file_id", fileId)
                .map((row, _) -> new FileEntry(fileId, row.getLong("size_bytes"), row.getLong("row_count"), row.getInt("crc32c"), ByteString.copyFrom(row.getBytes("compact_stats")), List.of(), ByteString.EMPTY))
                .findOne());
    }

    /**
     * Records a new replica, read last. False when the file is no longer committed (its table was
     * dropped meanwhile), the node is unknown, or the node already holds a replica.
     */
    public boolean addReplica(String fileId, String nodeId)
    {
        return database.inTransaction(handle -> {
            // a copy to a node whose earlier replica went missing brings that replica back
            int found = handle.createUpdate("UPDATE file_replicas SET missing = FALSE WHERE file_id = :file_id AND node_id = :node_id AND missing")
                    .bind("file_id", fileId)
                    .bind("node_id", nodeId)
                    .execute();
            if (found == 1) {
                return true;
            }
            return handle.createUpdate(
                            """
                            INSERT INTO file_replicas (file_id, node_id, ordinal)
                            SELECT f.file_id, n.node_id, (SELECT COALESCE(MAX(ordinal), -1) + 1 FROM file_replicas WHERE file_id = f.file_id)
                            FROM files f JOIN nodes n ON n.node_id = :node_id
                            WHERE f.file_id = :file_id AND NOT EXISTS (SELECT 1 FROM file_replicas WHERE file_id = f.file_id AND node_id = n.node_id)
                            """)
                    .bind("node_id", nodeId)
                    .bind("file_id", fileId)
                    .execute() == 1;
        });
    }

    /** Forgets a replica (damaged, or one too many). False when there was none. */
    public boolean removeReplica(String fileId, String nodeId)
    {
        return database.inTransaction(handle -> handle.createUpdate("DELETE FROM file_replicas WHERE file_id = :file_id AND node_id = :node_id")
                .bind("file_id", fileId)
                .bind("node_id", nodeId)
                .execute() == 1);
    }

    /** Replicas nodes stopped reporting, per node. */
    public Map<String, Long> missingReplicaCounts()
    {
        return replicaCountsPerNode(true);
    }

    /** False when the node is unknown. */
    public boolean setDraining(String nodeId, boolean draining)
    {
        return database.inTransaction(handle -> handle.createUpdate("UPDATE nodes SET draining = :draining WHERE node_id = :node_id")
                .bind("draining", draining)
                .bind("node_id", nodeId)
                .execute() == 1);
    }

    public Set<String> drainingNodes()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT node_id FROM nodes WHERE draining")
                .mapTo(String.class)
                .collect(ImmutableSet.toImmutableSet()));
    }

    /** Replicas of committed files per node (those a node reports). */
    public Map<String, Long> replicaCounts()
    {
        return replicaCountsPerNode(false);
    }

    private Map<String, Long> replicaCountsPerNode(boolean missing)
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT node_id, COUNT(*) AS replicas FROM file_replicas WHERE missing = :missing GROUP BY node_id")
                .bind("missing", missing)
                .map((row, _) -> Map.entry(row.getString("node_id"), row.getLong("replicas")))
                .collect(ImmutableMap.toImmutableMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
}
