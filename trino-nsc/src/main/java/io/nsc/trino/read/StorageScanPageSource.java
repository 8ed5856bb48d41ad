package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.grpc.Status;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.protocol.client.NodeBusy;
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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

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
 * <p>
 * A node too busy for the scan (its memory pool refused it: RESOURCE_EXHAUSTED with a retry hint,
 * after the scan waited in its admission queue) is not asked again by this split: the scan moves to
 * the next replica, as after a replica failure, and when no replica is left and no row was returned
 * yet it reads the split raw ({@code fallback}), which costs the nodes byte-range reads instead of
 * scan memory. A scan over its own budget (RESOURCE_EXHAUSTED without the hint) still fails at
 * once: every replica would refuse it the same way.
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
    private final Optional<Supplier<ConnectorPageSource>> fallback;
    private final BusyStorageNodes busyNodes;
    private final Queue<Page> pages = new ArrayDeque<>();
    private final List<String> failures = new ArrayList<>();

    private int replica;
    private ScanStream stream;
    private long rowsToSkip;
    private long rowsReturned;
    private long bytesReceived;
    private long readTimeNanos;
    private long failovers;
    private long busyRefusals;
    private long busyNodesSkipped;
    // the raw read that took the split over from busy storage nodes
    private ConnectorPageSource raw;
    private ScanSummary summary;
    private boolean finished;

    public StorageScanPageSource(ScanRequest request, List<String> replicas, StorageClients storageClients, long timeoutMillis)
    {
        this(request, replicas, storageClients, timeoutMillis, Optional.empty());
    }

    /**
     * @param fallback opens a raw read of the same split, returning the same rows or more (the
     *        engine filters them), for when every replica is too busy to scan it
     */
    public StorageScanPageSource(ScanRequest request, List<String> replicas, StorageClients storageClients, long timeoutMillis, Optional<Supplier<ConnectorPageSource>> fallback)
    {
        this(request, replicas, storageClients, timeoutMillis, fallback, BusyStorageNodes.never());
    }

    /**
     * @param busyNodes the nodes this worker's scans leave alone for now; this scan adds a node
     *        that refuses it as busy
     */
    public StorageScanPageSource(ScanRequest request, List<String> replicas, StorageClients storageClients, long timeoutMillis, Optional<Supplier<ConnectorPageSource>> fallback, BusyStorageNodes busyNodes)
    {
        this.busyNodes = requireNonNull(busyNodes, "busyNodes is null");
        this.fallback = requireNonNull(fallback, "fallback is null");
        this.request = requireNonNull(request, "request is null");
        this.replicas = ImmutableList.copyOf(replicas);
        this.storageClients = requireNonNull(storageClients, "storageClients is null");
        this.codec = new PageCodec(request.getCompression());
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (raw != null && pages.isEmpty()) {
            return raw.getNextSourcePage();
        }
        long start = System.nanoTime();
        try {
            while (!finished && raw == null && pages.isEmpty()) {
                if (stream == null) {
                    if (skipBusyReplica()) {
                        continue;
                    }
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
        if (page == null && raw != null) {
            // the raw read took over just now
            return raw.getNextSourcePage();
        }
        return page == null ? null : SourcePage.create(page);
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        if (raw != null && pages.isEmpty()) {
            return raw.isBlocked();
        }
        if (finished || !pages.isEmpty() || stream == null) {
            return NOT_BLOCKED;
        }
        return stream.progress();
    }

    /**
     * Moves past a replica that refused another of this worker's scans as busy a moment ago, when
     * this split can do without it: to the next replica, or (nothing returned yet, no replica
     * left) to its raw read. Advice only: a split with nowhere else to go asks the node.
     */
    private boolean skipBusyReplica()
    {
        String address = replicas.get(replica);
        if (!busyNodes.isBackingOff(address)) {
            return false;
        }
        boolean nextReplica = replica + 1 < replicas.size() && (rowsReturned == 0 || resumable());
        boolean rawRead = rowsReturned == 0 && fallback.isPresent();
        if (!nextReplica && !rawRead) {
            return false;
        }
        busyNodesSkipped++;
        failures.add(address + ": left alone, it refused a scan as busy");
        if (nextReplica) {
            replica++;
        }
        else {
            raw = fallback.get().get();
        }
        return true;
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
        if (NodeBusy.retryAfterMillis(failure.get()).isPresent()) {
            nodeBusy(status, failure.get());
            return;
        }
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
     * The node's memory pool refused the scan: the next replica, if it can continue the scan, or
     * else a raw read of the split if nothing was returned yet.
     */
    private void nodeBusy(Status status, Throwable cause)
    {
        busyRefusals++;
        busyNodes.refusedBusy(replicas.get(replica), NodeBusy.retryAfterMillis(cause).orElse(0));
        if (replica + 1 < replicas.size() && (rowsReturned == 0 || resumable())) {
            failOver("busy: " + status.getDescription(), cause);
            return;
        }
        failures.add(replicas.get(replica) + ": busy: " + status.getDescription());
        closeCall();
        if (rowsReturned > 0 || fallback.isEmpty()) {
            finished = true;
            throw new TrinoException(NSC_STORAGE_ERROR, "Storage nodes are too busy to scan nsc file %s%s: %s".formatted(
                    request.getFileId(),
                    rowsReturned > 0 ? " after it returned rows" : "",
                    String.join("; ", failures)), cause);
        }
        summary = null;
        raw = fallback.get().get();
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
        return bytesReceived + (raw == null ? 0 : raw.getCompletedBytes());
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(rowsReturned + (raw == null ? 0 : raw.getCompletedPositions().orElse(0)));
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos + (raw == null ? 0 : raw.getReadTimeNanos());
    }

    @Override
    public boolean isFinished()
    {
        if (raw != null) {
            return pages.isEmpty() && raw.isFinished();
        }
        return finished && pages.isEmpty();
    }

    @Override
    public long getMemoryUsage()
    {
        // the decoded pages not yet returned, and the messages (at most ScanStream.IN_FLIGHT) not yet decoded
        ScanStream current = stream;
        return pages.stream().mapToLong(Page::getRetainedSizeInBytes).sum()
                + (current == null ? 0 : current.bufferedBytes())
                + (raw == null ? 0 : raw.getMemoryUsage());
    }

    @Override
    public Metrics getMetrics()
    {
        ScanSummary done = summary == null ? ScanSummary.getDefaultInstance() : summary;
        Metrics metrics = new Metrics(ImmutableMap.<String, Metric<?>>builder()
                // a split a raw read took over counts as a raw split (the raw read says so), not as a scanned one
                .put(ReadMetrics.SPLITS_FILTER, new LongCount(raw == null ? 1 : 0))
                .put(ReadMetrics.STORAGE_SCANS_REFUSED_BUSY, new LongCount(busyRefusals))
                .put(ReadMetrics.STORAGE_BUSY_NODES_SKIPPED, new LongCount(busyNodesSkipped))
                .put(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW, new LongCount(raw == null ? 0 : 1))
                .put(ReadMetrics.STORAGE_BYTES_RECEIVED, new LongCount(bytesReceived))
                .put(ReadMetrics.STORAGE_BYTES_READ_FROM_DISK, new LongCount(done.getBytesReadFromDisk()))
                .put(ReadMetrics.STORAGE_ROWS_SCANNED, new LongCount(done.getRowsScanned()))
                .put(ReadMetrics.STORAGE_ROWS_RETURNED, new LongCount(done.getRowsReturned()))
                .put(ReadMetrics.STORAGE_CPU_NANOS, new LongCount(done.getCpuNanos()))
                .put(ReadMetrics.STORAGE_REPLICA_FAILOVERS, new LongCount(failovers))
                .put(ReadMetrics.STORAGE_EARLY_FLUSHES, new LongCount(done.getEarlyFlushes()))
                .buildOrThrow());
        return raw == null ? metrics : metrics.mergeWith(raw.getMetrics());
    }

    @Override
    public void close()
    {
        finish();
        pages.clear();
        if (raw != null) {
            try {
                raw.close();
            }
            catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
