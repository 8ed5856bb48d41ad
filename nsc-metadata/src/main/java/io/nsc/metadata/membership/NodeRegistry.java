package io.nsc.metadata.membership;

import com.google.common.base.Ticker;
import com.google.common.net.HostAndPort;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.nsc.metadata.catalog.CatalogNode;
import io.nsc.metadata.catalog.NodeCatalog;
import io.nsc.metadata.catalog.NodeEntry;
import io.nsc.metadata.catalog.NodeHeartbeat;
import io.nsc.metadata.catalog.ReplicaSync;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;

import java.time.Clock;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * Storage-node membership, shared by every metadata service over one catalog.
 *
 * <p>A node heartbeats to one service (the first of its list it reaches). That service keeps the
 * beat in memory and records the beats of all its nodes in the catalog in one transaction per
 * sync interval, rather than one write per beat; every service reads the catalog's nodes each
 * interval and adopts a beat another service recorded. So a node is alive on every service if
 * any of them heard from it within the node timeout, give or take one sync interval, and a
 * service that has just started (or taken over from a dead one) knows at once which nodes are
 * alive. Recorded beats carry the recording service's wall-clock time: the services' clocks must
 * agree to well within the node timeout (NTP does). Beats this service receives are timed on a
 * monotonic clock, so its own liveness judgement does not move with the wall clock.
 */
public final class NodeRegistry
        implements AutoCloseable
{
    private static final Logger log = Logger.get(NodeRegistry.class);

    // Node ids are joined with commas in the allocations table and appear in file paths of logs
    // and tools, so they are kept to a conservative alphabet.
    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,255}");
    // a beat recorded longer ago than this is as dead as one a year old; keeps nanosecond sums in range
    private static final long MAX_AGE_MILLIS = DAYS.toMillis(365);

    private final NodeCatalog catalog;
    private final Ticker ticker;
    private final Clock clock;
    private final long nodeTimeoutNanos;
    private final Duration syncInterval;
    private final ConcurrentMap<String, Node> nodes = new ConcurrentHashMap<>();
    private final Set<String> draining = ConcurrentHashMap.newKeySet();
    // beats received since the last sync, by node: only the newest per node is recorded
    private final ConcurrentMap<String, NodeHeartbeat> unrecorded = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-membership-%s"));
    // a node not seen since this service started counts as unseen since then
    private final long startNanos;

    public NodeRegistry(NodeCatalog catalog, Ticker ticker, Clock clock, Duration nodeTimeout, Duration syncInterval)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.nodeTimeoutNanos = nodeTimeout.roundTo(NANOSECONDS);
        this.syncInterval = requireNonNull(syncInterval, "syncInterval is null");
        this.startNanos = ticker.read();
        refresh();
    }

    @PostConstruct
    public void start()
    {
        long intervalMillis = syncInterval.toMillis();
        executor.scheduleWithFixedDelay(() -> {
            try {
                sync();
            }
            catch (RuntimeException e) {
                // the catalog unreachable for a moment: the beats stay pending and are recorded next time
                log.warn(e, "Cannot sync storage-node heartbeats with the catalog");
            }
        }, intervalMillis, intervalMillis, MILLISECONDS);
    }

    @PreDestroy
    @Override
    public void close()
    {
        executor.shutdownNow();
    }

    /** Records the beats received here, then adopts what other services recorded. */
    public void sync()
    {
        recordHeartbeats();
        refresh();
    }

    /** Writes the beats received since the last call in one transaction. */
    void recordHeartbeats()
    {
        Map<String, NodeHeartbeat> pending = Map.copyOf(unrecorded);
        if (pending.isEmpty()) {
            return;
        }
        catalog.recordHeartbeats(List.copyOf(pending.values()));
        // a newer beat that arrived meanwhile stays pending
        pending.forEach(unrecorded::remove);
    }

    /**
     * Adopts from the catalog the nodes registered with other services and the beats they
     * recorded, when newer than what this service heard itself, and the draining marks.
     */
    void refresh()
    {
        long nowMillis = clock.millis();
        long nowNanos = ticker.read();
        Set<String> drainingNow = new HashSet<>();
        for (CatalogNode node : catalog.nodes()) {
            NodeEntry entry = node.entry();
            if (node.draining()) {
                drainingNow.add(entry.nodeId());
            }
            nodes.compute(entry.nodeId(), (_, local) -> {
                if (local != null && local.lastHeartbeatMillis() >= entry.lastHeartbeatMillis()) {
                    return local;
                }
                long ageMillis = Math.clamp(nowMillis - entry.lastHeartbeatMillis(), 0, MAX_AGE_MILLIS);
                double load = local == null ? 0 : local.load();
                return new Node(entry.nodeId(), entry.address(), entry.capacityBytes(), entry.freeBytes(), entry.fileCount(), load,
                        entry.lastHeartbeatMillis(), OptionalLong.of(nowNanos - MILLISECONDS.toNanos(ageMillis)));
            });
        }
        draining.retainAll(drainingNow);
        draining.addAll(drainingNow);
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
        long nowMillis = clock.millis();
        ReplicaSync sync = catalog.registerNode(new NodeEntry(nodeId, address, capacityBytes, freeBytes, fileIds.size(), nowMillis), fileIds);
        unrecorded.remove(nodeId);
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
        long nowMillis = clock.millis();
        long nowNanos = ticker.read();
        // NaN or out-of-range loads from a confused node must not poison scan-mode choices
        double boundedLoad = Double.isNaN(load) ? 0 : Math.clamp(load, 0.0, 1.0);
        Node updated = nodes.computeIfPresent(nodeId, (_, node) -> node.heartbeat(freeBytes, fileCount, boundedLoad, nowMillis, nowNanos));
        if (updated == null) {
            return false;
        }
        unrecorded.put(nodeId, new NodeHeartbeat(nodeId, freeBytes, fileCount, nowMillis));
        return true;
    }

    public Optional<StorageNodeState> node(String nodeId)
    {
        return Optional.ofNullable(nodes.get(nodeId)).map(node -> node.state(isAlive(node, ticker.read()), draining.contains(nodeId)));
    }

    /**
     * Marks nodes as draining or not (the catalog keeps the mark; this is its copy for placement,
     * which other services adopt at their next sync).
     */
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
