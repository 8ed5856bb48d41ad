package io.nsc.metadata.catalog;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/** What one heartbeat said about a storage node, and when (wall clock) it arrived. */
public record NodeHeartbeat(String nodeId, long freeBytes, long fileCount, long heartbeatMillis)
{
    public NodeHeartbeat
    {
        requireNonNull(nodeId, "nodeId is null");
        checkArgument(freeBytes >= 0, "freeBytes is negative");
        checkArgument(fileCount >= 0, "fileCount is negative");
    }
}
