package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.AllocationState.NODE_ID_JOINER;
import static io.nsc.metadata.catalog.AllocationState.NODE_ID_SPLITTER;
import static io.nsc.metadata.catalog.FileIds.isValidFileId;
import static java.util.Objects.requireNonNull;

/**
 * File ids issued but not yet committed, and the orphans: files no commit claims or can still
 * claim, which their storage nodes may delete.
 *
 * <p>An allocation is open for the allocation timeout after it was issued ({@link AllocationTimeout});
 * a commit ({@link CommitCatalog}) may claim only files of open allocations, and deletes the
 * allocations it claims. The allocations of writes that never committed are purged in small
 * batches once they are past the timeout and its grace ({@link #purgeAbandoned}).
 */
public final class AllocationCatalog
{
    // Bounds the work one FindOrphans call does in one transaction.
    public static final int MAX_ORPHAN_CHECK_FILE_IDS = 10_000;
    // the declared size of allocations.replica_node_ids
    private static final int MAX_REPLICA_NODE_IDS_LENGTH = 65_536;

    private final CatalogDatabase database;
    // wall-clock time: allocation times are persisted and must mean the same after a restart
    private final Clock clock;
    private final AllocationTimeout allocationTimeout;
    private final TableVersionRetention retention;

    public AllocationCatalog(CatalogDatabase database, Clock clock, AllocationTimeout allocationTimeout, TableVersionRetention retention)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.allocationTimeout = requireNonNull(allocationTimeout, "allocationTimeout is null");
        this.retention = requireNonNull(retention, "retention is null");
    }

    public void addAllocations(List<Allocation> allocations)
    {
        for (Allocation allocation : allocations) {
            if (!isValidFileId(allocation.fileId())) {
                throw new IllegalArgumentException("Invalid file id: " + allocation.fileId());
            }
        }
        if (allocations.isEmpty()) {
            return;
        }
        database.inTransaction(handle -> {
            PreparedBatch batch = handle.prepareBatch("INSERT INTO allocations (file_id, created_millis, replica_node_ids) VALUES (:file_id, :created_millis, :replica_node_ids)");
            for (Allocation allocation : allocations) {
                batch.bind("file_id", allocation.fileId())
                        .bind("created_millis", allocation.createdMillis())
                        .bind("replica_node_ids", NODE_ID_JOINER.join(allocation.replicaNodeIds()))
                        .add();
            }
            return batch.execute();
        });
    }

    /** File ids issued and not yet committed (nor purged), oldest first. */
    public List<Allocation> listAllocations()
    {
        return database.inTransaction(handle -> handle.createQuery("SELECT file_id, created_millis, replica_node_ids FROM allocations ORDER BY created_millis, file_id")
                .map((row, _) -> new Allocation(row.getString("file_id"), row.getLong("created_millis"), NODE_ID_SPLITTER.splitToList(row.getString("replica_node_ids"))))
                .list());
    }

    /**
     * Adds a node to the replicas of an open allocation, so that a commit may name it: the writer's
     * upload to a node of the allocation failed and it places that replica elsewhere. The node is
     * chosen inside the transaction, so two replacements for one file never pick the same node.
     * Nodes are only ever added: a node whose upload failed may still have stored the file.
     *
     * @param chooser the new node, given the nodes already allocated (none of which it may return);
     *        a status it throws goes to the caller, with nothing changed. It may be called more
     *        than once (see {@link CatalogDatabase}); the node it chose last is the one recorded
     * @return the allocation with the new node last
     * @throws io.grpc.StatusRuntimeException NOT_FOUND unless the allocation is open
     */
    public Allocation addReplica(String fileId, Function<List<String>, String> chooser)
    {
        if (!isValidFileId(fileId)) {
            throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters issued by AllocateFiles", fileId);
        }
        return database.inTransaction(handle -> {
            AllocationState allocation = openAllocation(handle, fileId, clock.millis());
            String nodeId = chooser.apply(allocation.replicaNodeIds());
            if (allocation.replicaNodeIds().contains(nodeId)) {
                throw new IllegalStateException("Node %s already holds a replica of file %s".formatted(nodeId, fileId));
            }
            List<String> replicas = ImmutableList.<String>builder().addAll(allocation.replicaNodeIds()).add(nodeId).build();
            String joined = NODE_ID_JOINER.join(replicas);
            if (joined.length() > MAX_REPLICA_NODE_IDS_LENGTH) {
                throw failedPrecondition("File %s cannot take another replica: its allocation already names %s nodes", fileId, allocation.replicaNodeIds().size());
            }
            handle.createUpdate("UPDATE allocations SET replica_node_ids = :replica_node_ids WHERE file_id = :file_id")
                    .bind("replica_node_ids", joined)
                    .bind("file_id", fileId)
                    .execute();
            return new Allocation(fileId, allocation.createdMillis(), replicas);
        });
    }

    /** The allocation of a file that a commit could still claim, or NOT_FOUND saying why there is none. */
    private AllocationState openAllocation(Handle handle, String fileId, long now)
    {
        Optional<AllocationState> allocation = AllocationState.find(handle, fileId);
        if (allocation.isEmpty()) {
            Optional<String> owner = TableRows.committedTo(handle, fileId);
            if (owner.isPresent()) {
                throw notFound("File %s has no open allocation: it is committed to table %s, and its replicas no longer change", fileId, owner.get());
            }
            throw notFound("File %s has no open allocation: its id was not issued by AllocateFiles, or its table was dropped", fileId);
        }
        if (!allocationTimeout.isOpen(allocation.get(), now)) {
            // its storage nodes may have deleted it as an orphan already
            throw notFound("File %s has no open allocation: it was allocated too long ago (allocation timeout %s); write it again under a new id", fileId, allocationTimeout);
        }
        return allocation.get();
    }

    /**
     * The ids among {@code fileIds} that no commit claims on {@code nodeId} or can still claim:
     * neither committed to an existing table with a replica on that node, nor a file of a table
     * dropped, or removed by a DELETE, within the table version retention (on any node: a query
     * may still read it), nor in an open allocation. A committed file whose replica the catalog
     * dropped from the node (one too many after a repair, or a drained node) is an orphan there;
     * one that has no replica row at all is never an orphan, as the node's copy may be the last.
     * An expired allocation reported here is marked, so that no later commit can claim a file
     * that a node may already have deleted, whatever the clock does.
     */
    public List<String> findOrphans(String nodeId, Collection<String> fileIds)
    {
        requireNonNull(nodeId, "nodeId is null");
        if (fileIds.size() > MAX_ORPHAN_CHECK_FILE_IDS) {
            throw invalidArgument("At most %s file ids per orphan check, got %s", MAX_ORPHAN_CHECK_FILE_IDS, fileIds.size());
        }
        for (String fileId : fileIds) {
            if (!isValidFileId(fileId)) {
                // a node that sends such an id is confused: better it deletes nothing
                throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters", fileId);
            }
        }
        Set<String> distinct = ImmutableSet.copyOf(fileIds);
        return database.inTransaction(handle -> {
            long now = clock.millis();
            // the files of tables dropped, and those DELETEs removed, longer than the retention ago are orphans from here on
            retention.purgeExpiredDrops(handle, now);
            retention.purgeExpiredRemovals(handle, now);
            ImmutableList.Builder<String> orphans = ImmutableList.builder();
            List<String> newlyOrphaned = new ArrayList<>();
            for (String fileId : distinct) {
                Optional<Boolean> claimedHere = claimedOnNode(handle, fileId, nodeId);
                if (claimedHere.isPresent()) {
                    if (!claimedHere.get()) {
                        orphans.add(fileId);
                    }
                    continue;
                }
                if (TableVersionRetention.isKeptFile(handle, fileId)) {
                    continue;
                }
                Optional<AllocationState> allocation = AllocationState.find(handle, fileId);
                if (allocation.isPresent() && allocationTimeout.isOpen(allocation.get(), now)) {
                    continue;
                }
                orphans.add(fileId);
                if (allocation.isPresent() && !allocation.get().orphaned()) {
                    newlyOrphaned.add(fileId);
                }
            }
            markOrphaned(handle, newlyOrphaned);
            return orphans.build();
        });
    }

    /**
     * Empty when the file is not committed; else whether the node may keep it: it holds one of
     * its replicas, or the file has no replica anywhere.
     */
    private static Optional<Boolean> claimedOnNode(Handle handle, String fileId, String nodeId)
    {
        return handle.createQuery(
                        """
                        SELECT EXISTS (SELECT 1 FROM file_replicas r WHERE r.file_id = f.file_id AND r.node_id = :node_id)
                            OR NOT EXISTS (SELECT 1 FROM file_replicas r WHERE r.file_id = f.file_id) AS claimed
                        FROM files f WHERE f.file_id = :file_id
                        """)
                .bind("node_id", nodeId)
                .bind("file_id", fileId)
                .map((row, _) -> row.getBoolean("claimed"))
                .findOne();
    }

    private static void markOrphaned(Handle handle, List<String> fileIds)
    {
        if (fileIds.isEmpty()) {
            return;
        }
        PreparedBatch batch = handle.prepareBatch("UPDATE allocations SET orphaned = TRUE WHERE file_id = :file_id");
        for (String fileId : fileIds) {
            batch.bind("file_id", fileId).add();
        }
        batch.execute();
    }

    /**
     * Deletes abandoned allocations (past the allocation timeout and as long again), at most
     * {@code batchSize} per transaction, until none is left: each transaction stays short, so
     * commits on this or another service wait little for it.
     *
     * @return the number of allocations deleted
     */
    public long purgeAbandoned(int batchSize)
    {
        checkArgument(batchSize > 0, "batchSize must be positive");
        long purged = 0;
        while (true) {
            int deleted = database.inTransaction(handle -> handle.createUpdate(
                            """
                            DELETE FROM allocations WHERE file_id IN (
                                SELECT file_id FROM allocations WHERE created_millis < :before ORDER BY created_millis LIMIT :batch_size)
                            """)
                    .bind("before", allocationTimeout.purgeBefore(clock.millis()))
                    .bind("batch_size", batchSize)
                    .execute());
            purged += deleted;
            if (deleted < batchSize) {
                return purged;
            }
        }
    }
}
