package io.nsc.trino.write;

import com.google.common.collect.Sets;
import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.FileUploader;
import io.nsc.protocol.client.FileUploader.Uploaded;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.write.LocalParquetFile.Written;
import io.trino.spi.TrinoException;
import jakarta.annotation.PreDestroy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.CANCELLED;
import static io.grpc.Status.Code.DATA_LOSS;
import static io.grpc.Status.Code.DEADLINE_EXCEEDED;
import static io.grpc.Status.Code.INTERNAL;
import static io.grpc.Status.Code.RESOURCE_EXHAUSTED;
import static io.grpc.Status.Code.UNAVAILABLE;
import static io.grpc.Status.Code.UNKNOWN;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_WRITER_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * Puts one finished local file on the storage nodes: asks the metadata service for a file id and
 * replica nodes, streams the file to every replica in parallel, and checks that all of them
 * received the same bytes and read them the same way.
 *
 * <p>When the upload to a node fails because of that node (it died, its disk is full, the
 * connection broke), the file goes to another node the metadata service adds to the allocation
 * ({@code ReplaceReplica}), at most {@code nsc.max-replica-replacements} times per file. The
 * file is kept when at least {@code min_replicas} nodes stored it; its fragment names only those
 * nodes, each with its attestation. Nothing is registered here; the fragment is committed with all
 * others of the statement by the coordinator.
 */
