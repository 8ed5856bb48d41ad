package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * A storage node as persisted: what it said about itself when it last registered or heartbeated.
 * Whether it is alive is not persisted; see the membership package.
 */
public record NodeEntry(
        String nodeId,
        String address,
        long capacityBytes,
        long freeBytes,
        long fileCount,
        long lastHeartbeatMillis)
{
    public NodeEntry
    {
        requireNonNull(nodeId, "nodeId is null");
        requireNonNull(address, "address is null");
    }
}
