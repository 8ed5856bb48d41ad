package io.nsc.storage.repair;

import com.google.common.util.concurrent.RateLimiter;
import io.airlift.log.Logger;
import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.StorageNodeChannels;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.CopyTask;
import io.nsc.protocol.proto.FailedCopy;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.storage.security.GrantKeyring;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.nsc.storage.store.UploadedFile;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newFixedThreadPool;
import static java.util.concurrent.TimeUnit.MINUTES;

/**
 * Makes the copies the metadata service asks for (repair of lost or damaged replicas, drain):
 * pulls the file from a node that holds it with ReadRanges, which checks every block at the
 * source, and stores it through the same path as an upload (checksums, footer and pages checked,
 * fsync, atomic rename), refusing bytes whose CRC32C is not the committed one. The outcome, an
 * attestation or a failure, waits here for the next heartbeat to carry it.
 * <p>
 * Copies share one rate limit, so repair never takes the disks and the network from queries.
 */
public final class ReplicaCopier
        implements AutoCloseable
{
    private static final Logger log = Logger.get(ReplicaCopier.class);
    private static final int COPY_THREADS = 2;
    private static final long COPY_TIMEOUT_MINUTES = 30;

    private final ParquetFileStore store;
    private final GrantKeyring keyring;
    private final RateLimiter rate;
    private final ExecutorService executor = newFixedThreadPool(COPY_THREADS, daemonThreadsNamed("nsc-replica-copy-%s"));
    private final StorageNodeChannels channels;
    // file ids queued or being copied: the service may send a task again before it hears back
    private final Set<String> inProgress = ConcurrentHashMap.newKeySet();
    private final Queue<FileAttestation> copied = new ConcurrentLinkedQueue<>();
    private final Queue<FailedCopy> failed = new ConcurrentLinkedQueue<>();
    private final CounterStat copiesCompleted = new CounterStat();
    private final CounterStat copiesFailed = new CounterStat();
    private final CounterStat bytesCopied = new CounterStat();

    public ReplicaCopier(ParquetFileStore store, GrantKeyring keyring, TransportSecurity security, DataSize rate)
    {
        this.store = requireNonNull(store, "store is null");
        this.keyring = requireNonNull(keyring, "keyring is null");
        this.channels = new StorageNodeChannels(requireNonNull(security, "security is null"));
        this.rate = RateLimiter.create(rate.toBytes());
    }

    /** Queues the tasks not already queued or under way. */
    public void submit(List<CopyTask> tasks)
    {
        for (CopyTask task : tasks) {
            if (!inProgress.add(task.getFileId())) {
                continue;
            }
            try {
                executor.execute(() -> {
                    try {
                        copy(task);
                    }
                    finally {
                        inProgress.remove(task.getFileId());
                    }
                });
            }
            catch (RejectedExecutionException e) {
                inProgress.remove(task.getFileId());
                return;
            }
        }
    }

    /** Copies finished since the last call, each attested; the caller reports them or gives them back. */
    public List<FileAttestation> takeCopied()
    {
        return drain(copied);
    }

    public List<FailedCopy> takeFailed()
    {
        return drain(failed);
    }

    public void giveBack(List<FileAttestation> unreportedCopies, List<FailedCopy> unreportedFailures)
    {
        copied.addAll(unreportedCopies);
        failed.addAll(unreportedFailures);
    }

    private static <T> List<T> drain(Queue<T> queue)
    {
        List<T> taken = new ArrayList<>();
        for (T item = queue.poll(); item != null; item = queue.poll()) {
            taken.add(item);
        }
        return taken;
    }

    private void copy(CopyTask task)
    {
        FileId id;
        try {
            id = FileId.fromClient(task.getFileId());
            keyring.checkGrant(id, task.hasGrant() ? Optional.of(task.getGrant()) : Optional.empty());
        }
        catch (RuntimeException e) {
            fail(task, "refused: " + e.getMessage());
            return;
        }
        Optional<StoredFile> held = store.find(id);
        if (held.isPresent() && held.get().sizeBytes() == task.getSizeBytes() && held.get().crc32c() == task.getCrc32C()) {
            // already here (an earlier copy whose report was lost): just say so again
            try {
                succeed(held.get(), store.stats(held.get()));
            }
            catch (StatusRuntimeException e) {
                fail(task, "cannot read the copy held here: " + e.getStatus().getDescription());
            }
            return;
        }
        List<String> failures = new ArrayList<>();
        for (StorageNode source : task.getSourcesList()) {
            try {
                UploadedFile stored = copyFrom(source, id, task);
                bytesCopied.update(stored.file().sizeBytes());
                log.info("Copied file %s (%s bytes) from node %s", id, stored.file().sizeBytes(), source.getNodeId());
                succeed(stored.file(), stored.stats());
                return;
            }
            catch (StatusRuntimeException | IOException e) {
                failures.add("%s: %s".formatted(source.getNodeId(), e.getMessage()));
            }
        }
        fail(task, failures.isEmpty() ? "no source node" : String.join("; ", failures));
    }

    private UploadedFile copyFrom(StorageNode source, FileId id, CopyTask task)
            throws IOException
    {
        Channel channel = channels.channel(source.getAddress());
        try (FileUpload upload = store.beginUpload(id, task.getSizeBytes(), "copy from node " + source.getNodeId())) {
            upload.expectCrc32c(task.getCrc32C());
            // the call ends with this method, whatever happens, so an abandoned stream is not left open
            Context.CancellableContext call = Context.current().withCancellation();
            Context previous = call.attach();
            try {
                Iterator<ReadRangesResponse> responses = StorageServiceGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(COPY_TIMEOUT_MINUTES, MINUTES)
                        .readRanges(ReadRangesRequest.newBuilder()
                                .setFileId(id.value())
                                .addRanges(ByteRange.newBuilder().setOffset(0).setLength(task.getSizeBytes()))
                                .build());
                while (responses.hasNext()) {
                    ReadRangesResponse response = responses.next();
                    if (!response.getData().isEmpty()) {
                        rate.acquire(response.getData().size());
                    }
                    upload.write(response.getData());
                }
            }
            finally {
                call.detach(previous);
                call.cancel(null);
            }
            return upload.finish();
        }
    }

    private void succeed(StoredFile file, CompactFileStats stats)
    {
        copiesCompleted.update(1);
        copied.add(keyring.attest(file, stats).orElseGet(() -> keyring.describe(file, stats)));
    }

    private void fail(CopyTask task, String reason)
    {
        log.warn("Cannot copy file %s: %s", task.getFileId(), reason);
        copiesFailed.update(1);
        failed.add(FailedCopy.newBuilder().setFileId(task.getFileId()).setReason(reason).build());
    }

    @Managed
    @Nested
    public CounterStat getCopiesCompleted()
    {
        return copiesCompleted;
    }

    @Managed
    @Nested
    public CounterStat getCopiesFailed()
    {
        return copiesFailed;
    }

    @Managed
    @Nested
    public CounterStat getBytesCopied()
    {
        return bytesCopied;
    }

    @Managed
    public int getCopiesInProgress()
    {
        return inProgress.size();
    }

    @Override
    public void close()
    {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channels.close();
    }
}
