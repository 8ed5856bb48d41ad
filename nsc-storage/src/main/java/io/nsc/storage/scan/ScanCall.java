package io.nsc.storage.scan;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.airlift.log.Logger;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.scan.FilteredScan;
import io.nsc.parquet.scan.ParquetScanReader;
import io.nsc.parquet.scan.RowGroupPageIndexes;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.server.StreamingServerCall;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.memory.PoolExhaustedException;
import io.nsc.storage.memory.PoolReservation;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.DamagedCopies;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.NoSuchFileException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.protocol.client.NodeBusy.RETRY_AFTER_MILLIS;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * One Scan call's stream: its steps on the node's scan threads, flow control, the memory budget
 * of the reader's buffers and the batch in the making, CPU accounting, the summary, and how a
 * failure becomes the call's status. What the request asks for is {@link ScanPlan}'s; folding rows
 * into an aggregation or top-N under the budget is {@link ScanFold}'s. A batch is produced only
 * when gRPC says the client can take it (flow control), so a slow worker holds the node to one
 * batch in the making plus the message in flight. The work runs on the node's scan threads (as many as it has cores, by default), never on
 * gRPC's: many concurrent scans share the cores in turn instead of each taking a thread of its
 * own. A call's steps (open, each drain, a cancellation) run one at a time in order, so the state
 * here needs no locking.
 * <p>
 * Nothing in the request is trusted: its size, row groups and the sizes of its expressions and
 * values are checked before they are decoded (INVALID_ARGUMENT), and what the scan holds (decoded
 * values, group maps, top-N heaps, the reader's buffers, the batch in the making) is reserved in
 * its memory budget (RESOURCE_EXHAUSTED past it), so that no request can take the node's heap.
 * <p>
 * An aggregation's groups or a top-N's rows may take half of the budget (see {@link ScanFold}).
 * <p>
 * Every byte of the budget is also taken from the node's {@link NodeMemoryPool}, which all scans
 * share: a call waits for its first reservation before it decodes anything (or is refused with
 * RESOURCE_EXHAUSTED and a retry hint), and a scan whose growth the pool cannot give fails the
 * same way. What the call holds goes back to the pool however it ends.
 */
final class ScanCall
        extends StreamingServerCall<ScanResponse>
{
    private static final Logger log = Logger.get(ScanCall.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int MIN_BATCH_BYTES = 16 * 1024;
    // the share of the budget an aggregation's groups or a top-N's rows may hold: the rest is for
    // the reader's buffers and the batch in the making
    private static final int FOLD_SHARE_DIVISOR = 2;

    private final ParquetFileStore store;
    private final StoredFile file;
    private final ScanRequest request;
    private final int batchBytes;
    private final ScanLimits limits;
    private final NodeMemoryPool pool;
    private final PoolReservation reservation;
    private final MemoryBudget memory;
    private ListenableFuture<Void> admission;
    private final AggregatedMemoryContext readerMemory = newSimpleAggregatedMemoryContext();
    // what is reserved for the reader's buffers and the batch in the making, as last charged
    private long readerReserved;
    private long batchReserved;
    private final ScanCaches caches;
    private final ParquetReaderOptions readerOptions;
    private final NearStorageScanner.Counters counters;
    // the call's steps, in order and never two at once, on the node's bounded scan threads
    private final Executor steps;
    private final AtomicBoolean drainQueued = new AtomicBoolean();

    private StoredParquetDataSource dataSource;
    private FilteredScan scan;
    private Optional<ScanFold> fold = Optional.empty();
    private PageCodec codec;
    private long bytesSent;
    // rows in the pages sent: the filtered rows, or the groups of an aggregation
    private long rowsSent;
    // CPU charged so far, and the thread CPU time it was last charged up to (within a callback)
    private long cpuNanos;
    private long cpuMark;
    private Thread cpuMarkThread;

    ScanCall(
            ParquetFileStore store,
            StoredFile file,
            ScanRequest request,
            int maxBatchBytes,
            ScanLimits limits,
            NodeMemoryPool pool,
            ScanCaches caches,
            ParquetReaderOptions readerOptions,
            ServerCallStreamObserver<ScanResponse> call,
            NearStorageScanner.Counters counters,
            Executor scanThreads)
    {
        super(call);
        this.store = requireNonNull(store, "store is null");
        this.file = requireNonNull(file, "file is null");
        this.request = requireNonNull(request, "request is null");
        this.batchBytes = request.getTargetBatchBytes() <= 0 ? maxBatchBytes : max(MIN_BATCH_BYTES, min(request.getTargetBatchBytes(), maxBatchBytes));
        this.limits = requireNonNull(limits, "limits is null");
        this.pool = requireNonNull(pool, "pool is null");
        this.reservation = new PoolReservation(pool, min(limits.admissionBytes(), limits.memoryBytes()));
        this.memory = new MemoryBudget("Scan of file %s".formatted(file.id()), limits.memoryBytes(), reservation);
        this.caches = requireNonNull(caches, "caches is null");
        this.readerOptions = requireNonNull(readerOptions, "readerOptions is null");
        this.counters = requireNonNull(counters, "counters is null");
        this.steps = MoreExecutors.newSequentialExecutor(requireNonNull(scanThreads, "scanThreads is null"));
    }

    /**
     * Takes the call over from gRPC's thread: the work runs on the node's scan threads, one step at
     * a time per call, and gRPC's callbacks only hand it the next step. The first step waits for
     * the call's admission to the node's memory pool.
     */
    void start()
    {
        counters.active().incrementAndGet();
        // before the handlers: a cancellation withdraws the call from the admission queue
        admission = pool.admit(reservation.initialBytes());
        call.setOnCancelHandler(() -> steps.execute(this::cancel));
        call.setOnReadyHandler(this::scheduleDrain);
        Futures.addCallback(admission, new FutureCallback<>()
        {
            @Override
            public void onSuccess(Void result)
            {
                reservation.admitted();
                if (!ended()) {
                    openAndDrain();
                }
            }

            @Override
            public void onFailure(Throwable failure)
            {
                if (failure instanceof PoolExhaustedException refused) {
                    fail(nodeBusy(refused));
                }
                else if (!(failure instanceof CancellationException)) {
                    fail(Status.INTERNAL.withDescription("Scan of file %s: admission failed: %s".formatted(file.id(), failure)).withCause(failure).asRuntimeException());
                }
            }
        }, steps);
    }

    /** gRPC says the client can take more: one drain queued at a time is enough. */
    private void scheduleDrain()
    {
        if (drainQueued.compareAndSet(false, true)) {
            steps.execute(() -> {
                drainQueued.set(false);
                drain();
            });
        }
    }

    private void openAndDrain()
    {
        markCpu();
        try {
            open();
        }
        catch (StatusRuntimeException e) {
            fail(damagedOr(e, e));
            return;
        }
        catch (MemoryLimitExceededException e) {
            fail(resourceExhausted(e));
            return;
        }
        catch (NoSuchFileException e) {
            // deleted as an orphan between the lookup and here: as if the lookup had come later
            fail(Status.NOT_FOUND.withDescription("File %s not found on this node".formatted(file.id())).asRuntimeException());
            return;
        }
        catch (IOException | RuntimeException e) {
            fail(damagedOr(e, badData(e)));
            return;
        }
        finally {
            chargeCpu();
        }
        drain();
    }

    private void open()
            throws IOException
    {
        ScanPlan plan = new ScanPlan(request, file.id(), limits, memory, limits.memoryBytes() / FOLD_SHARE_DIVISOR);
        fold = ScanFold.of(plan);
        codec = new PageCodec(request.getCompression());
        dataSource = new StoredParquetDataSource(file, store.openReader(file), readerOptions);
        ParquetMetadata footer = footer();
        plan.checkRowGroupsInFile(footer);
        ParquetScanReader reader = ParquetScanReader.create(
                dataSource,
                footer,
                request.getRowGroupsList(),
                plan.columns(),
                plan.predicate(),
                this::pageIndexes,
                readerOptions,
                readerMemory,
                this::badData);
        scan = new FilteredScan(reader, plan.computed(), plan.filter(), plan.outputChannels(), plan.limit());
    }

    /**
     * The file's footer, from the cache or parsed here. The scan holds it until it ends, so its
     * bytes are the scan's in the node's pool (the cache's own bytes are reserved for the cache).
     */
    private ParquetMetadata footer()
    {
        try {
            ParsedFooter parsed = caches.footers().get(file.id(), () -> ParsedFooter.of(MetadataReader.readFooter(dataSource, Optional.empty())));
            reservation.grow(parsed.retainedBytes(), "the file's footer");
            return parsed.metadata();
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw badData(e.getCause());
        }
    }

    /**
     * A row group's page indexes, from the cache or read here, of all its columns, since the next
     * scan of the file may filter and read others. Held by the scan like its footer.
     */
    private RowGroupPageIndexes pageIndexes(int rowGroup, BlockMetadata block, Set<ColumnPath> columns)
            throws IOException
    {
        try {
            RowGroupPageIndexes indexes = caches.pageIndexes().get(
                    new ScanCaches.RowGroup(file.id(), rowGroup),
                    () -> RowGroupPageIndexes.read(dataSource, block, block.columns().stream().map(ColumnChunkMetadata::getPath).collect(toImmutableSet())));
            reservation.grow(indexes.retainedBytes(), "a row group's page indexes");
            return indexes;
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw badData(e.getCause());
        }
    }

    private void drain()
    {
        if (scan == null) {
            // not admitted or not opened yet: the open drains when it is done
            return;
        }
        markCpu();
        try {
            // one batch per step, then back in the queue: a long scan does not keep a scan
            // thread from the scans that arrived after it
            if (!ended() && call.isReady() && !call.isCancelled()) {
                sendNextBatch();
            }
            if (!ended() && call.isReady() && !call.isCancelled()) {
                scheduleDrain();
            }
        }
        catch (StatusRuntimeException e) {
            fail(damagedOr(e, e));
        }
        catch (TrinoException e) {
            if (DamagedCopies.findCorruption(e).isPresent()) {
                fail(damagedOr(e, null));
                return;
            }
            // an aggregate overflowed, or an expression failed, as Trino's own would have: the
            // query's error, not the node's
            String description = "Scan of file %s: %s".formatted(file.id(), e.getMessage());
            fail(QueryFailures.isQueryFailure(e)
                    ? QueryFailures.toStatus(e, description)
                    : Status.OUT_OF_RANGE.withDescription(description).asRuntimeException());
        }
        catch (MemoryLimitExceededException e) {
            fail(resourceExhausted(e));
        }
        catch (IOException | UncheckedIOException e) {
            fail(damagedOr(e, Status.INTERNAL.withDescription("Cannot read file %s: %s".formatted(file.id(), e)).withCause(e).asRuntimeException()));
        }
        catch (RuntimeException e) {
            if (DamagedCopies.findCorruption(e).isPresent()) {
                fail(damagedOr(e, null));
                return;
            }
            log.error(e, "Scan of file %s failed", file.id());
            fail(Status.INTERNAL.withDescription("Scan of file %s failed: %s".formatted(file.id(), e)).withCause(e).asRuntimeException());
        }
        finally {
            chargeCpu();
        }
    }

    /**
     * Adds the callback thread's CPU since the last charge. The summary and the counters are
     * written from inside a callback, so they charge first: otherwise the callback that did the
     * work (all of it, for an aggregation) would be missing.
     */
    private void chargeCpu()
    {
        // a callback on another thread (a cancellation) has no CPU of this call's to charge
        if (Thread.currentThread() == cpuMarkThread) {
            long now = THREADS.getCurrentThreadCpuTime();
            cpuNanos += now - cpuMark;
            cpuMark = now;
        }
    }

    private void markCpu()
    {
        cpuMark = THREADS.getCurrentThreadCpuTime();
        cpuMarkThread = Thread.currentThread();
    }

    private void sendNextBatch()
            throws IOException
    {
        PageCodec.BatchBuilder batch = codec.newBatch();
        boolean end = false;
        while (!end && batch.sizeInBytes() < batchBytes) {
            Page page = nextOutputPage();
            if (page == null) {
                end = true;
                break;
            }
            batch.add(page);
            chargeBatch(batch.sizeInBytes());
            rowsSent += page.getPositionCount();
        }
        if (batch.pageCount() > 0) {
            PageBatch message = batch.build();
            chargeBatch(0);
            bytesSent += message.getData().size();
            counters.bytesSent().update(message.getData().size());
            call.onNext(ScanResponse.newBuilder().setBatch(message).build());
        }
        if (end) {
            // the summary needs no readiness: it is small and the last message
            call.onNext(ScanResponse.newBuilder().setSummary(summary()).build());
            complete();
        }
    }

    /** The next page to send: filtered rows, or what an aggregation or top-N holds once it filled up or the input ended. */
    private Page nextOutputPage()
            throws IOException
    {
        if (fold.isEmpty()) {
            return nextScanPage();
        }
        return fold.get().nextOutputPage(() -> call.isCancelled() ? null : nextScanPage());
    }

    private Page nextScanPage()
            throws IOException
    {
        Page page = scan.nextPage();
        // the reader's buffers (column chunks, decompressed pages) grow and shrink with the row groups
        long held = readerMemory.getBytes();
        if (held > readerReserved) {
            memory.reserve(held - readerReserved, "the Parquet reader's buffers");
        }
        else {
            memory.release(readerReserved - held);
        }
        readerReserved = held;
        return page;
    }

    /** Holds a reservation of {@code bytes} for the batch in the making (0 once it is sent). */
    private void chargeBatch(long bytes)
    {
        if (bytes > batchReserved) {
            memory.reserve(bytes - batchReserved, "a batch of pages");
        }
        else {
            memory.release(batchReserved - bytes);
        }
        batchReserved = bytes;
    }

    private ScanSummary summary()
    {
        chargeCpu();
        return ScanSummary.newBuilder()
                .setRowGroupsScanned(request.getRowGroupsCount())
                .setRowsScanned(scan.rowsScanned())
                .setRowsReturned(rowsSent)
                .setBytesReadFromDisk(dataSource.diskBytesRead())
                .setBytesSent(bytesSent)
                .setCpuNanos(cpuNanos)
                .setEarlyFlushes(earlyFlushes())
                .setPeakMemoryBytes(memory.peakBytes())
                .build();
    }

    /**
     * DATA_LOSS, with the copy quarantined, when the failure comes from bytes that do not match
     * their checksums; otherwise {@code otherwise}.
     */
    private StatusRuntimeException damagedOr(Throwable failure, StatusRuntimeException otherwise)
    {
        Optional<CorruptBlockException> corruption = DamagedCopies.findCorruption(failure);
        if (corruption.isEmpty()) {
            return otherwise;
        }
        counters.corruptScans().update(1);
        store.quarantine(file, corruption.get().getMessage());
        return DamagedCopies.dataLoss(file, corruption.get());
    }

    private StatusRuntimeException badData(Throwable e)
    {
        if (e instanceof StatusRuntimeException status) {
            return status;
        }
        return Status.DATA_LOSS.withDescription("Cannot decode file %s: %s".formatted(file.id(), e.getMessage())).withCause(e).asRuntimeException();
    }

    private long earlyFlushes()
    {
        return fold.map(ScanFold::earlyFlushes).orElse(0L);
    }

    private StatusRuntimeException resourceExhausted(MemoryLimitExceededException e)
    {
        if (e instanceof PoolExhaustedException refused) {
            return nodeBusy(refused);
        }
        // the message names the scan, the limit and what asked for more
        return Status.RESOURCE_EXHAUSTED.withDescription(e.getMessage()).asRuntimeException();
    }

    /**
     * The node is busy, not the scan too big: the trailer tells the client so, and when this node
     * may have room again (another replica may have it now).
     */
    private StatusRuntimeException nodeBusy(PoolExhaustedException e)
    {
        Metadata trailers = new Metadata();
        trailers.put(RETRY_AFTER_MILLIS, Long.toString(e.retryAfterMillis()));
        return Status.RESOURCE_EXHAUSTED.withDescription("Scan of file %s: %s".formatted(file.id(), e.getMessage())).asRuntimeException(trailers);
    }

    private void cancel()
    {
        // a call still waiting for memory stops waiting
        admission.cancel(false);
        if (end()) {
            log.debug("Scan of file %s cancelled by the client", file.id());
        }
    }

    @Override
    protected void failing(StatusRuntimeException e)
    {
        switch (e.getStatus().getCode()) {
            case INVALID_ARGUMENT -> counters.refusedInvalid().update(1);
            case RESOURCE_EXHAUSTED -> {
                if (e.getTrailers() != null && e.getTrailers().containsKey(RETRY_AFTER_MILLIS)) {
                    counters.refusedBusy().update(1);
                }
                else {
                    counters.refusedMemory().update(1);
                }
            }
            default -> {}
        }
    }

    @Override
    protected void release()
    {
        counters.active().decrementAndGet();
        counters.completed().update(1);
        if (scan != null) {
            counters.rowsScanned().update(scan.rowsScanned());
            counters.rowsReturned().update(rowsSent);
        }
        if (dataSource != null) {
            counters.bytesReadFromDisk().update(dataSource.diskBytesRead());
        }
        chargeCpu();
        counters.cpuNanos().update(cpuNanos);
        counters.earlyFlushes().update(earlyFlushes());
        counters.peakMemoryBytes().accumulateAndGet(memory.peakBytes(), Math::max);
        try {
            if (scan != null) {
                scan.close();
            }
            else if (dataSource != null) {
                dataSource.close();
            }
        }
        catch (IOException e) {
            log.warn(e, "Cannot close %s", file.path());
        }
        finally {
            // after the reader let go of its buffers: everything the call held goes back to the pool
            reservation.close();
        }
    }
}
