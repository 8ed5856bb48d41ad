package io.nsc.metadata.catalog;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/** What a storage node's heartbeat changes in the catalog. */
public record NodeHeartbeat(String nodeId, long freeBytes, long fileCount, long heartbeatMillis)
{
    public NodeHeartbeat
    {
        requireNonNull(nodeId, "nodeId is null");
        checkArgument(freeBytes >= 0 && fileCount >= 0, "Negative free bytes or file count for node %s", nodeId);
    }
}
