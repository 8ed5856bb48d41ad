package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.PageCodec;
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
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.Queue;

import static io.nsc.trino.NscErrorCode.NSC_BAD_STORAGE_RESPONSE;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_SCAN_MEMORY_LIMIT;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * A split scanned by a storage node: it decodes, filters, projects and limits next to the disk
 * and streams compressed pages of the output columns. If a replica fails mid-stream the scan
 * runs again on the next one, and the rows already returned are skipped: a scan of the same
 * row groups with the same request returns the same rows in the same order.
 * Completed bytes are the compressed bytes received, so Trino's physical input shows what
 * crossed the network.
 * <p>
 * Batches are decoded within {@link io.nsc.parquet.wire.PageLimits}: a node that sends a batch
 * claiming more than that fails the query with NSC_BAD_STORAGE_RESPONSE, not the worker's heap.
 */
public class StorageScanPageSource
        implements ConnectorPageSource
{
    private final ScanRequest request;
    private final List<String> replicas;
    private final StorageClients storageClients;
    private final PageCodec codec;
    private final long timeoutMillis;
    private final Queue<Page> pages = new ArrayDeque<>();
    private final List<String> failures = new ArrayList<>();

    private int replica;
    private Context.CancellableContext call;
    private Iterator<ScanResponse> responses;
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
        while (!finished && pages.isEmpty()) {
            receive();
        }
        Page page = pages.poll();
        return page == null ? null : SourcePage.create(page);
    }

    private void receive()
    {
        long start = System.nanoTime();
        try {
            if (responses == null) {
                startCall();
            }
            if (!responses.hasNext()) {
                if (summary == null) {
                    throw new IllegalStateException("storage node ended the scan without a summary");
                }
                finish();
                return;
            }
            ScanResponse response = responses.next();
            switch (response.getPartCase()) {
                case BATCH -> {
                    bytesReceived += response.getBatch().getData().size();
                    codec.decode(response.getBatch()).forEach(this::deliver);
                }
                case SUMMARY -> summary = response.getSummary();
                case PART_NOT_SET -> throw new IllegalStateException("empty scan response");
            }
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
                // the scan's memory budget: another replica has the same budget and the same rows
                closeCall();
                finished = true;
                throw new TrinoException(NSC_STORAGE_SCAN_MEMORY_LIMIT, "Storage-side scan of nsc file %s on %s: %s".formatted(request.getFileId(), replicas.get(replica), e.getStatus().getDescription()), e);
            }
            failOver(e);
        }
        catch (IllegalStateException e) {
            failOver(e);
        }
        catch (IllegalArgumentException | MemoryLimitExceededException e) {
            closeCall();
            throw new TrinoException(NSC_BAD_STORAGE_RESPONSE, "Storage node %s sent a bad page batch for nsc file %s: %s".formatted(replicas.get(replica), request.getFileId(), e.getMessage()), e);
        }
        finally {
            readTimeNanos += System.nanoTime() - start;
        }
    }

    private void startCall()
    {
        call = Context.current().withCancellation();
        Context previous = call.attach();
        try {
            responses = storageClients.blockingStub(replicas.get(replica))
                    .withDeadlineAfter(timeoutMillis, MILLISECONDS)
                    .scan(request);
        }
        finally {
            call.detach(previous);
        }
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

    private void failOver(RuntimeException e)
    {
        failures.add(replicas.get(replica) + ": " + e.getMessage());
        closeCall();
        replica++;
        if (replica >= replicas.size()) {
            finished = true;
            throw new TrinoException(NSC_STORAGE_ERROR, "Cannot scan nsc file %s on any replica: %s".formatted(request.getFileId(), String.join("; ", failures)), e);
        }
        failovers++;
        // the next replica sends the same rows in the same order: skip those already returned
        rowsToSkip = rowsReturned;
        summary = null;
    }

    private void closeCall()
    {
        if (call != null) {
            call.cancel(null);
            call = null;
        }
        responses = null;
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
        return pages.stream().mapToLong(Page::getRetainedSizeInBytes).sum();
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
