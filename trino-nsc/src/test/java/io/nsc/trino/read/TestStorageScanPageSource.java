package io.nsc.trino.read;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.testing.TestingTicker;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.client.NodeBusy;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.client.StorageClients;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.FixedPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metric;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import static com.google.common.util.concurrent.Uninterruptibles.awaitUninterruptibly;
import static io.nsc.trino.NscErrorCode.NSC_BAD_STORAGE_RESPONSE;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_SCAN_MEMORY_LIMIT;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A storage-side scan against a fake storage node: the driver is never blocked while the node is
 * silent, a replica's transport or storage failure moves the scan to the next replica without
 * repeating rows, a refusal every replica would give fails at once, closing cancels the call on
 * the node, and a misbehaving node must not take a Trino worker's heap (batches are decoded
 * within limits; what is refused becomes a TrinoException with an nsc error code).
 */
@TestInstance(PER_CLASS)
final class TestStorageScanPageSource
{
    private final AtomicInteger calls = new AtomicInteger();
    private volatile BiConsumer<ScanRequest, StreamObserver<ScanResponse>> behaviour;
    private Server server;
    private StorageClients clients;
    private String address;

    @BeforeAll
    void setUp()
            throws IOException
    {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(new StorageServiceGrpc.StorageServiceImplBase()
                {
                    @Override
                    public void scan(ScanRequest request, StreamObserver<ScanResponse> responseObserver)
                    {
                        calls.incrementAndGet();
                        behaviour.accept(request, responseObserver);
                    }
                })
                .build()
                .start();
        address = "127.0.0.1:" + server.getPort();
        clients = new StorageClients(TransportSecurity.insecure());
    }

    @AfterAll
    void tearDown()
    {
        clients.close();
        server.shutdownNow();
    }

    @Test
    void testGoodBatchesArrive()
    {
        respond(batch(0, 3));
        StorageScanPageSource source = source();
        SourcePage page = nextPage(source);
        assertThat(page.getPositionCount()).isEqualTo(3);
        assertThat(nextPage(source)).isNull();
        assertThat(source.isFinished()).isTrue();
    }

    @Test
    void testDriverIsNotBlockedWhileTheNodeIsSilent()
            throws Exception
    {
        CountDownLatch release = new CountDownLatch(1);
        behaviour = (_, observer) -> {
            awaitUninterruptibly(release);
            send(observer, batch(0, 3));
            finish(observer);
        };
        StorageScanPageSource source = source();
        assertThat(source.getNextSourcePage()).isNull();
        assertThat(source.isFinished()).isFalse();
        CompletableFuture<?> blocked = source.isBlocked();
        assertThat(blocked).isNotDone();
        release.countDown();
        blocked.get(10, SECONDS);
        // the message that arrived is reported before it is decoded
        assertThat(source.getMemoryUsage()).isPositive();
        assertThat(values(readAll(source))).containsExactly(0L, 1L, 2L);
        assertThat(source.getMemoryUsage()).isZero();
    }

