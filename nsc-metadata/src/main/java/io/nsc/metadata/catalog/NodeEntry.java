package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * A storage node as persisted: what it said about itself when it last registered or heartbeated
 * (as recorded by a metadata service, on that service's wall clock), and whether it is draining.
 * Whether it is alive follows from the heartbeat time; see the membership package.
 */
public record NodeEntry(
        String nodeId,
        String address,
        long capacityBytes,
        long freeBytes,
        long fileCount,
        long lastHeartbeatMillis,
        boolean draining)
{
    public NodeEntry
    {
        requireNonNull(nodeId, "nodeId is null");
        requireNonNull(address, "address is null");
    }

    /** A node as it registers: registering changes no draining mark. */
    public NodeEntry(String nodeId, String address, long capacityBytes, long freeBytes, long fileCount, long lastHeartbeatMillis)
    {
        this(nodeId, address, capacityBytes, freeBytes, fileCount, lastHeartbeatMillis, false);
    }
}
