package io.nsc.metadata.catalog;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A file id the service issued and nobody has committed yet, with the nodes chosen to hold it.
 */
public record Allocation(String fileId, long createdMillis, List<String> replicaNodeIds)
{
    public Allocation
    {
        requireNonNull(fileId, "fileId is null");
        replicaNodeIds = List.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
    }
}
