package io.nsc.metadata.catalog;

import com.google.common.base.Joiner;
import com.google.common.base.Splitter;
import org.jdbi.v3.core.Handle;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/** What a commit, an orphan check or a replacement needs to know about an allocation. */
record AllocationState(long createdMillis, boolean orphaned, List<String> replicaNodeIds)
{
    // node ids are kept to an alphabet without commas (see NodeRegistry)
    static final Joiner NODE_ID_JOINER = Joiner.on(',');
    static final Splitter NODE_ID_SPLITTER = Splitter.on(',').omitEmptyStrings();

    AllocationState
    {
        replicaNodeIds = List.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
    }

    static Optional<AllocationState> find(Handle handle, String fileId)
    {
        return handle.createQuery("SELECT created_millis, orphaned, replica_node_ids FROM allocations WHERE file_id = :file_id")
                .bind("file_id", fileId)
                .map((row, _) -> new AllocationState(row.getLong("created_millis"), row.getBoolean("orphaned"), NODE_ID_SPLITTER.splitToList(row.getString("replica_node_ids"))))
                .findOne();
    }
}
