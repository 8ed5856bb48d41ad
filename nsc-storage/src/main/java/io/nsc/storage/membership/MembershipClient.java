package io.nsc.storage.membership;

import com.google.common.annotations.VisibleForTesting;
import io.airlift.log.Logger;
import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.DamagedReplica;
import io.nsc.protocol.proto.FailedCopy;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.repair.ReplicaCopier;
import io.nsc.storage.security.GrantKeyring;
import io.nsc.storage.store.DamagedFile;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.ParquetFileStore;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Keeps this node known to the metadata service: registers (with every file it holds, so the
 * service knows the replicas after either side restarts), then heartbeats at the interval the
 * service asks for. When the service is unreachable it retries with exponential backoff and
 * only logs: a storage node serves reads whether or not the metadata service is up. Every answer
 * carries the service's cluster id, which goes to {@link ClusterIdentity}: the first registration
 * gives a node without an id its cluster, later answers tell whether the service is still it.
 * <p>
 * All work runs on one scheduled daemon thread, so the state needs no locking.
 */
public final class MembershipClient
        implements AutoCloseable
{
    private static final Logger log = Logger.get(MembershipClient.class);

    private static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
    private static final Duration MIN_RETRY_DELAY = Duration.ofMillis(100);
    private static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(10);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String nodeId;
    private final String advertisedHost;
    private final String metadataAddress;  // every configured instance, for messages
    private final ParquetFileStore store;
    private final ClusterIdentity identity;
    private final GrantKeyring keyring;
    private final ReplicaCopier copier;
    private final ManagedChannel channel;
    private final MetadataServiceBlockingStub metadata;
    private final ScheduledExecutorService executor = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-membership-%s"));

    private volatile String address;
    private boolean registered;
    private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
    private int consecutiveFailures;
    // false until the first answer, and from a failed call until the next answer
    private volatile boolean metadataReachable;

    public MembershipClient(String nodeId, String advertisedHost, MetadataAddresses metadataAddresses, TransportSecurity security, ParquetFileStore store, ClusterIdentity identity, GrantKeyring keyring, ReplicaCopier copier)
    {
        this.copier = requireNonNull(copier, "copier is null");
        this.keyring = requireNonNull(keyring, "keyring is null");
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.advertisedHost = requireNonNull(advertisedHost, "advertisedHost is null");
        this.metadataAddress = metadataAddresses.toString();
        this.store = requireNonNull(store, "store is null");
        this.identity = requireNonNull(identity, "identity is null");
        // the first instance that answers; when it dies, the next (which a shared catalog makes know this node)
        this.channel = GrpcChannels.forMetadataService(metadataAddresses, security);
        this.metadata = MetadataServiceGrpc.newBlockingStub(channel);
    }

    /** Starts registering in the background; returns at once, whether the metadata service is up or not. */
    public void start(int grpcPort)
    {
        checkState(address == null, "already started");
        address = advertisedHost + ":" + grpcPort;
        executor.execute(this::run);
    }

    private void run()
    {
        Duration next;
        try {
            next = registered ? heartbeat() : register();
            if (consecutiveFailures > 0) {
                log.info("Metadata service at %s is reachable again", metadataAddress);
            }
            consecutiveFailures = 0;
            metadataReachable = true;
        }
        catch (RuntimeException e) {
            if (executor.isShutdown()) {
                // close() interrupted the call
                return;
            }
            // never let an exception end the loop: a node outlives any metadata service outage
            consecutiveFailures++;
            metadataReachable = false;
            next = retryDelay(consecutiveFailures, heartbeatInterval);
            log.warn("Cannot reach the metadata service at %s (attempt %s, next in %s ms): %s", metadataAddress, consecutiveFailures, next.toMillis(), e.getMessage());
        }
        try {
            executor.schedule(this::run, next.toMillis(), MILLISECONDS);
        }
        catch (RejectedExecutionException e) {
            // closed meanwhile
        }
    }

    private Duration register()
    {
        RegisterNodeResponse response = metadata.withDeadlineAfter(CALL_TIMEOUT.toMillis(), MILLISECONDS)
                .registerNode(RegisterNodeRequest.newBuilder()
                        .setNodeId(nodeId)
                        .setAddress(address)
                        .setCapacityBytes(store.capacityBytes())
                        .setFreeBytes(store.getFreeBytes())
                        .addAllFileIds(store.fileIds().stream().map(FileId::value).collect(toImmutableList()))
                        .build());
        registered = true;
        keyring.keyReceived(response.getGrantKey());
        if (response.getHeartbeatIntervalMillis() > 0) {
            heartbeatInterval = Duration.ofMillis(response.getHeartbeatIntervalMillis());
        }
        log.info("Registered node %s at %s with the metadata service at %s (cluster %s); heartbeat every %s ms",
                nodeId, address, metadataAddress, response.getClusterId(), heartbeatInterval.toMillis());
        identity.registered(metadataAddress, response.getClusterId(), store.getFileCount());
        return heartbeatInterval;
    }

    private Duration heartbeat()
    {
        // what happened to this node's copies since the last beat; given back unless the service took it
        List<DamagedFile> damaged = store.takeDamagedFiles();
        List<FileAttestation> copied = copier.takeCopied();
        List<FailedCopy> failed = copier.takeFailed();
        boolean delivered = false;
        try {
            HeartbeatResponse response = metadata.withDeadlineAfter(CALL_TIMEOUT.toMillis(), MILLISECONDS)
                    .heartbeat(HeartbeatRequest.newBuilder()
                            .setNodeId(nodeId)
                            .setFreeBytes(store.getFreeBytes())
                            .setFileCount(store.getFileCount())
                            .setLoad(cpuLoad())
                            .addAllDamagedReplicas(damaged.stream()
                                    .map(file -> DamagedReplica.newBuilder().setFileId(file.id().value()).setReason(file.reason()).build())
                                    .collect(toImmutableList()))
                            .addAllCopiedReplicas(copied)
                            .addAllFailedCopies(failed)
                            .build());
            if (!response.getKnown()) {
                // the metadata service restarted and forgot us: register again right away
                log.info("Metadata service at %s does not know node %s; registering again", metadataAddress, nodeId);
                registered = false;
                return Duration.ZERO;
            }
            delivered = true;
            // a service restarted on another catalog that happens to know this node id answers known=true
            identity.answered(metadataAddress, response.getClusterId());
            keyring.keyReceived(response.getGrantKey());
            copier.submit(response.getCopyTasksList());
            return heartbeatInterval;
        }
        finally {
            if (!delivered) {
                store.returnDamagedFiles(damaged);
                copier.giveBack(copied, failed);
            }
        }
    }

    /** Whether the node's last call to the metadata service was answered: {@code metadata_reachable} in /v1/metrics. */
    public boolean isMetadataReachable()
    {
        return metadataReachable;
    }

    /**
     * Backs off, but never past the heartbeat interval: the service declares a node dead after a
     * few missed beats (metadata.node-timeout), and a restarted service must hear from a healthy
     * node before then.
     */
    @VisibleForTesting
    static Duration retryDelay(int failures, Duration heartbeatInterval)
    {
        long millis = MIN_RETRY_DELAY.toMillis() << min(failures - 1, 16);
        return Duration.ofMillis(min(millis, min(MAX_RETRY_DELAY.toMillis(), heartbeatInterval.toMillis())));
    }

    private static double cpuLoad()
    {
        double load = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getCpuLoad();
        // negative means "not available yet" (the first samples after start-up)
        return load < 0 || Double.isNaN(load) ? 0 : min(load, 1);
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Membership thread did not stop in time");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        GrpcChannels.close(channel);
    }
}
