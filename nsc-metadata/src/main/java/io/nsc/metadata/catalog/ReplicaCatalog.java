package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.protobuf.ByteString;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
        return database.inTransaction(connection -> {
            Map<String, List<String>> replicas = new HashMap<>();
            try (PreparedStatement statement = connection.prepareStatement("SELECT file_id, node_id FROM file_replicas WHERE NOT missing ORDER BY file_id, ordinal");
                    ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    replicas.computeIfAbsent(rows.getString(1), _ -> new ArrayList<>()).add(rows.getString(2));
                }
            }
            ImmutableList.Builder<FileReplicas> files = ImmutableList.builder();
            try (PreparedStatement statement = connection.prepareStatement(
                    """
                    SELECT f.file_id, f.size_bytes, f.crc32c, p.property_value
                    FROM files f LEFT JOIN table_properties p ON p.table_id = f.table_id AND p.property_name = 'replication'
                    ORDER BY f.table_id, f.committed_version, f.commit_ordinal
                    """);
                    ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    String fileId = rows.getString(1);
                    files.add(new FileReplicas(fileId, rows.getLong(2), rows.getInt(3), replication(rows.getString(4)), replicas.getOrDefault(fileId, List.of())));
                }
            }
            return files.build();
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
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT size_bytes, row_count, crc32c, compact_stats FROM files WHERE file_id = ?")) {
                statement.setString(1, fileId);
                try (ResultSet row = statement.executeQuery()) {
                    if (!row.next()) {
                        return Optional.empty();
                    }
                    return Optional.of(new FileEntry(fileId, row.getLong(1), row.getLong(2), row.getInt(3), ByteString.copyFrom(row.getBytes(4)), List.of(), ByteString.EMPTY));
                }
            }
        });
    }

    /**
     * Records a new replica, read last. False when the file is no longer committed (its table was
     * dropped meanwhile), the node is unknown, or the node already holds a replica.
     */
    public boolean addReplica(String fileId, String nodeId)
    {
        return database.inTransaction(connection -> {
            // a copy to a node whose earlier replica went missing brings that replica back
            try (PreparedStatement found = connection.prepareStatement("UPDATE file_replicas SET missing = FALSE WHERE file_id = ? AND node_id = ? AND missing")) {
                found.setString(1, fileId);
                found.setString(2, nodeId);
                if (found.executeUpdate() == 1) {
                    return true;
                }
            }
            try (PreparedStatement statement = connection.prepareStatement(
                    """
                    INSERT INTO file_replicas (file_id, node_id, ordinal)
                    SELECT f.file_id, n.node_id, (SELECT COALESCE(MAX(ordinal), -1) + 1 FROM file_replicas WHERE file_id = f.file_id)
                    FROM files f JOIN nodes n ON n.node_id = ?
                    WHERE f.file_id = ? AND NOT EXISTS (SELECT 1 FROM file_replicas WHERE file_id = f.file_id AND node_id = n.node_id)
                    """)) {
                statement.setString(1, nodeId);
                statement.setString(2, fileId);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /** Forgets a replica (damaged, or one too many). False when there was none. */
    public boolean removeReplica(String fileId, String nodeId)
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("DELETE FROM file_replicas WHERE file_id = ? AND node_id = ?")) {
                statement.setString(1, fileId);
                statement.setString(2, nodeId);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /** Replicas nodes stopped reporting, per node. */
    public Map<String, Long> missingReplicaCounts()
    {
        return replicaCountsPerNode(true);
    }

    /** False when the node is unknown. */
    public boolean setDraining(String nodeId, boolean draining)
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("UPDATE nodes SET draining = ? WHERE node_id = ?")) {
                statement.setBoolean(1, draining);
                statement.setString(2, nodeId);
                return statement.executeUpdate() == 1;
            }
        });
    }

    public Set<String> drainingNodes()
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT node_id FROM nodes WHERE draining");
                    ResultSet rows = statement.executeQuery()) {
                ImmutableSet.Builder<String> nodes = ImmutableSet.builder();
                while (rows.next()) {
                    nodes.add(rows.getString(1));
                }
                return nodes.build();
            }
        });
    }

    /** Replicas of committed files per node (those a node reports). */
    public Map<String, Long> replicaCounts()
    {
        return replicaCountsPerNode(false);
    }

    private Map<String, Long> replicaCountsPerNode(boolean missing)
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT node_id, COUNT(*) FROM file_replicas WHERE missing = ? GROUP BY node_id")) {
                statement.setBoolean(1, missing);
                try (ResultSet rows = statement.executeQuery()) {
                    ImmutableMap.Builder<String, Long> counts = ImmutableMap.builder();
                    while (rows.next()) {
                        counts.put(rows.getString(1), rows.getLong(2));
                    }
                    return counts.buildOrThrow();
                }
            }
        });
    }
}
