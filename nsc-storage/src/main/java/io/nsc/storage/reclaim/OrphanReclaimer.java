package io.nsc.storage.reclaim;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;
import io.airlift.log.Logger;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.FindOrphansResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.membership.ClusterIdentity;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.ParquetFileStore;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newSingleThreadScheduledExecutor;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Deletes the files of this node that no commit claims: uploads of writes that failed or were
 * abandoned before their commit, and files of dropped tables. On an interval it asks the
 * metadata service ({@code FindOrphans}) about every file uploaded longer than the minimum age
 * ago, in batches, and deletes the files the service names.
 * <p>
 * Two guards keep a write in progress safe: the minimum age (a file that young is never even
 * offered), and the service, which does not name files of an open allocation. Deleting needs a
 * positive answer: when a call fails (the service is unreachable or answers an error) the
 * round ends and nothing more is deleted until the next one.
 * <p>
 * A positive answer counts only from this node's cluster ({@link ClusterIdentity}): a metadata
 * service on an empty or wrong catalog would name every file an orphan. No round runs while the
 * node's cluster id is unknown or differs from the service's, and every answer's id is checked
 * again before anything it names is deleted, for a service replaced since the last check.
 * <p>
 * The work runs on a daemon thread of its own rather than the membership thread, so that a long
 * round over many files never delays a heartbeat.
 */
