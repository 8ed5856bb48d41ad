package io.nsc.trino.write;

import com.google.common.util.concurrent.ThreadFactoryBuilder;
import com.google.inject.Inject;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.FileUploader;
import io.nsc.protocol.client.FileUploader.Uploaded;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.StorageNode;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_WRITER_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * Puts one finished local file on the storage nodes: asks the metadata service for a file id and
 * replica nodes, streams the file to every replica in parallel, and checks that all of them
 * received the same bytes and read them the same way. Nothing is registered here; the fragment
 * it returns is committed with all others of the statement by the coordinator.
 */
public class ReplicaUploader
{
    private final NscMetadataClient metadataClient;
    private final StorageClients storageClients;
    private final Duration uploadTimeout;
    private final ExecutorService executor;

    @Inject
    public ReplicaUploader(NscMetadataClient metadataClient, StorageClients storageClients, NscConfig config)
    {
        this.metadataClient = requireNonNull(metadataClient, "metadataClient is null");
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.uploadTimeout = Duration.ofMillis(config.getUploadTimeout().toMillis());
        // uploads mostly wait on the network (flow control); a thread per replica in flight is fine
        this.executor = Executors.newCachedThreadPool(new ThreadFactoryBuilder().setNameFormat("nsc-upload-%s").setDaemon(true).build());
    }

    @PreDestroy
    public void shutdown()
    {
        executor.shutdownNow();
    }

    /**
     * @throws TrinoException NSC_NOT_ENOUGH_STORAGE_NODES, NSC_STORAGE_ERROR; copies already
     *         uploaded are left to the storage nodes' orphan reclaim
     */
    public NscWriteFragment upload(Written file, int replication)
    {
        FileAllocation allocation = metadataClient.allocateFile(replication);
        List<Future<Uploaded>> uploads = new ArrayList<>();
        for (StorageNode node : allocation.getReplicasList()) {
            uploads.add(executor.submit(() -> uploadToNode(file, allocation, node)));
        }
        List<Uploaded> answers = new ArrayList<>();
        try {
            for (Future<Uploaded> upload : uploads) {
                answers.add(upload.get());
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TrinoException(NSC_STORAGE_ERROR, "Interrupted while uploading nsc file " + allocation.getFileId(), e);
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof TrinoException trinoException) {
                throw trinoException;
            }
            throw new TrinoException(NSC_STORAGE_ERROR, "Uploading nsc file %s failed: %s".formatted(allocation.getFileId(), e.getCause()), e.getCause());
        }
        finally {
            // a failed replica makes the others pointless: stop them
            uploads.forEach(upload -> upload.cancel(true));
        }
        checkReplicas(file, allocation, answers);

        UploadResponse first = answers.getFirst().response();
        return new NscWriteFragment(
                allocation.getFileId(),
                file.sizeBytes(),
                first.getRowCount(),
                first.getCrc32C(),
                Base64.getEncoder().encodeToString(first.getCompactStats().toByteArray()),
                allocation.getReplicasList().stream().map(StorageNode::getNodeId).collect(toImmutableList()),
                "",
                // each node's own account of the file: the commit refuses stats no node attested
                answers.stream()
                        .map(Uploaded::response)
                        .filter(UploadResponse::hasAttestation)
                        .map(answer -> Base64.getEncoder().encodeToString(answer.getAttestation().toByteArray()))
                        .collect(toImmutableList()));
    }

    private Uploaded uploadToNode(Written file, FileAllocation allocation, StorageNode node)
            throws InterruptedException
    {
        String fileId = allocation.getFileId();
        String where = "storage node %s (%s)".formatted(node.getNodeId(), node.getAddress());
        try {
            return FileUploader.upload(storageClients.channel(node.getAddress()), fileId, FileUploader.grantFor(allocation, node.getNodeId()), file.path(), file.sizeBytes(), uploadTimeout);
        }
        catch (StatusRuntimeException e) {
            Status status = e.getStatus();
            String description = status.getDescription() == null ? status.getCode().toString() : status.getCode() + ": " + status.getDescription();
            throw new TrinoException(NSC_STORAGE_ERROR, "Uploading nsc file %s to %s failed: %s".formatted(fileId, where, description), e);
        }
        catch (IOException e) {
            throw new TrinoException(NSC_WRITER_ERROR, "Reading the local file %s for %s failed: %s".formatted(file.path(), where, e.getMessage()), e);
        }
    }

    /**
     * Every replica must hold the bytes written and read them the same way: otherwise a query's
     * answer would depend on the replica it reads.
     */
    private static void checkReplicas(Written file, FileAllocation allocation, List<Uploaded> answers)
    {
        for (int i = 0; i < answers.size(); i++) {
            Uploaded upload = answers.get(i);
            UploadResponse answer = upload.response();
            List<String> problems = new ArrayList<>();
            if (!answer.getFileId().isEmpty() && !answer.getFileId().equals(allocation.getFileId())) {
                problems.add("file id %s".formatted(answer.getFileId()));
            }
            if (answer.getSizeBytes() != file.sizeBytes()) {
                problems.add("%s bytes, %s were written".formatted(answer.getSizeBytes(), file.sizeBytes()));
            }
            if (answer.getCrc32C() != upload.crc32c()) {
                problems.add("CRC32C %08x, the bytes sent have %08x".formatted(answer.getCrc32C(), upload.crc32c()));
            }
            if (answer.getRowCount() != file.rowCount()) {
                problems.add("%s rows, %s were written".formatted(answer.getRowCount(), file.rowCount()));
            }
            if (!answer.getCompactStats().equals(answers.getFirst().response().getCompactStats())) {
                problems.add("other compact stats than storage node %s".formatted(allocation.getReplicas(0).getNodeId()));
            }
            if (!problems.isEmpty()) {
                throw new TrinoException(NSC_STORAGE_ERROR, "Storage node %s answered the upload of nsc file %s with %s".formatted(
                        allocation.getReplicas(i).getNodeId(), allocation.getFileId(), String.join(", ", problems)));
            }
        }
    }
}
