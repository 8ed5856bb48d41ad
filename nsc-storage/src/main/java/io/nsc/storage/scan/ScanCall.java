package io.nsc.storage.scan;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import io.airlift.log.Logger;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.server.StreamingServerCall;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.memory.PoolReservation;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.Page;

import java.io.IOException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * One Scan call's stream: its steps on the node's scan threads, flow control, the batches and
 * the summary, and what its end gives back. What the request asks for is {@link ScanPlan}'s;
 * the file and the reader over it are {@link ScanSource}'s; folding rows into an aggregation or
 * top-N under the budget is {@link ScanFold}'s; how a failure becomes the call's status is
 * {@link ScanStatuses}'; the CPU the call used is {@link ThreadCpuClock}'s. A batch is produced
 * only when gRPC says the client can take it (flow control), so a slow worker holds the node to
 * one batch in the making plus the message in flight. The work runs on the node's scan threads
 * (as many as it has cores, by default), never on gRPC's: many concurrent scans share the cores
 * in turn instead of each taking a thread of its own. A call's steps (open, each drain, a
 * cancellation) run one at a time in order, so the state here needs no locking.
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
    private static final int MIN_BATCH_BYTES = 16 * 1024;
    // the share of the budget an aggregation's groups or a top-N's rows may hold: the rest is for
    // the reader's buffers and the batch in the making
    private static final int FOLD_SHARE_DIVISOR = 2;

    private final StoredFile file;
    private final ScanRequest request;
    private final int batchBytes;
    private final ScanLimits limits;
    private final NodeMemoryPool pool;
    private final PoolReservation reservation;
    private final MemoryBudget memory;
    private ListenableFuture<Void> admission;
    private final BudgetCharge batchCharge;
    private final ScanStatuses statuses;
    private final ScanSource source;
    private final ThreadCpuClock cpu = new ThreadCpuClock();
    private final NearStorageScanner.Counters counters;
    // the call's steps, in order and never two at once, on the node's bounded scan threads
    private final Executor steps;
    private final AtomicBoolean drainQueued = new AtomicBoolean();

    private Optional<ScanFold> fold = Optional.empty();
    private PageCodec codec;
    private long bytesSent;
    // rows in the pages sent: the filtered rows, or the groups of an aggregation
    private long rowsSent;

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
        this.file = requireNonNull(file, "file is null");
        this.request = requireNonNull(request, "request is null");
        this.batchBytes = request.getTargetBatchBytes() <= 0 ? maxBatchBytes : max(MIN_BATCH_BYTES, min(request.getTargetBatchBytes(), maxBatchBytes));
        this.limits = requireNonNull(limits, "limits is null");
        this.pool = requireNonNull(pool, "pool is null");
        this.reservation = new PoolReservation(pool, min(limits.admissionBytes(), limits.memoryBytes()));
        this.memory = new MemoryBudget("Scan of file %s".formatted(file.id()), limits.memoryBytes(), reservation);
        this.batchCharge = new BudgetCharge(memory, "a batch of pages");
        this.counters = requireNonNull(counters, "counters is null");
        this.statuses = new ScanStatuses(store, file, counters);
        this.source = new ScanSource(store, file, caches, readerOptions, memory, reservation, statuses);
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
                // a cancelled admission is the client's cancellation, which ended the call
                if (!(failure instanceof CancellationException)) {
                    fail(statuses.admissionFailed(failure));
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
        cpu.mark();
        try {
            open();
        }
        catch (IOException | RuntimeException e) {
            fail(statuses.openFailed(e));
            return;
        }
        finally {
            cpu.charge();
        }
        drain();
    }

    private void open()
            throws IOException
    {
        ScanPlan plan = new ScanPlan(request, file.id(), limits, memory, limits.memoryBytes() / FOLD_SHARE_DIVISOR);
        fold = ScanFold.of(plan);
        codec = new PageCodec(request.getCompression());
        source.open(plan, request.getRowGroupsList());
    }

    private void drain()
    {
        if (!source.readerOpened()) {
            // not admitted or not opened yet: the open drains when it is done
            return;
        }
        cpu.mark();
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
        catch (IOException | RuntimeException e) {
            fail(statuses.scanFailed(e));
        }
        finally {
            cpu.charge();
        }
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
            // the batch in the making is held until it is sent
            batchCharge.chargeTo(batch.sizeInBytes());
            rowsSent += page.getPositionCount();
        }
        if (batch.pageCount() > 0) {
            PageBatch message = batch.build();
            batchCharge.chargeTo(0);
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
            return source.nextPage();
        }
        return fold.get().nextOutputPage(() -> call.isCancelled() ? null : source.nextPage());
    }

    private ScanSummary summary()
    {
        cpu.charge();
        return ScanSummary.newBuilder()
                .setRowGroupsScanned(request.getRowGroupsCount())
                .setRowsScanned(source.rowsScanned())
                .setRowsReturned(rowsSent)
                .setBytesReadFromDisk(source.diskBytesRead())
                .setBytesSent(bytesSent)
                .setCpuNanos(cpu.nanos())
                .setEarlyFlushes(earlyFlushes())
                .setPeakMemoryBytes(memory.peakBytes())
                .build();
    }

    private long earlyFlushes()
    {
        return fold.map(ScanFold::earlyFlushes).orElse(0L);
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
        statuses.count(e);
    }

    @Override
    protected void release()
    {
        counters.active().decrementAndGet();
        counters.completed().update(1);
        if (source.readerOpened()) {
            counters.rowsScanned().update(source.rowsScanned());
            counters.rowsReturned().update(rowsSent);
        }
        if (source.fileOpened()) {
            counters.bytesReadFromDisk().update(source.diskBytesRead());
        }
        cpu.charge();
        counters.cpuNanos().update(cpu.nanos());
        counters.earlyFlushes().update(earlyFlushes());
        counters.peakMemoryBytes().accumulateAndGet(memory.peakBytes(), Math::max);
        try {
            source.close();
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