public final class OrphanReclaimer
        implements AutoCloseable
{
    private static final Logger log = Logger.get(OrphanReclaimer.class);

    // the metadata service's limit per call; it also bounds the work the service does under its lock
    private static final int MAX_FILE_IDS_PER_CALL = 10_000;
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final String nodeId;
    private final String metadataAddress;  // every configured instance, for messages
    private final ParquetFileStore store;
    private final ClusterIdentity identity;
    private final Duration checkInterval;
    private final Duration minAge;
    private final Clock clock;
    private final int batchSize;
    private final ManagedChannel channel;
    private final MetadataServiceBlockingStub metadata;
    private final ScheduledExecutorService executor = newSingleThreadScheduledExecutor(daemonThreadsNamed("nsc-orphans-%s"));

    // only rounds touch it, one at a time (the orphan thread; a test's direct call)
    private boolean refusing;

    public OrphanReclaimer(String nodeId, MetadataAddresses metadataAddresses, TransportSecurity security, ParquetFileStore store, ClusterIdentity identity, Duration checkInterval, Duration minAge, Clock clock)
    {
        this(nodeId, metadataAddresses, security, store, identity, checkInterval, minAge, clock, MAX_FILE_IDS_PER_CALL);
    }

    @VisibleForTesting
    OrphanReclaimer(String nodeId, MetadataAddresses metadataAddresses, TransportSecurity security, ParquetFileStore store, ClusterIdentity identity, Duration checkInterval, Duration minAge, Clock clock, int batchSize)
    {
        checkArgument(batchSize > 0 && batchSize <= MAX_FILE_IDS_PER_CALL, "batchSize must be between 1 and %s", MAX_FILE_IDS_PER_CALL);
        this.batchSize = batchSize;
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.metadataAddress = metadataAddresses.toString();
        this.store = requireNonNull(store, "store is null");
        this.identity = requireNonNull(identity, "identity is null");
        this.checkInterval = requireNonNull(checkInterval, "checkInterval is null");
        this.minAge = requireNonNull(minAge, "minAge is null");
        this.clock = requireNonNull(clock, "clock is null");
        checkArgument(checkInterval.isPositive(), "checkInterval must be positive");
        checkArgument(!minAge.isNegative(), "minAge is negative");
        this.channel = GrpcChannels.forMetadataService(metadataAddresses, security);
        this.metadata = MetadataServiceGrpc.newBlockingStub(channel);
    }

    /** Starts checking in the background; the first check comes one interval from now. */
    public void start()
    {
        long intervalMillis = checkInterval.toMillis();
        executor.scheduleWithFixedDelay(this::checkSafely, intervalMillis, intervalMillis, MILLISECONDS);
    }

    private void checkSafely()
    {
        try {
            reclaim();
        }
        catch (StatusRuntimeException e) {
            if (executor.isShutdown()) {
                // close() interrupted the call
                return;
            }
            log.warn("Cannot check for orphan files with the metadata service at %s, deleting nothing: %s", metadataAddress, e.getStatus());
        }
        catch (RuntimeException e) {
            // an exception would end the schedule for good: log it and try again next time
            log.error(e, "Orphan file check failed");
        }
    }

    /**
     * One round: asks about every file older than the minimum age and deletes the orphans, unless
     * the cluster ids say the service's answers are not about this node's files.
     *
     * @return the number of files deleted
     * @throws StatusRuntimeException when a call to the metadata service fails; files of batches
     * answered before stay deleted
     */
    @VisibleForTesting
    int reclaim()
    {
        List<FileId> candidates = store.filesUploadedBefore(clock.instant().minus(minAge));
        if (candidates.isEmpty()) {
            return 0;
        }
        Optional<String> clusterId = identity.clusterIdForReclaim();
        if (clusterId.isEmpty()) {
            // ClusterIdentity logged why at ERROR; once per stretch here, not every interval
            if (!refusing) {
                log.warn("Not reclaiming orphan files: this node's cluster id is unknown, or differs from the metadata service's at %s (cluster_id_mismatch %s)",
                        metadataAddress, identity.getClusterIdMismatch());
                refusing = true;
            }
            return 0;
        }
        if (refusing) {
            log.info("Reclaiming orphan files again: the metadata service at %s is cluster %s, like this node", metadataAddress, clusterId.get());
            refusing = false;
        }
        int deleted = 0;
        for (List<FileId> batch : Lists.partition(candidates, batchSize)) {
            FindOrphansResponse response = findOrphans(batch);
            if (!response.getClusterId().equals(clusterId.get())) {
                // another catalog answered (the service was replaced since the last check): its
                // "orphans" may be every file this node holds
                identity.answered(metadataAddress, response.getClusterId());
                log.warn("The metadata service at %s answered FindOrphans as cluster '%s', not this node's %s: deleting none of the %s files it named",
                        metadataAddress, response.getClusterId(), clusterId.get(), response.getOrphanFileIdsCount());
                break;
            }
            for (FileId orphan : orphansAmong(batch, response)) {
                if (delete(orphan)) {
                    deleted++;
                }
            }
        }
        if (deleted > 0) {
            log.info("Deleted %s orphan files after asking about %s files", deleted, candidates.size());
        }
        return deleted;
    }

    private FindOrphansResponse findOrphans(List<FileId> batch)
    {
        return metadata.withDeadlineAfter(CALL_TIMEOUT.toMillis(), MILLISECONDS)
                .findOrphans(FindOrphansRequest.newBuilder()
                        .setNodeId(nodeId)
                        .addAllFileIds(batch.stream().map(FileId::value).collect(toImmutableList()))
                        .build());
    }

    private static List<FileId> orphansAmong(List<FileId> batch, FindOrphansResponse response)
    {
        Set<String> asked = batch.stream().map(FileId::value).collect(toImmutableSet());
        ImmutableList.Builder<FileId> orphans = ImmutableList.builder();
        for (String id : response.getOrphanFileIdsList()) {
            // only ids of this batch: a confused answer must not delete anything else
            if (asked.contains(id)) {
                orphans.add(new FileId(id));
            }
            else {
                log.warn("The metadata service named %s an orphan, but this node did not ask about it; ignoring it", id);
            }
        }
        return orphans.build();
    }

    private boolean delete(FileId id)
    {
        try {
            boolean deleted = store.delete(id);
            if (deleted) {
                log.info("Deleted orphan file %s: no commit claims it", id);
            }
            return deleted;
        }
        catch (IOException e) {
            log.warn(e, "Cannot delete orphan file %s; it stays served until the next check", id);
            return false;
        }
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("Orphan check thread did not stop in time");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        GrpcChannels.close(channel);
    }
}