    @Test
    void testReplicaFailureMovesTheScanWithoutRepeatingRows()
    {
        int first = calls.get() + 1;
        behaviour = (_, observer) -> {
            if (calls.get() == first) {
                // three rows, then the node goes away
                send(observer, batch(0, 3));
                observer.onError(Status.UNAVAILABLE.withDescription("node restarting").asRuntimeException());
                return;
            }
            send(observer, batch(0, 3));
            send(observer, batch(3, 5));
            finish(observer);
        };
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000);
        assertThat(values(readAll(source))).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(calls.get()).isEqualTo(first + 1);
        assertThat(((LongCount) source.getMetrics().getMetrics().get(ReadMetrics.STORAGE_REPLICA_FAILOVERS)).getTotal()).isEqualTo(1);
    }

    @Test
    void testAggregatingScanMovesToAnotherReplicaOnlyBeforeItsFirstRow()
    {
        // partial states come early at a node's own memory threshold: another node's rows after the same count may differ
        ScanRequest aggregating = request(PageCompression.PAGE_COMPRESSION_LZ4).toBuilder().setAggregate(true).build();
        int first = calls.get() + 1;
        behaviour = (_, observer) -> {
            if (calls.get() == first) {
                send(observer, batch(0, 3));
                observer.onError(Status.UNAVAILABLE.withDescription("node restarting").asRuntimeException());
                return;
            }
            send(observer, batch(0, 5));
            finish(observer);
        };
        StorageScanPageSource afterRows = new StorageScanPageSource(aggregating, List.of(address, address), clients, 30_000);
        assertThatThrownBy(() -> readAll(afterRows))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("failed after it returned rows, which another replica could not continue");
        assertThat(calls.get()).isEqualTo(first);

        // failing before any row, it runs whole on the next replica
        int second = calls.get() + 1;
        behaviour = (_, observer) -> {
            if (calls.get() == second) {
                observer.onError(Status.UNAVAILABLE.withDescription("node restarting").asRuntimeException());
                return;
            }
            send(observer, batch(0, 5));
            finish(observer);
        };
        StorageScanPageSource beforeRows = new StorageScanPageSource(aggregating, List.of(address, address), clients, 30_000);
        assertThat(values(readAll(beforeRows))).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(calls.get()).isEqualTo(second + 1);
    }

    @Test
    void testNodeEndingWithoutSummaryIsAReplicaFailure()
    {
        int first = calls.get() + 1;
        behaviour = (_, observer) -> {
            send(observer, batch(0, 2));
            if (calls.get() == first) {
                observer.onCompleted();
                return;
            }
            finish(observer);
        };
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000);
        assertThat(values(readAll(source))).containsExactly(0L, 1L);
        assertThat(calls.get()).isEqualTo(first + 1);

        behaviour = (_, observer) -> {
            send(observer, batch(0, 2));
            observer.onCompleted();
        };
        StorageScanPageSource alone = source();
        assertThatThrownBy(() -> readAll(alone))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("ended the scan without a summary");
    }

    @Test
    void testBusyNodesMoveTheScanToTheNextReplicaThenToARawRead()
            throws Exception
    {
        int before = calls.get();
        behaviour = (_, observer) -> observer.onError(busy());
        AtomicInteger rawReads = new AtomicInteger();
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000, Optional.of(() -> {
            rawReads.incrementAndGet();
            return new FixedPageSource(List.of(page(0, 4)));
        }));
        assertThat(values(readAll(source))).containsExactly(0L, 1L, 2L, 3L);
        // both replicas asked once, then the raw read
        assertThat(calls.get()).isEqualTo(before + 2);
        assertThat(rawReads.get()).isEqualTo(1);
        Map<String, Metric<?>> metrics = source.getMetrics().getMetrics();
        assertThat(((LongCount) metrics.get(ReadMetrics.STORAGE_SCANS_REFUSED_BUSY)).getTotal()).isEqualTo(2);
        assertThat(((LongCount) metrics.get(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).getTotal()).isEqualTo(1);
        assertThat(((LongCount) metrics.get(ReadMetrics.SPLITS_FILTER)).getTotal()).isZero();
        source.close();

        // a busy replica, then one with room: no raw read
        int first = calls.get() + 1;
        behaviour = (_, observer) -> {
            if (calls.get() == first) {
                observer.onError(busy());
                return;
            }
            send(observer, batch(0, 3));
            finish(observer);
        };
        StorageScanPageSource secondReplica = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000, Optional.of(() -> {
            throw new AssertionError("no raw read while a replica has room");
        }));
        assertThat(values(readAll(secondReplica))).containsExactly(0L, 1L, 2L);
        assertThat(((LongCount) secondReplica.getMetrics().getMetrics().get(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).getTotal()).isZero();
    }

    @Test
    void testNodesThatRefusedAsBusyAreLeftAloneUntilTheirRetryHint()
    {
        TestingTicker ticker = new TestingTicker();
        BusyStorageNodes busyNodes = new BusyStorageNodes(ticker, 30_000);
        AtomicInteger rawReads = new AtomicInteger();
        Supplier<ConnectorPageSource> rawRead = () -> {
            rawReads.incrementAndGet();
            return new FixedPageSource(List.of(page(0, 4)));
        };
        int before = calls.get();
        behaviour = (_, observer) -> observer.onError(busy());
        StorageScanPageSource refused = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address), clients, 30_000, Optional.of(rawRead), busyNodes);
        assertThat(values(readAll(refused))).containsExactly(0L, 1L, 2L, 3L);
        assertThat(calls.get()).isEqualTo(before + 1);
        assertThat(busyNodes.isBackingOff(address)).isTrue();

        // within the node's hint (5000 ms), the next split reads raw without asking it
        ticker.increment(4_999, MILLISECONDS);
        StorageScanPageSource leftAlone = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address), clients, 30_000, Optional.of(rawRead), busyNodes);
        assertThat(values(readAll(leftAlone))).containsExactly(0L, 1L, 2L, 3L);
        assertThat(calls.get()).isEqualTo(before + 1);
        assertThat(rawReads.get()).isEqualTo(2);
        Map<String, Metric<?>> metrics = leftAlone.getMetrics().getMetrics();
        assertThat(((LongCount) metrics.get(ReadMetrics.STORAGE_BUSY_NODES_SKIPPED)).getTotal()).isEqualTo(1);
        assertThat(((LongCount) metrics.get(ReadMetrics.STORAGE_SCANS_REFUSED_BUSY)).getTotal()).isZero();
        assertThat(((LongCount) metrics.get(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).getTotal()).isEqualTo(1);

        // the hint is advice: a split with nowhere else to go asks the node all the same
        behaviour = (_, observer) -> {
            send(observer, batch(0, 3));
            finish(observer);
        };
        StorageScanPageSource nowhereElse = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address), clients, 30_000, Optional.empty(), busyNodes);
        assertThat(values(readAll(nowhereElse))).containsExactly(0L, 1L, 2L);
        assertThat(calls.get()).isEqualTo(before + 2);

        // past the hint the node is asked again
        ticker.increment(1, MILLISECONDS);
        assertThat(busyNodes.isBackingOff(address)).isFalse();
        StorageScanPageSource askedAgain = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address), clients, 30_000, Optional.of(() -> {
            throw new AssertionError("no raw read once the node's hint has passed");
        }), busyNodes);
        assertThat(values(readAll(askedAgain))).containsExactly(0L, 1L, 2L);
        assertThat(calls.get()).isEqualTo(before + 3);
    }

    @Test
    void testBusyHintsAreCappedAndOnlyRememberedWhenTheyWait()
    {
        TestingTicker ticker = new TestingTicker();
        BusyStorageNodes busyNodes = new BusyStorageNodes(ticker, 30_000);
        busyNodes.refusedBusy("a:1", 0);
        assertThat(busyNodes.isBackingOff("a:1")).isFalse();

        // the hint is capped
        busyNodes.refusedBusy("b:1", Long.MAX_VALUE);
        ticker.increment(29_999, MILLISECONDS);
        assertThat(busyNodes.isBackingOff("b:1")).isTrue();
        assertThat(busyNodes.getNodesBackedOff()).isEqualTo(1);
        // a later refusal moves the time on
        busyNodes.refusedBusy("b:1", 10);
        ticker.increment(5, MILLISECONDS);
        assertThat(busyNodes.isBackingOff("b:1")).isTrue();
        ticker.increment(5, MILLISECONDS);
        assertThat(busyNodes.isBackingOff("b:1")).isFalse();
        assertThat(busyNodes.getNodesBackedOff()).isZero();

        // a shorter hint does not pull an earlier refusal's time back
        busyNodes.refusedBusy("c:1", 1_000);
        busyNodes.refusedBusy("c:1", 1);
        ticker.increment(2, MILLISECONDS);
        assertThat(busyNodes.isBackingOff("c:1")).isTrue();
        assertThatThrownBy(() -> busyNodes.refusedBusy("c:1", -1)).isInstanceOf(IllegalArgumentException.class);

        // nsc.busy-node-back-off=0s, and the page sources built without a worker's registry: every node asked every time
        for (BusyStorageNodes never : List.of(new BusyStorageNodes(ticker, 0), BusyStorageNodes.never())) {
            never.refusedBusy("a:1", 5_000);
            assertThat(never.isBackingOff("a:1")).isFalse();
        }
    }

    @Test
    void testBusyNodesWithoutARawReadFailTheSplitAsBusy()
    {
        behaviour = (_, observer) -> observer.onError(busy());
        assertThatThrownBy(() -> readAll(source()))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("too busy to scan");

        // an aggregating scan that returned rows cannot move: neither to a replica nor to a raw read
        ScanRequest aggregating = request(PageCompression.PAGE_COMPRESSION_LZ4).toBuilder().setAggregate(true).build();
        behaviour = (_, observer) -> {
            send(observer, batch(0, 3));
            observer.onError(busy());
        };
        StorageScanPageSource afterRows = new StorageScanPageSource(aggregating, List.of(address, address), clients, 30_000, Optional.of(() -> {
            throw new AssertionError("no raw read after rows were returned");
        }));
        assertThatThrownBy(() -> readAll(afterRows))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("too busy to scan")
                .hasMessageContaining("after it returned rows");
    }

    @Test
    void testScanOverItsOwnBudgetIsNeitherMovedNorReadRaw()
    {
        int before = calls.get();
        behaviour = (_, observer) -> observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("Scan of file x exceeds its memory limit of 4MB").asRuntimeException());
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000, Optional.of(() -> {
            throw new AssertionError("every replica and a raw read's engine would need the same memory");
        }));
        assertThatThrownBy(() -> readAll(source))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_SCAN_MEMORY_LIMIT.toErrorCode()));
        assertThat(calls.get()).isEqualTo(before + 1);
    }

    private static StatusRuntimeException busy()
    {
        Metadata trailers = new Metadata();
        trailers.put(NodeBusy.RETRY_AFTER_MILLIS, "5000");
        return Status.RESOURCE_EXHAUSTED.withDescription("The storage node's memory pool of 12MB is exhausted").asRuntimeException(trailers);
    }

    private static Page page(long from, long to)
    {
        BlockBuilder values = BIGINT.createBlockBuilder(null, (int) (to - from));
        for (long value = from; value < to; value++) {
            BIGINT.writeLong(values, value);
        }
        return new Page(values.build());
    }

    @Test
    void testRefusalIsNotTriedOnAnotherReplica()
    {
        behaviour = (_, observer) -> observer.onError(Status.INVALID_ARGUMENT.withDescription("row group 7 does not exist").asRuntimeException());
        int before = calls.get();
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000);
        assertThatThrownBy(() -> readAll(source))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("refused the scan")
                .hasMessageContaining("row group 7 does not exist");
        assertThat(calls.get()).isEqualTo(before + 1);
    }

    @Test
    void testCloseCancelsTheScanOnTheNode()
            throws Exception
    {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch cancelled = new CountDownLatch(1);
        behaviour = (_, observer) -> {
            ((ServerCallStreamObserver<ScanResponse>) observer).setOnCancelHandler(cancelled::countDown);
            started.countDown();
        };
        StorageScanPageSource source = source();
        assertThat(source.getNextSourcePage()).isNull();
        // the node is scanning (a cancel before the request arrives would never reach a handler)
        assertThat(started.await(10, SECONDS)).isTrue();
        source.close();
        assertThat(cancelled.await(10, SECONDS)).isTrue();
        assertThat(source.isFinished()).isTrue();
    }

    @Test
    void testBatchClaimingAHugeSizeFailsTheQueryNotTheWorker()
    {
        respond(PageBatch.newBuilder()
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4)
                .setUncompressedSize(Integer.MAX_VALUE)
                .setPageCount(1)
                .setData(ByteString.copyFrom(new byte[16]))
                .build());
        assertThatThrownBy(() -> readAll(source()))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_BAD_STORAGE_RESPONSE.toErrorCode()))
                .hasMessageContaining("uncompressed bytes, the limit is");
    }

    @Test
    void testBlocksThatExpandPastTheLimitFailTheQuery()
    {
        // one page of one run-length block claiming 2^31-1 positions: a few dozen bytes
        DynamicSliceOutput data = new DynamicSliceOutput(64);
        data.writeInt(Integer.MAX_VALUE);
        data.writeInt(1);
        writeName(data, "RLE");
        data.writeInt(Integer.MAX_VALUE);
        writeName(data, "LONG_ARRAY");
        data.writeInt(1);
        data.writeBoolean(false);
        data.writeLong(7);
        byte[] bytes = data.slice().getBytes();
        respond(PageBatch.newBuilder()
                .setCompression(PageCompression.PAGE_COMPRESSION_NONE)
                .setUncompressedSize(bytes.length)
                .setPageCount(1)
                .setPositionCount(Integer.MAX_VALUE)
                .setData(ByteString.copyFrom(bytes))
                .build());
        assertThatThrownBy(() -> readAll(source(PageCompression.PAGE_COMPRESSION_NONE)))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_BAD_STORAGE_RESPONSE.toErrorCode()))
                .hasMessageContaining("exceeds its memory limit");
    }

    @Test
    void testScanOverTheStorageMemoryBudgetDoesNotFailOver()
    {
        behaviour = (_, observer) -> observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("Scan of file f exceeds its memory limit of 256MB").asRuntimeException());
        int before = calls.get();
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000);
        assertThatThrownBy(() -> readAll(source))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_SCAN_MEMORY_LIMIT.toErrorCode()))
                .hasMessageContaining("exceeds its memory limit of 256MB");
        // the second replica has the same budget and the same rows: not asked
        assertThat(calls.get()).isEqualTo(before + 1);
    }

    private void respond(PageBatch batch)
    {
        behaviour = (_, observer) -> {
            observer.onNext(ScanResponse.newBuilder().setBatch(batch).build());
            observer.onNext(ScanResponse.newBuilder().setSummary(ScanSummary.getDefaultInstance()).build());
            observer.onCompleted();
        };
    }

    /** The next page, waiting on isBlocked() as the driver does; null once the source is finished. */
    private static SourcePage nextPage(StorageScanPageSource source)
    {
        while (true) {
            SourcePage page = source.getNextSourcePage();
            if (page != null || source.isFinished()) {
                return page;
            }
            try {
                source.isBlocked().get(10, SECONDS);
            }
            catch (Exception e) {
                throw new AssertionError("the source stayed blocked", e);
            }
        }
    }

    private static List<Page> readAll(StorageScanPageSource source)
    {
        List<Page> pages = new ArrayList<>();
        for (SourcePage page = nextPage(source); page != null; page = nextPage(source)) {
            pages.add(page.getPage());
        }
        return pages;
    }

    private static List<Long> values(List<Page> pages)
    {
        List<Long> values = new ArrayList<>();
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                values.add(BIGINT.getLong(page.getBlock(0), position));
            }
        }
        return values;
    }

    /** One batch of one page of the bigints from {@code from} to {@code to} (exclusive). */
    private static PageBatch batch(long from, long to)
    {
        PageCodec.BatchBuilder batch = new PageCodec(PageCompression.PAGE_COMPRESSION_LZ4).newBatch();
        BlockBuilder values = BIGINT.createBlockBuilder(null, (int) (to - from));
        for (long value = from; value < to; value++) {
            BIGINT.writeLong(values, value);
        }
        batch.add(new Page(values.build()));
        return batch.build();
    }

    private static void send(StreamObserver<ScanResponse> observer, PageBatch batch)
    {
        observer.onNext(ScanResponse.newBuilder().setBatch(batch).build());
    }

    private static void finish(StreamObserver<ScanResponse> observer)
    {
        observer.onNext(ScanResponse.newBuilder().setSummary(ScanSummary.getDefaultInstance()).build());
        observer.onCompleted();
    }

    private StorageScanPageSource source()
    {
        return source(PageCompression.PAGE_COMPRESSION_LZ4);
    }

    private StorageScanPageSource source(PageCompression compression)
    {
        return new StorageScanPageSource(request(compression), List.of(address), clients, 30_000);
    }

    private static ScanRequest request(PageCompression compression)
    {
        return ScanRequest.newBuilder().setFileId("0123456789abcdef0123456789abcdef").addRowGroups(0).setCompression(compression).build();
    }

    private static void writeName(DynamicSliceOutput out, String name)
    {
        out.writeInt(name.length());
        out.writeBytes(name.getBytes(US_ASCII));
    }
}
