package io.nsc.metadata.server;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.airlift.stats.CounterStat;
import io.nsc.metadata.catalog.RemovalCounts;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.metadata.repair.ReplicationMonitor;
import io.nsc.protocol.proto.GetReplicationStatusResponse;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The service's counters, exported over JMX and served as text at {@code /v1/metrics}.
 */
public final class MetadataStats
{
    private final NodeRegistry nodes;
    private final ReplicationMonitor replication;
    private final CounterStat commits = new CounterStat();
    private final CounterStat filesCommitted = new CounterStat();
    private final CounterStat tablesCreated = new CounterStat();
    private final CounterStat tablesDropped = new CounterStat();
    private final CounterStat filesReleased = new CounterStat();
    private final CounterStat deletes = new CounterStat();
    private final CounterStat filesRemoved = new CounterStat();
    private final CounterStat rowGroupsRemoved = new CounterStat();
    private final CounterStat filesRewritten = new CounterStat();
    private final CounterStat rowsDeleted = new CounterStat();
    private final CounterStat optimizes = new CounterStat();
    private final CounterStat orphanChecks = new CounterStat();
    private final CounterStat orphansReported = new CounterStat();
    private final CounterStat allocations = new CounterStat();
    private final CounterStat filesAllocated = new CounterStat();
    private final CounterStat replicasReplaced = new CounterStat();
    private final CounterStat nodeRegistrations = new CounterStat();
    private final CounterStat tableLookups = new CounterStat();
    private final CounterStat tableDefinitionPages = new CounterStat();
    private final CounterStat tableDefinitionsListed = new CounterStat();
    private final CounterStat tableFileListings = new CounterStat();
    private final CounterStat tableFilesListed = new CounterStat();
    private final CounterStat rpcErrors = new CounterStat();
    private final CounterStat internalErrors = new CounterStat();

    @Inject
    public MetadataStats(NodeRegistry nodes, ReplicationMonitor replication)
    {
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.replication = requireNonNull(replication, "replication is null");
    }

    public void committed(int fileCount, boolean tableCreated)
    {
        commits.update(1);
        filesCommitted.update(fileCount);
        if (tableCreated) {
            tablesCreated.update(1);
        }
    }

    public void tableCreated()
    {
        tablesCreated.update(1);
    }

    public void tableDropped(int filesReleasedByDrop)
    {
        tablesDropped.update(1);
        filesReleased.update(filesReleasedByDrop);
    }

    /** A DELETE's commit: what it removed in the metadata alone, and what it rewrote. */
    public void removed(RemovalCounts removed)
    {
        deletes.update(1);
        filesRemoved.update(removed.filesRemoved());
        rowGroupsRemoved.update(removed.rowGroupsRemoved());
        filesRewritten.update(removed.filesRewritten());
        rowsDeleted.update(removed.rowsRemoved());
    }

    /** An OPTIMIZE's commit: the files it rewrote, which count among {@code files_rewritten} too. */
    public void optimized(RemovalCounts removed)
    {
        optimizes.update(1);
        filesRewritten.update(removed.filesRewritten());
    }

    public void orphanCheck(int orphans)
    {
        orphanChecks.update(1);
        orphansReported.update(orphans);
    }

    public void allocated(int fileCount)
    {
        allocations.update(1);
        filesAllocated.update(fileCount);
    }

    /** A writer's upload failed on a node and the replica was placed on another. */
    public void replicaReplaced()
    {
        replicasReplaced.update(1);
    }

    /** One GetTable answer: every query plans with one, so it shows which service a Trino cluster uses. */
    public void tableLookedUp()
    {
        tableLookups.update(1);
    }

    /** One ListTableDefinitions answer with this many tables: the listings information_schema and JDBC metadata make. */
    public void tableDefinitionsListed(int tableCount)
    {
        tableDefinitionPages.update(1);
        tableDefinitionsListed.update(tableCount);
    }

    /** One GetTableFiles answer (a page, or a whole table) with this many files. */
    public void tableFilesListed(int fileCount)
    {
        tableFileListings.update(1);
        tableFilesListed.update(fileCount);
    }

    public void nodeRegistered()
    {
        nodeRegistrations.update(1);
    }

    /**
     * @param internal whether the failure is the service's own (rather than the caller's)
     */
    public void rpcFailed(boolean internal)
    {
        rpcErrors.update(1);
        if (internal) {
            internalErrors.update(1);
        }
    }

    @Managed
    @Nested
    public CounterStat getCommits()
    {
        return commits;
    }

    @Managed
    @Nested
    public CounterStat getFilesCommitted()
    {
        return filesCommitted;
    }

    @Managed
    @Nested
    public CounterStat getTablesCreated()
    {
        return tablesCreated;
    }

    @Managed
    @Nested
    public CounterStat getTablesDropped()
    {
        return tablesDropped;
    }

    @Managed
    @Nested
    public CounterStat getFilesReleased()
    {
        return filesReleased;
    }

