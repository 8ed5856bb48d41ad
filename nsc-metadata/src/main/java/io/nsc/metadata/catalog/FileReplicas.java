package io.nsc.metadata.catalog;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Where a committed file's replicas are, against how many its table wants.
 *
 * @param nodeIds the nodes holding a replica, in the order readers try them
 */
public record FileReplicas(String fileId, long sizeBytes, int crc32c, int replication, List<String> nodeIds)
{
    public FileReplicas
    {
        requireNonNull(fileId, "fileId is null");
        checkArgument(replication > 0, "replication must be positive");
        nodeIds = List.copyOf(nodeIds);
    }
}
