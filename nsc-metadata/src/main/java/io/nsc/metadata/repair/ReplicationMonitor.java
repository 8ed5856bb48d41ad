package io.nsc.metadata.repair;

import com.google.common.base.Ticker;
import com.google.protobuf.ByteString;
import io.airlift.log.Logger;
import io.airlift.units.Duration;
import io.nsc.metadata.catalog.FileEntry;
import io.nsc.metadata.catalog.FileReplicas;
import io.nsc.metadata.catalog.ReplicaCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.proto.CopyTask;
import io.nsc.protocol.proto.DamagedReplica;
import io.nsc.protocol.proto.FailedCopy;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.GetReplicationStatusResponse;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.SignedMessages;
import io.nsc.protocol.stats.CompactFileStats;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static io.nsc.metadata.MetadataErrors.notFound;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Keeps every committed file at its table's replication, as HDFS's NameNode does for blocks:
 * <ul>
 * <li>a replica counts while its node is alive, or down for less than the loss timeout (a
 *     restart should not trigger copies), and not draining;</li>
 * <li>a file with fewer such replicas gets copies: a node that takes new files and does not hold
 *     it pulls it from a live holder; the task rides on the target's next heartbeat, and the
 *     replica is committed when the node attests the copy;</li>
 * <li>a file with more replicas than wanted on live nodes (a lost node came back, or a drained
 *     node's copies were made) loses the surplus, drained nodes first, then the newest copies;
 *     the nodes delete what the catalog no longer places on them (FindOrphans);</li>
 * <li>a damaged copy a node reports is forgotten at once, so that it is repaired.</li>
 * </ul>
 * Copies in flight are kept in memory: after a restart the next check plans them again, and a
 * copy that completes unreported is reclaimed by its node as an orphan.
 */
public final class ReplicationMonitor
        implements AutoCloseable
{
    private static final Logger log = Logger.get(ReplicationMonitor.class);

    private final ReplicaCatalog catalog;
    private final NodeRegistry nodes;
    private final ReplicationLeadership leadership;
    private final GrantAuthority grants;
    private final boolean requireSignatures;
    private final Ticker ticker;
    private final java.time.Duration lossTimeout;
    private final long copyTimeoutNanos;
    private final int maxCopiesPerNode;
    private final long checkIntervalMillis;
    private final ScheduledExecutorService executor = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-replication-%s"));

    // guarded by this: file id -> target node -> copy
    private final Map<String, Map<String, Copy>> copies = new HashMap<>();
    // guarded by this: file id -> nodes that quarantined a copy of it, until it is fully replicated
    private final Map<String, Set<String>> damagedOn = new HashMap<>();
    private ReplicationStatus status = ReplicationStatus.NONE;
    private long copiesCompleted;
    private long bytesCopied;
    private long copiesFailed;
    private long replicasTrimmed;
    private long damagedReported;

    public ReplicationMonitor(ReplicaCatalog catalog, NodeRegistry nodes, ReplicationLeadership leadership, GrantAuthority grants, boolean requireSignatures, Ticker ticker,
            Duration lossTimeout, Duration copyTimeout, int maxCopiesPerNode, Duration checkInterval)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.nodes = requireNonNull(nodes, "nodes is null");
        this.leadership = requireNonNull(leadership, "leadership is null");
        this.grants = requireNonNull(grants, "grants is null");
        this.requireSignatures = requireSignatures;
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.lossTimeout = lossTimeout.toJavaTime();
        this.copyTimeoutNanos = copyTimeout.roundTo(TimeUnit.NANOSECONDS);
        this.maxCopiesPerNode = maxCopiesPerNode;
        this.checkIntervalMillis = checkInterval.toMillis();
        catalog.drainingNodes().forEach(nodeId -> nodes.setDraining(nodeId, true));
    }

    @PostConstruct
    public void start()
    {
        executor.scheduleWithFixedDelay(() -> {
            try {
                check();
            }
            catch (RuntimeException e) {
                // one failed check (the catalog busy, a bug) must not end replication monitoring
                log.error(e, "Replication check failed");
            }
        }, checkIntervalMillis, checkIntervalMillis, MILLISECONDS);
    }

    /**
     * One pass over every committed file: counts what is under-replicated and, on the leader only,
     * plans copies and trims surplus replicas. A service that is not (or no longer) the leader
     * forgets the copies it planned: the leader plans its own.
     */
    public synchronized ReplicationStatus check()
    {
        long now = ticker.read();
        boolean leading = leadership.tryLead();
        if (!leading) {
            copies.clear();
        }
        expireCopies(now);
        Map<String, StorageNodeState> byId = nodes.nodes().stream().collect(toImmutableMap(StorageNodeState::nodeId, Function.identity()));
        Map<String, Integer> copiesPerTarget = copiesPerTarget();
        long files = 0;
        long underReplicated = 0;
        long unavailable = 0;
        Set<String> underReplicatedIds = new HashSet<>();
        for (FileReplicas file : catalog.fileReplicas()) {
            files++;
            List<String> counted = file.nodeIds().stream().filter(nodeId -> counts(byId.get(nodeId))).toList();
            List<StorageNodeState> sources = file.nodeIds().stream()
                    .map(byId::get)
                    .filter(node -> node != null && node.alive())
                    // copies come from nodes that stay, when there are any
                    .sorted(Comparator.comparing(StorageNodeState::draining))
                    .toList();
            if (counted.size() < file.replication()) {
                underReplicated++;
                underReplicatedIds.add(file.fileId());
                if (sources.isEmpty()) {
                    unavailable++;
                    continue;
                }
                if (leading) {
                    planCopies(file, file.replication() - counted.size(), sources, byId, copiesPerTarget, now);
                }
            }
            else if (leading && !copies.containsKey(file.fileId())) {
                trim(file, byId);
            }
        }
        damagedOn.keySet().retainAll(underReplicatedIds);
        status = new ReplicationStatus(files, underReplicated, unavailable, catalog.missingReplicaCounts().values().stream().mapToLong(Long::longValue).sum());
        return status;
    }

    private boolean counts(StorageNodeState node)
    {
        if (node == null || node.draining()) {
            return false;
        }
        return node.alive() || nodes.unseenFor(node.nodeId()).map(unseen -> unseen.compareTo(lossTimeout) < 0).orElse(false);
    }

    private void planCopies(FileReplicas file, int missing, List<StorageNodeState> sources, Map<String, StorageNodeState> byId, Map<String, Integer> copiesPerTarget, long now)
    {
        Map<String, Copy> planned = copies.computeIfAbsent(file.fileId(), _ -> new LinkedHashMap<>());
        int needed = missing - planned.size();
        if (needed <= 0) {
            return;
        }
        Set<String> excluded = new HashSet<>(file.nodeIds());
        excluded.addAll(planned.keySet());
        Set<String> damaged = damagedOn.getOrDefault(file.fileId(), Set.of());
        List<StorageNodeState> targets = byId.values().stream()
                .filter(StorageNodeState::acceptsReplicas)
                .filter(node -> !excluded.contains(node.nodeId()))
                .filter(node -> copiesPerTarget.getOrDefault(node.nodeId(), 0) < 2 * maxCopiesPerNode)
                // a node whose disk just damaged this file gets it back only when no other node can
                // take it; otherwise the emptiest first, as placement weighs new files; ties by id,
                // for a stable plan
                .sorted(Comparator.<StorageNodeState, Boolean>comparing(node -> damaged.contains(node.nodeId()))
                        .thenComparing(Comparator.comparingLong(StorageNodeState::freeBytes).reversed())
                        .thenComparing(StorageNodeState::nodeId))
                .limit(needed)
                .toList();
        for (StorageNodeState target : targets) {
            CopyTask task = CopyTask.newBuilder()
                    .setFileId(file.fileId())
                    .setSizeBytes(file.sizeBytes())
                    .setCrc32C(file.crc32c())
                    .addAllSources(sources.stream().map(ReplicationMonitor::toStorageNode).collect(toImmutableList()))
                    .setGrant(grants.grant(file.fileId(), target.nodeId()))
                    .build();
            planned.put(target.nodeId(), new Copy(task, now, false));
            copiesPerTarget.merge(target.nodeId(), 1, Integer::sum);
        }
        if (planned.isEmpty()) {
            copies.remove(file.fileId());
        }
    }

    private void trim(FileReplicas file, Map<String, StorageNodeState> byId)
    {
        List<StorageNodeState> holders = file.nodeIds().stream().map(byId::get).toList();
        if (holders.stream().anyMatch(node -> node == null || !node.alive())) {
            // a holder is down: its copy may come back or be lost; decide when everyone is here
            return;
        }
        long staying = holders.stream().filter(node -> !node.draining()).count();
        int surplus = (int) (holders.size() - file.replication());
        if (surplus <= 0 || staying < file.replication()) {
            return;
        }
        // draining nodes first, then the newest copies: a node that returns keeps its place, and
        // the writer's spread and read order come back (a stable sort keeps newest-first)
        List<StorageNodeState> newestFirst = new ArrayList<>(holders.reversed());
        newestFirst.sort(Comparator.comparing((StorageNodeState node) -> !node.draining()));
        newestFirst.stream()
                .limit(surplus)
                .forEach(node -> {
                    if (catalog.removeReplica(file.fileId(), node.nodeId())) {
                        replicasTrimmed++;
                        log.info("File %s has %s replicas, %s wanted: dropped the one on node %s%s", file.fileId(), holders.size(), file.replication(), node.nodeId(), node.draining() ? " (draining)" : "");
                    }
                });
    }

    /** The copies for a node to start, handed out as its heartbeat is answered. */
    public synchronized List<CopyTask> tasksFor(String nodeId)
    {
        long now = ticker.read();
        int running = 0;
        List<Map.Entry<String, Copy>> waiting = new ArrayList<>();
        for (Map<String, Copy> targets : copies.values()) {
            Copy copy = targets.get(nodeId);
            if (copy == null) {
                continue;
            }
            if (copy.issued()) {
                running++;
            }
            else {
                waiting.add(Map.entry(copy.task().getFileId(), copy));
            }
        }
        List<CopyTask> tasks = new ArrayList<>();
        for (Map.Entry<String, Copy> entry : waiting) {
            if (running + tasks.size() >= maxCopiesPerNode) {
                break;
            }
            copies.get(entry.getKey()).put(nodeId, new Copy(entry.getValue().task(), now, true));
            tasks.add(entry.getValue().task());
        }
        return tasks;
    }

    /** A node attests a copy it made: the replica is committed if it is exactly the file. */
    public synchronized void copied(String nodeId, FileAttestation attestation)
    {
        String fileId = attestation.getFileId();
        Optional<Copy> copy = Optional.ofNullable(copies.get(fileId)).map(targets -> targets.remove(nodeId));
        cleanUp(fileId);
        Optional<FileEntry> committed = catalog.committedFile(fileId);
        if (committed.isEmpty()) {
            // dropped meanwhile: the node reclaims the copy as an orphan
            return;
        }
        Optional<String> problem = problemWith(nodeId, attestation, committed.get());
        if (problem.isPresent()) {
            copiesFailed++;
            log.warn("Node %s reported a copy of file %s that is not committed: %s", nodeId, fileId, problem.get());
            return;
        }
        if (catalog.addReplica(fileId, nodeId)) {
            copiesCompleted++;
            bytesCopied += attestation.getSizeBytes();
            log.info("File %s has a new replica on node %s%s", fileId, nodeId, copy.isEmpty() ? " (a copy from before a restart)" : "");
        }
    }

    private Optional<String> problemWith(String nodeId, FileAttestation attestation, FileEntry committed)
    {
        if (!attestation.getNodeId().equals(nodeId)) {
            return Optional.of("attested by node " + attestation.getNodeId());
        }
        if (requireSignatures && !SignedMessages.isValidSignature(grants.nodeKey(nodeId), attestation)) {
            return Optional.of("the attestation does not carry the node's signature");
        }
        // a node attests the stats in this release's encoding; a file committed by an earlier
        // release has them in an older one, which wrap() re-encodes the same way
        ByteString statsHash = ByteString.copyFrom(SignedMessages.sha256(currentEncoding(committed.compactStats())));
        if (attestation.getSizeBytes() != committed.sizeBytes()
                || attestation.getRowCount() != committed.rowCount()
                || attestation.getCrc32C() != committed.crc32c()
                || !attestation.getCompactStatsSha256().equals(statsHash)) {
            return Optional.of("size, row count, checksum or statistics differ from the committed file");
        }
        return Optional.empty();
    }

    private static byte[] currentEncoding(ByteString compactStats)
    {
        try {
            return CompactFileStats.wrap(compactStats.toByteArray()).encoded();
        }
        catch (IllegalArgumentException e) {
            // unreadable stats match no attestation: the copy is refused, as any mismatch is
            return compactStats.toByteArray();
        }
    }

    public synchronized void copyFailed(String nodeId, FailedCopy failure)
    {
        Optional.ofNullable(copies.get(failure.getFileId())).ifPresent(targets -> targets.remove(nodeId));
        cleanUp(failure.getFileId());
        copiesFailed++;
        log.warn("Node %s could not copy file %s: %s", nodeId, failure.getFileId(), failure.getReason());
    }

    /** A node stopped serving a damaged copy: forget it, so that the next check repairs the file. */
    public synchronized void damaged(String nodeId, DamagedReplica damaged)
    {
        damagedReported++;
        boolean removed = catalog.removeReplica(damaged.getFileId(), nodeId);
        damagedOn.computeIfAbsent(damaged.getFileId(), _ -> new HashSet<>()).add(nodeId);
        log.warn("Node %s quarantined its copy of file %s%s: %s", nodeId, damaged.getFileId(), removed ? "" : " (not a committed replica)", damaged.getReason());
    }

    /** Whether a copy of the file to the node is planned or under way: its file is not an orphan there. */
    public synchronized boolean isCopyTarget(String fileId, String nodeId)
    {
        Map<String, Copy> targets = copies.get(fileId);
        return targets != null && targets.containsKey(nodeId);
    }

    /** Starts or stops draining a node; the next checks move its replicas. */
    public StorageNodeState drain(String nodeId, boolean draining)
    {
        if (!catalog.setDraining(nodeId, draining)) {
            throw notFound("Storage node %s is not registered", nodeId);
        }
        nodes.setDraining(nodeId, draining);
        log.info("Storage node %s %s", nodeId, draining ? "is draining: its replicas move to other nodes" : "is no longer draining");
        return nodes.node(nodeId).orElseThrow();
    }

    public Map<String, Long> replicaCounts()
    {
        return catalog.replicaCounts();
    }

    public synchronized GetReplicationStatusResponse status()
    {
        return GetReplicationStatusResponse.newBuilder()
                .setFileCount(status.files())
                .setUnderReplicatedFiles(status.underReplicated())
                .setUnavailableFiles(status.unavailable())
                .setCopiesInFlight(copies.values().stream().mapToLong(Map::size).sum())
                .setCopiesCompleted(copiesCompleted)
                .setBytesCopied(bytesCopied)
                .setCopiesFailed(copiesFailed)
                .setReplicasTrimmed(replicasTrimmed)
                .setDamagedReplicasReported(damagedReported)
                .setMissingReplicas(status.missing())
                .build();
    }

    private void expireCopies(long now)
    {
        copies.values().forEach(targets -> targets.values().removeIf(copy -> {
            boolean expired = copy.issued() && now - copy.sinceNanos() > copyTimeoutNanos;
            if (expired) {
                copiesFailed++;
                log.warn("Copy of file %s: no answer in time; planning it again", copy.task().getFileId());
            }
            return expired;
        }));
        copies.values().removeIf(Map::isEmpty);
    }

    private Map<String, Integer> copiesPerTarget()
    {
        Map<String, Integer> counts = new HashMap<>();
        copies.values().forEach(targets -> targets.keySet().forEach(nodeId -> counts.merge(nodeId, 1, Integer::sum)));
        return counts;
    }

    private void cleanUp(String fileId)
    {
        Map<String, Copy> targets = copies.get(fileId);
        if (targets != null && targets.isEmpty()) {
            copies.remove(fileId);
        }
    }

    private static StorageNode toStorageNode(StorageNodeState node)
    {
        return StorageNode.newBuilder()
                .setNodeId(node.nodeId())
                .setAddress(node.address())
                .setAlive(node.alive())
                .build();
    }

    @PreDestroy
    @Override
    public void close()
    {
        executor.shutdownNow();
        leadership.close();
    }

    /** A planned copy; {@code sinceNanos} is when it was planned, or handed to its node once issued. */
    private record Copy(CopyTask task, long sinceNanos, boolean issued) {}

    public record ReplicationStatus(long files, long underReplicated, long unavailable, long missing)
    {
        static final ReplicationStatus NONE = new ReplicationStatus(0, 0, 0, 0);
    }
}
