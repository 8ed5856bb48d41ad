package io.nsc.storage.scan;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowFilter;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.parquet.scan.FilteredScan;
import io.nsc.parquet.scan.ParquetScanReader;
import io.nsc.parquet.topn.SortKey;
import io.nsc.parquet.topn.TopNRows;
import io.nsc.parquet.types.TrinoTypes;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.parquet.wire.WireValues;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanAggregate;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.ScanValue;
import io.nsc.storage.cache.BoundedMetadataCache;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.DamagedCopies;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * One Scan call. A batch is produced only when gRPC says the client can take it (flow
 * control), so a slow worker holds the node to one batch in the making plus the message in
 * flight. The work runs on the node's scan threads (as many as it has cores, by default), never on
 * gRPC's: many concurrent scans share the cores in turn instead of each taking a thread of its
 * own. A call's steps (open, each drain, a cancellation) run one at a time in order, so the state
 * here needs no locking.
 * <p>
 * Nothing in the request is trusted: its size, row groups and the sizes of its expressions and
 * values are checked before they are decoded (INVALID_ARGUMENT), and what the scan holds (decoded
 * values, group maps, top-N heaps, the reader's buffers, the batch in the making) is reserved in
 * its memory budget (RESOURCE_EXHAUSTED past it), so that no request can take the node's heap.
 * <p>
 * An aggregation's groups or a top-N's rows may take half of the budget. When they would take
 * more, the scan sends what they hold (partial states, or the best rows so far) and goes on with
 * empty ones: the worker merges partial states of one group sent twice, and Trino's top-N picks
 * the first rows of all sent, so a scan of more groups than expected costs rows sent, not the
 * query.
 */
final class ScanCall
{
    private static final Logger log = Logger.get(ScanCall.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int MIN_BATCH_BYTES = 16 * 1024;
    // the most rows a top-N scan keeps: what the connector pushes is bounded the same way
    private static final long MAX_TOP_N = 100_000;
    private static final int RESULT_PAGE_ROWS = 8192;
    // the share of the budget an aggregation's groups or a top-N's rows may hold: the rest is for
    // the reader's buffers and the batch in the making
    private static final int FOLD_SHARE_DIVISOR = 2;

    private final ParquetFileStore store;
    private final StoredFile file;
    private final ScanRequest request;
    private final int batchBytes;
    private final ScanLimits limits;
    private final MemoryBudget memory;
    private final AggregatedMemoryContext readerMemory = newSimpleAggregatedMemoryContext();
    // what is reserved for the reader's buffers and the batch in the making, as last charged
    private long readerReserved;
    private long batchReserved;
    private final BoundedMetadataCache<FileId, ParsedFooter> footers;
    private final ParquetReaderOptions readerOptions;
    private final ServerCallStreamObserver<ScanResponse> call;
    private final NearStorageScanner.Counters counters;
    // the call's steps, in order and never two at once, on the node's bounded scan threads
    private final Executor steps;
    private final AtomicBoolean drainQueued = new AtomicBoolean();

    private StoredParquetDataSource dataSource;
    private FilteredScan scan;
    private Optional<Aggregation> aggregation = Optional.empty();
    private Optional<TopNRows> topN = Optional.empty();
    // an input page an aggregation or top-N has taken rows of up to pendingPosition, before it filled up
    private Page pending;
    private int pendingPosition;
    // an aggregation or top-N hands out what it holds: it filled up, or the input ended
    private boolean draining;
    private boolean inputEnded;
    private long earlyFlushes;
    private PageCodec codec;
    private long bytesSent;
    // rows in the pages sent: the filtered rows, or the groups of an aggregation
    private long rowsSent;
    // CPU charged so far, and the thread CPU time it was last charged up to (within a callback)
    private long cpuNanos;
    private long cpuMark;
    private Thread cpuMarkThread;
    private boolean done;

    ScanCall(
            ParquetFileStore store,
            StoredFile file,
            ScanRequest request,
            int maxBatchBytes,
            ScanLimits limits,
            BoundedMetadataCache<FileId, ParsedFooter> footers,
            ParquetReaderOptions readerOptions,
            ServerCallStreamObserver<ScanResponse> call,
            NearStorageScanner.Counters counters,
            Executor scanThreads)
    {
        this.store = requireNonNull(store, "store is null");
        this.file = requireNonNull(file, "file is null");
        this.request = requireNonNull(request, "request is null");
        this.batchBytes = request.getTargetBatchBytes() <= 0 ? maxBatchBytes : max(MIN_BATCH_BYTES, min(request.getTargetBatchBytes(), maxBatchBytes));
        this.limits = requireNonNull(limits, "limits is null");
        this.memory = new MemoryBudget("Scan of file %s".formatted(file.id()), limits.memoryBytes());
        this.footers = requireNonNull(footers, "footers is null");
        this.readerOptions = requireNonNull(readerOptions, "readerOptions is null");
        this.call = requireNonNull(call, "call is null");
        this.counters = requireNonNull(counters, "counters is null");
        this.steps = MoreExecutors.newSequentialExecutor(requireNonNull(scanThreads, "scanThreads is null"));
    }

    /**
     * Takes the call over from gRPC's thread: the work runs on the node's scan threads, one step at
     * a time per call, and gRPC's callbacks only hand it the next step.
     */
    void start()
    {
        counters.active().incrementAndGet();
        call.setOnCancelHandler(() -> steps.execute(this::cancel));
        call.setOnReadyHandler(this::scheduleDrain);
        steps.execute(this::openAndDrain);
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
        if (request.getSerializedSize() > limits.maxRequestBytes()) {
            throw invalid("Scan of file %s: a request of %s bytes, more than the %s allowed".formatted(file.id(), request.getSerializedSize(), limits.maxRequestBytes()));
        }
        checkRowGroups();
        if (request.getCompression() == PageCompression.UNRECOGNIZED) {
            throw invalid("Scan of file %s asks for an unknown page compression".formatted(file.id()));
        }
        List<FileColumn> columns = request.getColumnsList().stream()
                .map(this::fileColumn)
                .collect(toImmutableList());
        List<Type> columnTypes = columns.stream().map(FileColumn::type).collect(toImmutableList());
        // the scan's channels: the columns, then the values computed from them
        List<Type> types = new ArrayList<>(columnTypes);
        List<ValueExpression> computed = new ArrayList<>();
        TupleDomain<Integer> predicate;
        List<RowExpression> expressions = new ArrayList<>();
        try {
            // values of the predicate, the filters and the computed values count against one limit and one budget
            WireValues values = new WireValues(limits.request().maxValueBytes(), memory);
            RowExpressionCodec.Decoder columnsOnly = RowExpressionCodec.decoder(columnTypes::get, limits.request(), values);
            for (ScanValue value : request.getComputedList()) {
                computed.add(columnsOnly.decode(value));
                types.add(computed.getLast().type());
            }
            predicate = TupleDomainCodec.decode(request.getPredicate(), types, values);
            RowExpressionCodec.Decoder decoder = RowExpressionCodec.decoder(types::get, limits.request(), values);
            for (ScanExpression filter : request.getFiltersList()) {
                expressions.add(decoder.decode(filter));
            }
        }
        catch (MemoryLimitExceededException e) {
            throw e;
        }
        catch (RuntimeException e) {
            // the decoders refuse what is malformed or over a limit with IllegalArgumentException
            throw invalid("Scan of file %s has a bad predicate: %s".formatted(file.id(), e.getMessage()));
        }
        if (request.getLimit() < 0) {
            throw invalid("Scan of file %s has a negative limit".formatted(file.id()));
        }
        int[] outputChannels = outputChannels(types.size());
        if (request.getAggregate()) {
            aggregation = Optional.of(aggregation(types, outputChannels));
        }
        else if (request.getTopN() > 0) {
            topN = Optional.of(topN(types, outputChannels));
        }

        codec = new PageCodec(request.getCompression());
        dataSource = new StoredParquetDataSource(file, store.openReader(file), readerOptions);
        ParquetMetadata footer = footer();
        checkRowGroupsInFile(footer);
        ParquetScanReader reader = ParquetScanReader.create(
                dataSource,
                footer,
                request.getRowGroupsList(),
                columns,
                predicate,
                readerOptions,
                readerMemory,
                this::badData);
        // a limit counts rows in file order: it applies to plain scans only
        long limit = request.getLimit() == 0 || aggregation.isPresent() || topN.isPresent() ? Long.MAX_VALUE : request.getLimit();
        scan = new FilteredScan(reader, computed, RowFilter.create(predicate, expressions, types), outputChannels, limit);
    }

    /** The channels sent, in order: as the request lists them, or the columns it marks as output. */
    private int[] outputChannels(int channelCount)
    {
        if (request.getOutputChannelsCount() > 0) {
            int[] outputChannels = request.getOutputChannelsList().stream().mapToInt(Integer::intValue).toArray();
            for (int channel : outputChannels) {
                if (channel < 0 || channel >= channelCount) {
                    throw invalid("Scan of file %s outputs channel %s of %s".formatted(file.id(), channel, channelCount));
                }
            }
            return outputChannels;
        }
        return IntStream.range(0, request.getColumnsCount())
                .filter(channel -> request.getColumns(channel).getOutput())
                .toArray();
    }

    /**
     * Row groups in file order, as the protocol says, each named once: a repeated row group would
     * be read (and its rows sent) again. Indexes past the file's end are checked against the
     * footer later (OUT_OF_RANGE).
     */
    private void checkRowGroups()
    {
        if (request.getRowGroupsCount() == 0) {
            throw invalid("Scan of file %s names no row group".formatted(file.id()));
        }
        if (request.getRowGroupsCount() > limits.maxRowGroups()) {
            throw invalid("Scan of file %s names %s row groups, more than the %s allowed".formatted(file.id(), request.getRowGroupsCount(), limits.maxRowGroups()));
        }
        int previous = -1;
        for (int rowGroup : request.getRowGroupsList()) {
            if (rowGroup < 0) {
                throw invalid("Scan of file %s names the negative row group %s".formatted(file.id(), rowGroup));
            }
            if (rowGroup <= previous) {
                throw invalid("Scan of file %s names row group %s after row group %s: row groups must be named once each, in ascending order".formatted(file.id(), rowGroup, previous));
            }
            previous = rowGroup;
        }
    }

    /** Group keys and aggregate inputs are output columns: positions in the scan's output pages. */
    private record Aggregation(GroupedAggregation groups, int[] groupChannels, int[] inputChannels) {}

    private TopNRows topN(List<Type> types, int[] outputChannels)
    {
        if (request.getTopN() > MAX_TOP_N) {
            throw invalid("Scan of file %s asks for the top %s rows, more than %s".formatted(file.id(), request.getTopN(), MAX_TOP_N));
        }
        try {
            List<Type> outputTypes = Arrays.stream(outputChannels).mapToObj(types::get).collect(toImmutableList());
            List<SortKey> keys = request.getOrderList().stream()
                    .map(key -> new SortKey(key.getColumn(), key.getAscending(), key.getNullsFirst()))
                    .collect(toImmutableList());
            return new TopNRows(outputTypes, keys, (int) request.getTopN(), memory, foldLimitBytes());
        }
        catch (IllegalArgumentException e) {
            throw invalid("Scan of file %s has a bad top-N order: %s".formatted(file.id(), e.getMessage()));
        }
    }

    private Aggregation aggregation(List<Type> types, int[] outputChannels)
    {
        try {
            int[] groupChannels = request.getGroupByList().stream().mapToInt(Integer::intValue).toArray();
            List<Type> groupTypes = new ArrayList<>();
            for (int channel : groupChannels) {
                groupTypes.add(types.get(outputChannels[channel]));
            }
            List<AggregateSpec> specs = new ArrayList<>();
            int[] inputChannels = new int[request.getAggregatesCount()];
            for (int i = 0; i < inputChannels.length; i++) {
                ScanAggregate aggregate = request.getAggregates(i);
                AggregateKind kind = AggregateKind.fromWire(aggregate.getFunction());
                inputChannels[i] = aggregate.getInput();
                specs.add(new AggregateSpec(kind, kind == AggregateKind.COUNT_ALL ? Optional.empty() : Optional.of(types.get(outputChannels[aggregate.getInput()]))));
            }
            return new Aggregation(new GroupedAggregation(groupTypes, specs, memory, foldLimitBytes()), groupChannels, inputChannels);
        }
        catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw invalid("Scan of file %s has a bad aggregation: %s".formatted(file.id(), e.getMessage()));
        }
    }

    private long foldLimitBytes()
    {
        return limits.memoryBytes() / FOLD_SHARE_DIVISOR;
    }

    private void checkRowGroupsInFile(ParquetMetadata footer)
            throws IOException
    {
        int rowGroups = footer.getBlocks().size();
        for (int rowGroup : request.getRowGroupsList()) {
            if (rowGroup < 0 || rowGroup >= rowGroups) {
                throw Status.OUT_OF_RANGE.withDescription("File %s has %s row groups, scan asks for row group %s".formatted(file.id(), rowGroups, rowGroup)).asRuntimeException();
            }
        }
        // no check of the columns: one past the file's last is one the table gained since the
        // file was written, which the reader makes NULL (ParquetScanReader)
    }

    private FileColumn fileColumn(ScanColumn column)
    {
        Optional<Type> type = TrinoTypes.fromSignature(column.getType());
        if (type.isEmpty()) {
            throw invalid("Scan of file %s: unknown column type '%s'".formatted(file.id(), column.getType()));
        }
        if (column.getOrdinal() < 0) {
            throw invalid("Scan of file %s: negative column ordinal".formatted(file.id()));
        }
        return new FileColumn(column.getOrdinal(), type.get());
    }

    private ParquetMetadata footer()
    {
        try {
            return footers.get(file.id(), () -> ParsedFooter.of(MetadataReader.readFooter(dataSource, Optional.empty()))).metadata();
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw badData(e.getCause());
        }
    }

    private void drain()
    {
        markCpu();
        try {
            // one batch per step, then back in the queue: a long scan does not keep a scan
            // thread from the scans that arrived after it
            if (!done && call.isReady() && !call.isCancelled()) {
                sendNextBatch();
            }
            if (!done && call.isReady() && !call.isCancelled()) {
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
            finish();
            call.onCompleted();
        }
    }

    /** The next page to send: filtered rows, or what an aggregation or top-N holds once it filled up or the input ended. */
    private Page nextOutputPage()
            throws IOException
    {
        if (aggregation.isEmpty() && topN.isEmpty()) {
            return nextScanPage();
        }
        while (true) {
            if (draining) {
                Optional<Page> held = takeHeld();
                if (held.isPresent()) {
                    return held.get();
                }
                if (inputEnded) {
                    return null;
                }
                draining = false;
            }
            fold();
        }
    }

    /** Folds input rows into the groups or the heap until they fill up or the input ends. */
    private void fold()
            throws IOException
    {
        while (!draining) {
            if (pending == null) {
                Page page = call.isCancelled() ? null : nextScanPage();
                if (page == null) {
                    inputEnded = true;
                    draining = true;
                    return;
                }
                pending = page;
                pendingPosition = 0;
            }
            pendingPosition = aggregation.isPresent()
                    ? aggregation.get().groups().addInput(pending, aggregation.get().groupChannels(), aggregation.get().inputChannels(), pendingPosition)
                    : topN.get().add(pending, pendingPosition);
            if (pendingPosition == pending.getPositionCount()) {
                pending = null;
            }
            else {
                // full: send what is held, then go on with the rest of this page
                earlyFlushes++;
                draining = true;
            }
        }
    }

    /** A page of what the aggregation or top-N holds, which gives those rows up; empty once nothing is held. */
    private Optional<Page> takeHeld()
    {
        if (aggregation.isPresent()) {
            GroupedAggregation groups = aggregation.get().groups();
            return groups.groupCount() == 0 ? Optional.empty() : Optional.of(groups.takePartialPage(RESULT_PAGE_ROWS));
        }
        return topN.get().hasRows() ? Optional.of(topN.get().takeRows(RESULT_PAGE_ROWS)) : Optional.empty();
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
                .setEarlyFlushes(earlyFlushes)
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

    private static StatusRuntimeException invalid(String message)
    {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    private static StatusRuntimeException resourceExhausted(MemoryLimitExceededException e)
    {
        // the message names the scan, the limit and what asked for more
        return Status.RESOURCE_EXHAUSTED.withDescription(e.getMessage()).asRuntimeException();
    }

    private void cancel()
    {
        if (!done) {
            log.debug("Scan of file %s cancelled by the client", file.id());
        }
        finish();
    }

    private void fail(StatusRuntimeException e)
    {
        if (done) {
            return;
        }
        finish();
        switch (e.getStatus().getCode()) {
            case INVALID_ARGUMENT -> counters.refusedInvalid().update(1);
            case RESOURCE_EXHAUSTED -> counters.refusedMemory().update(1);
            default -> {}
        }
        if (!call.isCancelled()) {
            call.onError(e);
        }
    }

    private void finish()
    {
        if (done) {
            return;
        }
        done = true;
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
        counters.earlyFlushes().update(earlyFlushes);
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
    }
}