    @Managed
    @Nested
    public CounterStat getDeletes()
    {
        return deletes;
    }

    @Managed
    @Nested
    public CounterStat getOptimizes()
    {
        return optimizes;
    }

    @Managed
    @Nested
    public CounterStat getFilesRemoved()
    {
        return filesRemoved;
    }

    @Managed
    @Nested
    public CounterStat getRowGroupsRemoved()
    {
        return rowGroupsRemoved;
    }

    @Managed
    @Nested
    public CounterStat getFilesRewritten()
    {
        return filesRewritten;
    }

    @Managed
    @Nested
    public CounterStat getRowsDeleted()
    {
        return rowsDeleted;
    }

    @Managed
    @Nested
    public CounterStat getOrphanChecks()
    {
        return orphanChecks;
    }

    @Managed
    @Nested
    public CounterStat getOrphansReported()
    {
        return orphansReported;
    }

    @Managed
    @Nested
    public CounterStat getAllocations()
    {
        return allocations;
    }

    @Managed
    @Nested
    public CounterStat getFilesAllocated()
    {
        return filesAllocated;
    }

    @Managed
    @Nested
    public CounterStat getReplicasReplaced()
    {
        return replicasReplaced;
    }

    @Managed
    @Nested
    public CounterStat getNodeRegistrations()
    {
        return nodeRegistrations;
    }

    @Managed
    @Nested
    public CounterStat getTableLookups()
    {
        return tableLookups;
    }

    @Managed
    @Nested
    public CounterStat getTableDefinitionPages()
    {
        return tableDefinitionPages;
    }

    @Managed
    @Nested
    public CounterStat getTableDefinitionsListed()
    {
        return tableDefinitionsListed;
    }

    @Managed
    @Nested
    public CounterStat getTableFileListings()
    {
        return tableFileListings;
    }

    @Managed
    @Nested
    public CounterStat getTableFilesListed()
    {
        return tableFilesListed;
    }

    @Managed
    @Nested
    public CounterStat getRpcErrors()
    {
        return rpcErrors;
    }

    @Managed
    @Nested
    public CounterStat getInternalErrors()
    {
        return internalErrors;
    }

    @Managed
    public int getRegisteredNodes()
    {
        return nodes.nodeCount();
    }

    @Managed
    public int getLiveNodes()
    {
        return nodes.liveNodeCount();
    }

    /** Totals since start, for {@code /v1/metrics}. */
    public Map<String, Number> metrics()
    {
        GetReplicationStatusResponse status = replication.status();
        return ImmutableMap.<String, Number>builder()
                .put("commits", commits.getTotalCount())
                .put("files_committed", filesCommitted.getTotalCount())
                .put("tables_created", tablesCreated.getTotalCount())
                .put("tables_dropped", tablesDropped.getTotalCount())
                .put("files_released", filesReleased.getTotalCount())
                .put("deletes", deletes.getTotalCount())
                .put("files_removed", filesRemoved.getTotalCount())
                .put("row_groups_removed", rowGroupsRemoved.getTotalCount())
                .put("files_rewritten", filesRewritten.getTotalCount())
                .put("rows_deleted", rowsDeleted.getTotalCount())
                .put("optimizes", optimizes.getTotalCount())
                .put("orphan_checks", orphanChecks.getTotalCount())
                .put("orphans_reported", orphansReported.getTotalCount())
                .put("allocations", allocations.getTotalCount())
                .put("files_allocated", filesAllocated.getTotalCount())
                .put("replicas_replaced", replicasReplaced.getTotalCount())
                .put("node_registrations", nodeRegistrations.getTotalCount())
                .put("table_lookups", tableLookups.getTotalCount())
                .put("table_definition_pages", tableDefinitionPages.getTotalCount())
                .put("table_definitions_listed", tableDefinitionsListed.getTotalCount())
                .put("table_file_pages", tableFileListings.getTotalCount())
                .put("table_files_listed", tableFilesListed.getTotalCount())
                .put("registered_nodes", getRegisteredNodes())
                .put("live_nodes", getLiveNodes())
                .put("rpc_errors", rpcErrors.getTotalCount())
                .put("internal_errors", internalErrors.getTotalCount())
                // durability: as of the last replication check, and copies since start
                .put("committed_files", status.getFileCount())
                .put("under_replicated_files", status.getUnderReplicatedFiles())
                .put("unavailable_files", status.getUnavailableFiles())
                .put("copies_in_flight", status.getCopiesInFlight())
                .put("copies_completed", status.getCopiesCompleted())
                .put("bytes_copied", status.getBytesCopied())
                .put("copies_failed", status.getCopiesFailed())
                .put("replicas_trimmed", status.getReplicasTrimmed())
                .put("damaged_replicas_reported", status.getDamagedReplicasReported())
                .put("missing_replicas", status.getMissingReplicas())
                .put("draining_nodes", nodes.nodes().stream().filter(StorageNodeState::draining).count())
                .buildOrThrow();
    }
}
