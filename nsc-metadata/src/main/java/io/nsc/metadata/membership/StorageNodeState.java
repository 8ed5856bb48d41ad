package io.nsc.metadata.membership;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A snapshot of what the service knows about one storage node.
 *
 * @param lastHeartbeatMillis wall-clock time of the last registration or heartbeat, for display;
 *        liveness is decided with a monotonic clock, see {@link NodeRegistry}
 * @param load the node's recent CPU load in [0, 1] from its last heartbeat; 0 until one arrives
 * @param draining the node gets no new replicas, and its replicas are moved away
 */
public record StorageNodeState(
        String nodeId,
        String address,
        long capacityBytes,
        long freeBytes,
        long fileCount,
        double load,
        long lastHeartbeatMillis,
        boolean alive,
        boolean draining)
{
    public StorageNodeState
    {
        requireNonNull(nodeId, "nodeId is null");
        requireNonNull(address, "address is null");
        checkArgument(capacityBytes >= 0, "capacityBytes is negative");
        checkArgument(freeBytes >= 0, "freeBytes is negative");
    }

    public StorageNodeState(String nodeId, String address, long capacityBytes, long freeBytes, long fileCount, double load, long lastHeartbeatMillis, boolean alive)
    {
        this(nodeId, address, capacityBytes, freeBytes, fileCount, load, lastHeartbeatMillis, alive, false);
    }

    /** Alive and not draining: may receive new replicas. */
    public boolean acceptsReplicas()
    {
        return alive && !draining;
    }
}