public class ReplicaUploader
        implements WrittenFileUploader
{
    private static final Logger log = Logger.get(ReplicaUploader.class);

    // Failures of one node or of the way to it, which another node does not share. Any other
    // status (INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, ALREADY_EXISTS, ...) says the
    // request itself is wrong: a bug or a configuration error every node would answer alike.
    private static final Set<Status.Code> NODE_FAILURES = Sets.immutableEnumSet(
            UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL, UNKNOWN, DATA_LOSS, CANCELLED);

    private final NscMetadataClient metadataClient;
    private final StorageClients storageClients;
    private final Duration uploadTimeout;
    private final int maxReplacements;
    private final ExecutorService executor;

    @Inject
    public ReplicaUploader(NscMetadataClient metadataClient, StorageClients storageClients, NscConfig config)
    {
        this.metadataClient = requireNonNull(metadataClient, "metadataClient is null");
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.uploadTimeout = Duration.ofMillis(config.getUploadTimeout().toMillis());
        this.maxReplacements = config.getMaxReplicaReplacements();
        // uploads mostly wait on the network (flow control); a thread per replica in flight is fine
        this.executor = Executors.newCachedThreadPool(new ThreadFactoryBuilder().setNameFormat("nsc-upload-%s").setDaemon(true).build());
    }

    @PreDestroy
    public void shutdown()
    {
        executor.shutdownNow();
    }

    /**
     * @param replication the replicas the file gets when every storage node works
     * @param minReplicas the fewest replicas the file may be kept with when nodes fail during the write
     * @throws TrinoException NSC_NOT_ENOUGH_STORAGE_NODES when the file cannot be placed,
     *         NSC_STORAGE_ERROR when fewer than {@code minReplicas} nodes stored it or a node
     *         refused it in a way no other node would accept; copies already uploaded are left
     *         to the storage nodes' orphan reclaim
     */
    @Override
    public NscWriteFragment upload(Written file, int replication, int minReplicas)
    {
        checkArgument(minReplicas >= 1 && minReplicas <= replication, "minReplicas must be between 1 and replication %s: %s", replication, minReplicas);
        FileAllocation allocation = allocate(replication, minReplicas);
        FileUpload upload = new FileUpload(file, allocation.getFileId());

        ExecutorCompletionService<Optional<Replica>> completion = new ExecutorCompletionService<>(executor);
        List<Future<Optional<Replica>>> slots = new ArrayList<>();
        for (StorageNode node : allocation.getReplicasList()) {
            Optional<UploadGrant> grant = FileUploader.grantFor(allocation, node.getNodeId());
            slots.add(completion.submit(() -> uploadReplica(upload, node, grant)));
        }
        try {
            // in completion order: an error that ends the write stops the other uploads at once
            for (int i = 0; i < slots.size(); i++) {
                completion.take().get();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TrinoException(NSC_STORAGE_ERROR, "Interrupted while uploading nsc file " + upload.fileId(), e);
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof TrinoException trinoException) {
                throw trinoException;
            }
            throw new TrinoException(NSC_STORAGE_ERROR, "Uploading nsc file %s failed: %s".formatted(upload.fileId(), e.getCause()), e.getCause());
        }
        finally {
            slots.forEach(slot -> slot.cancel(true));
        }

        // in placement order, a replacement in the place of the node it replaced: readers try them in this order
        List<Replica> written = slots.stream()
                .map(Future::resultNow)
                .flatMap(Optional::stream)
                .collect(toImmutableList());
        if (written.size() < minReplicas) {
            throw new TrinoException(NSC_STORAGE_ERROR, "Could not store nsc file %s on enough storage nodes: %s of %s replicas written, min_replicas is %s. Failures: %s".formatted(
                    upload.fileId(), written.size(), allocation.getReplicasCount(), minReplicas, String.join("; ", upload.failures())));
        }
        checkReplicas(file, upload.fileId(), written);

        UploadResponse first = written.getFirst().uploaded().response();
        return new NscWriteFragment(
                upload.fileId(),
                file.sizeBytes(),
                first.getRowCount(),
                first.getCrc32C(),
                Base64.getEncoder().encodeToString(first.getCompactStats().toByteArray()),
                written.stream().map(replica -> replica.node().getNodeId()).collect(toImmutableList()),
                "",
                // each node's own account of the file: the commit refuses stats no node attested
                written.stream()
                        .map(replica -> replica.uploaded().response())
                        .filter(UploadResponse::hasAttestation)
                        .map(answer -> Base64.getEncoder().encodeToString(answer.getAttestation().toByteArray()))
                        .collect(toImmutableList()));
    }

    /**
     * A file id and its nodes. When fewer nodes are live than the replication (they died since the
     * write began), and the table allows fewer replicas, the file gets as many as can be placed.
     */
    private FileAllocation allocate(int replication, int minReplicas)
    {
        for (int replicas = replication; ; replicas--) {
            try {
                return metadataClient.allocateFile(replicas);
            }
            catch (TrinoException e) {
                if (!e.getErrorCode().equals(NSC_NOT_ENOUGH_STORAGE_NODES.toErrorCode()) || replicas <= minReplicas) {
                    throw e;
                }
                log.warn("Cannot place an nsc file on %s storage nodes, trying %s (min_replicas %s): %s", replicas, replicas - 1, minReplicas, e.getMessage());
            }
        }
    }

    /**
     * Uploads the file to {@code node}, and to replacements for as long as a node fails and the
     * file has replacements left.
     *
     * @return the node that stored the file, or empty when none could (the reasons are in {@code upload})
     */
    private Optional<Replica> uploadReplica(FileUpload upload, StorageNode node, Optional<UploadGrant> grant)
            throws InterruptedException
    {
        StorageNode target = node;
        Optional<UploadGrant> targetGrant = grant;
        while (true) {
            try {
                Uploaded uploaded = FileUploader.upload(storageClients.channel(target.getAddress()), upload.fileId(), targetGrant, upload.file().path(), upload.file().sizeBytes(), uploadTimeout);
                return Optional.of(new Replica(target, uploaded));
            }
            catch (StatusRuntimeException e) {
                // an upload this write cancelled itself is no failure of the node
                if (!NODE_FAILURES.contains(e.getStatus().getCode()) || Thread.currentThread().isInterrupted()) {
                    throw new TrinoException(NSC_STORAGE_ERROR, "Uploading nsc file %s to %s failed: %s".formatted(upload.fileId(), describe(target), describe(e)), e);
                }
                upload.failed("%s: %s".formatted(describe(target), describe(e)));
                Optional<FileAllocation> replacement = replace(upload, target);
                if (replacement.isEmpty()) {
                    return Optional.empty();
                }
                StorageNode next = replacement.get().getReplicas(0);
                log.warn("Upload of nsc file %s to %s failed (%s): sending it to %s instead", upload.fileId(), describe(target), describe(e), describe(next));
                target = next;
                targetGrant = FileUploader.grantFor(replacement.get(), next.getNodeId());
            }
            catch (IOException e) {
                throw new TrinoException(NSC_WRITER_ERROR, "Reading the local file %s for %s failed: %s".formatted(upload.file().path(), describe(target), e.getMessage()), e);
            }
        }
    }

    /** Another node for the replica that failed on {@code failed}, if the file may have one and a node is left. */
    private Optional<FileAllocation> replace(FileUpload upload, StorageNode failed)
    {
        if (!upload.takeReplacement(maxReplacements)) {
            upload.failed("no node replaces %s: the file's %s replacements (nsc.max-replica-replacements) are used".formatted(failed.getNodeId(), maxReplacements));
            return Optional.empty();
        }
        try {
            return Optional.of(metadataClient.replaceReplica(upload.fileId(), failed.getNodeId(), upload.file().sizeBytes()));
        }
        catch (TrinoException e) {
            if (!e.getErrorCode().equals(NSC_NOT_ENOUGH_STORAGE_NODES.toErrorCode())) {
                throw e;
            }
            upload.failed("no node replaces %s: %s".formatted(failed.getNodeId(), e.getMessage()));
            return Optional.empty();
        }
    }

    /**
     * Every replica must hold the bytes written and read them the same way: otherwise a query's
     * answer would depend on the replica it reads. A mismatch is no node failure to route around:
     * the same bytes read differently mean a bug or corruption, and the write fails.
     */
    private static void checkReplicas(Written file, String fileId, List<Replica> written)
    {
        UploadResponse first = written.getFirst().uploaded().response();
        for (Replica replica : written) {
            UploadResponse answer = replica.uploaded().response();
            List<String> problems = new ArrayList<>();
            if (!answer.getFileId().isEmpty() && !answer.getFileId().equals(fileId)) {
                problems.add("file id %s".formatted(answer.getFileId()));
            }
            if (answer.getSizeBytes() != file.sizeBytes()) {
                problems.add("%s bytes, %s were written".formatted(answer.getSizeBytes(), file.sizeBytes()));
            }
            if (answer.getCrc32C() != replica.uploaded().crc32c()) {
                problems.add("CRC32C %08x, the bytes sent have %08x".formatted(answer.getCrc32C(), replica.uploaded().crc32c()));
            }
            if (answer.getRowCount() != file.rowCount()) {
                problems.add("%s rows, %s were written".formatted(answer.getRowCount(), file.rowCount()));
            }
            if (!answer.getCompactStats().equals(first.getCompactStats())) {
                problems.add("other compact stats than storage node %s".formatted(written.getFirst().node().getNodeId()));
            }
            if (!problems.isEmpty()) {
                throw new TrinoException(NSC_STORAGE_ERROR, "Storage node %s answered the upload of nsc file %s with %s".formatted(
                        replica.node().getNodeId(), fileId, String.join(", ", problems)));
            }
        }
    }

    private static String describe(StorageNode node)
    {
        return "storage node %s (%s)".formatted(node.getNodeId(), node.getAddress());
    }

    private static String describe(StatusRuntimeException e)
    {
        Status status = e.getStatus();
        return status.getDescription() == null ? status.getCode().toString() : status.getCode() + ": " + status.getDescription();
    }

    private record Replica(StorageNode node, Uploaded uploaded)
    {
        Replica
        {
            requireNonNull(node, "node is null");
            requireNonNull(uploaded, "uploaded is null");
        }
    }

    /** What the uploads of one file's replicas share: the replacements used and the failures seen. */
    private static final class FileUpload
    {
        private final Written file;
        private final String fileId;
        // guarded by this
        private int replacements;
        private final List<String> failures = new ArrayList<>();

        FileUpload(Written file, String fileId)
        {
            this.file = requireNonNull(file, "file is null");
            this.fileId = requireNonNull(fileId, "fileId is null");
        }

        Written file()
        {
            return file;
        }

        String fileId()
        {
            return fileId;
        }

        synchronized boolean takeReplacement(int max)
        {
            if (replacements >= max) {
                return false;
            }
            replacements++;
            return true;
        }

        synchronized void failed(String failure)
        {
            failures.add(failure);
        }

        synchronized List<String> failures()
        {
            return List.copyOf(failures);
        }
    }
}
