package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.grpc.Status;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.trino.client.StorageClients;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import static io.nsc.trino.NscErrorCode.NSC_BAD_STORAGE_RESPONSE;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_SCAN_MEMORY_LIMIT;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A split scanned by a storage node: it decodes, filters, projects and limits next to the disk
 * and streams compressed pages of the output columns. The driver never waits on the network:
 * when no message has arrived, {@link #getNextSourcePage} answers null and {@link #isBlocked}
 * when one does. If a replica fails mid-stream (a transport error, or a storage error another
 * replica may not have) the scan runs again on the next one, and the rows already returned are
 * skipped: a filtering scan of the same row groups with the same request returns the same rows in
 * the same order. An aggregating or top-N scan does not (a node sends partial results early at a
 * memory threshold of its own), so it moves to another replica only before its first row. What is not the replica's fault (a bad request, the scan's memory budget, a batch that
 * does not decode) fails the split at once. Closing the source cancels the call.
 * Completed bytes are the compressed bytes received, so Trino's physical input shows what
 * crossed the network.
 * <p>
 * Batches are decoded within {@link io.nsc.parquet.wire.PageLimits}: a node that sends a batch
 * claiming more than that fails the query with NSC_BAD_STORAGE_RESPONSE, not the worker's heap.
 */
public class StorageScanPageSource
        implements ConnectorPageSource
{
    // errors of the replica or of the way to it: another replica may well succeed
    private static final Set<Status.Code> REPLICA_FAILURES = EnumSet.of(
            Status.Code.UNAVAILABLE,
            Status.Code.DEADLINE_EXCEEDED,
            Status.Code.CANCELLED,
            Status.Code.UNKNOWN,
            Status.Code.ABORTED,
            Status.Code.INTERNAL,
            // the file or a row group is missing or corrupt on this replica
            Status.Code.NOT_FOUND,
            Status.Code.DATA_LOSS);

    private final ScanRequest request;
    private final List<String> replicas;
    private final StorageClients storageClients;
    private final PageCodec codec;
    private final long timeoutMillis;
    private final Queue<Page> pages = new ArrayDeque<>();
    private final List<String> failures = new ArrayList<>();

    private int replica;
    private ScanStream stream;
    private long rowsToSkip;
    private long rowsReturned;
    private long bytesReceived;
    private long readTimeNanos;
    private long failovers;
    private ScanSummary summary;
    private boolean finished;

    public StorageScanPageSource(ScanRequest request, List<String> replicas, StorageClients storageClients, long timeoutMillis)
    {
        this.request = requireNonNull(request, "request is null");
        this.replicas = ImmutableList.copyOf(replicas);
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.codec = new PageCodec(request.getCompression());
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        long start = System.nanoTime();
        try {
            while (!finished && pages.isEmpty()) {
                if (stream == null) {
                    startCall();
                }
                ScanResponse response = stream.poll();
                if (response != null) {
                    receive(response);
                }
                else if (stream.isDone()) {
                    end(stream.failure());
                }
                else {
                    // nothing yet: isBlocked() says when
                    break;
                }
            }
        }
        finally {
            readTimeNanos += System.nanoTime() - start;
        }
        Page page = pages.poll();
        return page == null ? null : SourcePage.create(page);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        if (finished || !pages.isEmpty() || stream == null) {
            return NOT_BLOCKED;
        }
        return stream.progress();
    }

    private void startCall()
    {
        stream = new ScanStream();
        storageClients.stub(replicas.get(replica))
                .withDeadlineAfter(timeoutMillis, MILLISECONDS)
                .scan(request, stream);
    }

    private void receive(ScanResponse response)
    {
        switch (response.getPartCase()) {
            case BATCH -> {
                bytesReceived += response.getBatch().getData().size();
                List<Page> decoded;
                try {
                    decoded = codec.decode(response.getBatch());
                }
                catch (IllegalArgumentException | MemoryLimitExceededException e) {
                    closeCall();
                    finished = true;
                    throw new TrinoException(NSC_BAD_STORAGE_RESPONSE, "Storage node %s sent a bad page batch for nsc file %s: %s".formatted(replicas.get(replica), request.getFileId(), e.getMessage()), e);
                }
                decoded.forEach(this::deliver);
            }
            case SUMMARY -> summary = response.getSummary();
            case PART_NOT_SET -> failOver("sent an empty scan response", null);
        }
    }

    /** The call ended: completed, or failed with {@code failure}. */
    private void end(Optional<Throwable> failure)
    {
        if (failure.isEmpty()) {
            if (summary == null) {
                failOver("ended the scan without a summary", null);
                return;
            }
            finish();
            return;
        }
        Optional<TrinoException> queryFailure = QueryFailures.fromStatus(failure.get());
        if (queryFailure.isPresent()) {
            // the query's own expression failed on a row: another replica holds the same row
            finish();
            throw queryFailure.get();
        }
        Status status = Status.fromThrowable(failure.get());
        if (status.getCode() == Status.Code.RESOURCE_EXHAUSTED) {
            // the scan's memory budget: another replica has the same budget and the same rows
            finish();
            throw new TrinoException(NSC_STORAGE_SCAN_MEMORY_LIMIT, "Storage-side scan of nsc file %s on %s: %s".formatted(request.getFileId(), replicas.get(replica), status.getDescription()), failure.get());
        }
        if (!REPLICA_FAILURES.contains(status.getCode())) {
            // a bad request or a refusal: every replica would answer the same
            finish();
            throw new TrinoException(NSC_STORAGE_ERROR, "Storage node %s refused the scan of nsc file %s: %s".formatted(replicas.get(replica), request.getFileId(), status), failure.get());
        }
        failOver(status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription()), failure.get());
    }

    private void deliver(Page page)
    {
        if (rowsToSkip >= page.getPositionCount()) {
            rowsToSkip -= page.getPositionCount();
            return;
        }
        Page kept = page;
        if (rowsToSkip > 0) {
            kept = page.getRegion((int) rowsToSkip, page.getPositionCount() - (int) rowsToSkip);
            rowsToSkip = 0;
        }
        rowsReturned += kept.getPositionCount();
        pages.add(kept);
    }

    private void failOver(String problem, Throwable cause)
    {
        failures.add(replicas.get(replica) + ": " + problem);
        closeCall();
        replica++;
        if (rowsReturned > 0 && !resumable()) {
            finished = true;
            throw new TrinoException(NSC_STORAGE_ERROR, "Storage-side scan of nsc file %s failed after it returned rows, which another replica could not continue: %s".formatted(
                    request.getFileId(), String.join("; ", failures)), cause);
        }
        if (replica >= replicas.size()) {
            finished = true;
            throw new TrinoException(NSC_STORAGE_ERROR, "Cannot scan nsc file %s on any replica: %s".formatted(request.getFileId(), String.join("; ", failures)), cause);
        }
        failovers++;
        // the next replica sends the same rows in the same order: skip those already returned
        rowsToSkip = rowsReturned;
        summary = null;
    }

    /**
     * Whether another replica continues this scan where it stopped: a filtering scan's rows come in
     * file order on every replica; partial aggregates and top-N heaps are sent when a node's own
     * memory threshold is reached, so another node's rows after the same count may differ.
     */
    private boolean resumable()
    {
        return !request.getAggregate() && request.getTopN() == 0;
    }

    private void closeCall()
    {
        if (stream != null) {
            stream.cancel();
            stream = null;
        }
    }

    private void finish()
    {
        finished = true;
        closeCall();
    }

    @Override
    public long getCompletedBytes()
    {
        return bytesReceived;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(rowsReturned);
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos;
    }

    @Override
    public boolean isFinished()
    {
        return finished && pages.isEmpty();
    }

    @Override
    public long getMemoryUsage()
    {
        // the decoded pages not yet returned, and the messages (at most ScanStream.IN_FLIGHT) not yet decoded
        ScanStream current = stream;
        return pages.stream().mapToLong(Page::getRetainedSizeInBytes).sum() + (current == null ? 0 : current.bufferedBytes());
    }

    @Override
    public Metrics getMetrics()
    {
        ScanSummary done = summary == null ? ScanSummary.getDefaultInstance() : summary;
        return new Metrics(ImmutableMap.<String, Metric<?>>builder()
                .put(ReadMetrics.SPLITS_FILTER, new LongCount(1))
                .put(ReadMetrics.STORAGE_BYTES_RECEIVED, new LongCount(bytesReceived))
                .put(ReadMetrics.STORAGE_BYTES_READ_FROM_DISK, new LongCount(done.getBytesReadFromDisk()))
                .put(ReadMetrics.STORAGE_ROWS_SCANNED, new LongCount(done.getRowsScanned()))
                .put(ReadMetrics.STORAGE_ROWS_RETURNED, new LongCount(done.getRowsReturned()))
                .put(ReadMetrics.STORAGE_CPU_NANOS, new LongCount(done.getCpuNanos()))
                .put(ReadMetrics.STORAGE_REPLICA_FAILOVERS, new LongCount(failovers))
                .put(ReadMetrics.STORAGE_EARLY_FLUSHES, new LongCount(done.getEarlyFlushes()))
                .buildOrThrow());
    }

    @Override
    public void close()
    {
        finish();
        pages.clear();
    }
}
