package io.nsc.metadata.membership;

import com.google.common.base.Ticker;
import com.google.common.net.HostAndPort;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.nsc.metadata.catalog.NodeCatalog;
import io.nsc.metadata.catalog.NodeEntry;
import io.nsc.metadata.catalog.ReplicaSync;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Storage-node membership. Nodes and what they reported are persisted in the catalog; whether a
 * node is alive is not: it is judged from heartbeats received since this service started, on a
 * monotonic clock. After a restart every persisted node is known (its heartbeats are answered
 * with {@code known=true}, and its replicas still count) but it is not used for new placements
 * until it has heartbeated again.
 */
public final class NodeRegistry
{
    private static final Logger log = Logger.get(NodeRegistry.class);

    // Node ids are joined with commas in the allocations table and appear in file paths of logs
    // and tools, so they are kept to a conservative alphabet.
    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,255}");

    private final NodeCatalog catalog;
    private final Ticker ticker;
    private final long nodeTimeoutNanos;
    private final ConcurrentMap<String, Node> nodes = new ConcurrentHashMap<>();
    private final Set<String> draining = ConcurrentHashMap.newKeySet();
    // a node not seen since this service started counts as unseen since then
    private final long startNanos;

    public NodeRegistry(NodeCatalog catalog, Ticker ticker, Duration nodeTimeout)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.nodeTimeoutNanos = nodeTimeout.roundTo(NANOSECONDS);
        this.startNanos = ticker.read();
        for (NodeEntry entry : catalog.listNodes()) {
            nodes.put(entry.nodeId(), new Node(entry.nodeId(), entry.address(), entry.capacityBytes(), entry.freeBytes(), entry.fileCount(), 0, entry.lastHeartbeatMillis(), OptionalLong.empty()));
        }
    }

    /**
     * Adds or updates a node (its address may have changed) and makes the catalog's replicas on
     * it match the files it reports. The node is alive from now on.
     */
    public ReplicaSync register(String nodeId, String address, long capacityBytes, long freeBytes, Collection<String> fileIds)
    {
        checkNodeId(nodeId);
        checkAddress(address);
        if (capacityBytes < 0 || freeBytes < 0) {
            throw invalidArgument("Node %s reports negative capacity or free bytes", nodeId);
        }
        long nowMillis = System.currentTimeMillis();
        ReplicaSync sync = catalog.registerNode(new NodeEntry(nodeId, address, capacityBytes, freeBytes, fileIds.size(), nowMillis), fileIds);
        Node previous = nodes.put(nodeId, new Node(nodeId, address, capacityBytes, freeBytes, fileIds.size(), 0, nowMillis, OptionalLong.of(ticker.read())));
        if (previous == null || !previous.address().equals(address) || sync.added() > 0 || sync.removed() > 0) {
            log.info("Storage node %s registered at %s with %s files (replicas added: %s, missing: %s)", nodeId, address, fileIds.size(), sync.added(), sync.removed());
        }
        if (sync.removed() > 0) {
            log.warn("Storage node %s no longer has %s of the replicas the catalog places on it (an unmounted or replaced disk?): "
                    + "they are marked missing, not forgotten, and copied to other nodes; reported again, they count again", nodeId, sync.removed());
        }
        return sync;
    }

    /**
     * @return false when the node is unknown (never registered, or registered with a metadata
     *         service whose data was lost): it should register again
     */
    public boolean heartbeat(String nodeId, long freeBytes, long fileCount, double load)
    {
        requireNonNull(nodeId, "nodeId is null");
        if (freeBytes < 0 || fileCount < 0) {
            throw invalidArgument("Node %s reports negative free bytes or file count", nodeId);
        }
        long nowMillis = System.currentTimeMillis();
        long nowNanos = ticker.read();
        // NaN or out-of-range loads from a confused node must not poison scan-mode choices
        double boundedLoad = Double.isNaN(load) ? 0 : Math.clamp(load, 0.0, 1.0);
        Node updated = nodes.computeIfPresent(nodeId, (_, node) -> node.heartbeat(freeBytes, fileCount, boundedLoad, nowMillis, nowNanos));
        if (updated == null) {
            return false;
        }
        catalog.updateNodeHeartbeat(nodeId, freeBytes, fileCount, nowMillis);
        return true;
    }

    public Optional<StorageNodeState> node(String nodeId)
    {
        return Optional.ofNullable(nodes.get(nodeId)).map(node -> node.state(isAlive(node, ticker.read()), draining.contains(nodeId)));
    }

    /** Marks nodes as draining or not (the catalog keeps the mark; this is its copy for placement). */
    public void setDraining(String nodeId, boolean isDraining)
    {
        if (isDraining) {
            draining.add(nodeId);
        }
        else {
            draining.remove(nodeId);
        }
    }

    /**
     * How long since the node last showed a sign of life (since this service started, for a node
     * not seen since); empty for an unknown node.
     */
    public Optional<java.time.Duration> unseenFor(String nodeId)
    {
        Node node = nodes.get(nodeId);
        if (node == null) {
            return Optional.empty();
        }
        long lastSeen = node.lastSeenNanos().orElse(startNanos);
        return Optional.of(java.time.Duration.ofNanos(ticker.read() - lastSeen));
    }

    /** Every known node, alive or not, ordered by id. */
    public List<StorageNodeState> nodes()
    {
        long now = ticker.read();
        return nodes.values().stream()
                .map(node -> node.state(isAlive(node, now), draining.contains(node.nodeId())))
                .sorted(Comparator.comparing(StorageNodeState::nodeId))
                .collect(toImmutableList());
    }

    public List<StorageNodeState> liveNodes()
    {
        return nodes().stream()
                .filter(StorageNodeState::alive)
                .collect(toImmutableList());
    }

    public int nodeCount()
    {
        return nodes.size();
    }

    public int liveNodeCount()
    {
        long now = ticker.read();
        return (int) nodes.values().stream()
                .filter(node -> isAlive(node, now))
                .count();
    }

    private boolean isAlive(Node node, long nowNanos)
    {
        return node.lastSeenNanos().isPresent() && nowNanos - node.lastSeenNanos().getAsLong() <= nodeTimeoutNanos;
    }

    private static void checkNodeId(String nodeId)
    {
        if (nodeId == null || !NODE_ID.matcher(nodeId).matches()) {
            throw invalidArgument("Invalid node id '%s': use up to 256 letters, digits, '.', '_', ':' or '-', starting with a letter or digit", nodeId);
        }
    }

    private static void checkAddress(String address)
    {
        try {
            HostAndPort hostAndPort = HostAndPort.fromString(requireNonNull(address, "address is null"));
            if (hostAndPort.getHost().isEmpty() || !hostAndPort.hasPort()) {
                throw new IllegalArgumentException("expected host:port");
            }
        }
        catch (IllegalArgumentException e) {
            throw invalidArgument("Invalid node address '%s': expected host:port", address);
        }
    }

    private record Node(
            String nodeId,
            String address,
            long capacityBytes,
            long freeBytes,
            long fileCount,
            double load,
            long lastHeartbeatMillis,
            // monotonic time of the last sign of life since this service started
            OptionalLong lastSeenNanos)
    {
        Node heartbeat(long freeBytes, long fileCount, double load, long nowMillis, long nowNanos)
        {
            return new Node(nodeId, address, capacityBytes, freeBytes, fileCount, load, nowMillis, OptionalLong.of(nowNanos));
        }

        StorageNodeState state(boolean alive, boolean draining)
        {
            return new StorageNodeState(nodeId, address, capacityBytes, freeBytes, fileCount, load, lastHeartbeatMillis, alive, draining);
        }
    }
}
