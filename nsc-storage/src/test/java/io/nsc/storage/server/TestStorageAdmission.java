package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.NodeBusy;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.storage.server.StorageTesting.await;
import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.metrics;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A node whose memory pool holds one scan: a second waits in the admission queue, a third finds
 * the queue full and is refused with RESOURCE_EXHAUSTED and a retry hint, the second runs once
 * the first ends, and the pool is empty again when all have ended.
 */
@TestInstance(PER_CLASS)
final class TestStorageAdmission
{
    private static final int ROW_GROUPS = 40;
    private static final int ROWS_PER_GROUP = 10_000;

    private StorageServer server;
    private ManagedChannel channel;
    private String fileId;

    @BeforeAll
    void setUp(@TempDir Path disk)
            throws Exception
    {
        server = StorageServer.start(properties("admission-node", List.of(disk.resolve("data")), ImmutableMap.<String, String>builder()
                // one scan's first reservation fits, two do not
                .put("storage.memory-pool-size", "12MB")
                .put("storage.scan-admission-reservation", "8MB")
                .put("storage.scan-admission-max-queued", "1")
                // long enough that the waiting scan is admitted, not refused, in this test
                .put("storage.scan-admission-max-wait", "10m")
                // footers and page indexes are charged to the scans that read them
                .put("storage.scan-footer-cache-size", "0B")
                .put("storage.scan-page-index-cache-size", "0B")
                .put("storage.max-scan-batch", "64kB")
                .buildOrThrow()));
        channel = channel(server);
        fileId = randomFileId();
        upload(channel, fileId, distinctStrings(disk.resolve("strings.parquet")));
    }

    @AfterAll
    void tearDown()
    {
        GrpcChannels.close(channel);
        server.close();
    }

    @Test
    void testScansQueueThenAreRefusedAndTheirMemoryReturns()
    {
        long refusedBefore = metrics(server).get("scans_refused_busy");
        // the client takes one message and no more: flow control holds the scan, and its memory, on the node
        HeldScan first = HeldScan.start(channel, request(), 1);
        awaitCondition("the first scan holds its reservation and waits for the client", () -> first.messages() == 1 && metrics(server).get("memory_pool_reserved_bytes") >= 8 << 20);

        HeldScan second = HeldScan.start(channel, request(), Integer.MAX_VALUE);
        awaitCondition("the second scan waits for memory", () -> metrics(server).get("memory_pool_queued") == 1);
        assertThat(second.messages()).isZero();
        // clients hear it from the node's stats, which auto reads to choose where scans run
        assertThat(StorageServiceGrpc.newBlockingStub(channel).getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getScansQueued()).isEqualTo(1);

        // the queue is full: refused at once, before anything was read for it
        HeldScan third = HeldScan.start(channel, request(), Integer.MAX_VALUE);
        Throwable refused = await(third.ended());
        assertThat(Status.fromThrowable(refused).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        assertThat(Status.fromThrowable(refused).getDescription())
                .contains("memory pool of 12MB is exhausted")
                .contains("1 requests already wait for memory");
        assertThat(NodeBusy.retryAfterMillis(refused)).hasValue(600_000);
        assertThat(third.messages()).isZero();

        // the first ends: the second is admitted and returns every row
        first.cancel();
        assertThat(await(second.ended())).isNull();
        assertThat(second.rows()).isEqualTo((long) ROW_GROUPS * ROWS_PER_GROUP);

        awaitCondition("every scan gave its memory back", () -> metrics(server).get("memory_pool_reserved_bytes") == 0);
        assertThat(metrics(server).get("memory_pool_queued")).isZero();
        assertThat(metrics(server).get("memory_pool_queued_total")).isPositive();
        assertThat(metrics(server).get("memory_pool_refused")).isPositive();
        assertThat(metrics(server).get("scans_refused_busy")).isEqualTo(refusedBefore + 1);
        assertThat(metrics(server).get("memory_pool_max_bytes")).isEqualTo(12 << 20);
    }

    private ScanRequest request()
    {
        return ScanRequest.newBuilder()
                .setFileId(fileId)
                .addAllRowGroups(IntStream.range(0, ROW_GROUPS).boxed().toList())
                .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("varchar").setOutput(true))
                .setCompression(PageCompression.PAGE_COMPRESSION_NONE)
                .build();
    }

    /** Row groups of distinct 40-character strings: megabytes of output a client can hold back. */
    private static byte[] distinctStrings(Path path)
            throws Exception
    {
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, List.of("key"), List.of(VARCHAR), CompressionCodec.SNAPPY)) {
            for (int group = 0; group < ROW_GROUPS; group++) {
                BlockBuilder keys = VARCHAR.createBlockBuilder(null, ROWS_PER_GROUP);
                for (int row = 0; row < ROWS_PER_GROUP; row++) {
                    VARCHAR.writeSlice(keys, utf8Slice("%040d".formatted(group * ROWS_PER_GROUP + row)));
                }
                writer.writeRowGroup(new Page(keys.build()));
            }
        }
        return Files.readAllBytes(path);
    }

    /** A scan whose client asks for at most {@code wanted} messages (then holds the rest back), counting what it gets. */
    private static final class HeldScan
            implements ClientResponseObserver<ScanRequest, ScanResponse>
    {
        private final int wanted;
        private final CompletableFuture<Throwable> ended = new CompletableFuture<>();
        private final AtomicLong messages = new AtomicLong();
        private final AtomicLong rows = new AtomicLong();
        private final PageCodec codec = new PageCodec(PageCompression.PAGE_COMPRESSION_NONE);
        private volatile ClientCallStreamObserver<ScanRequest> requests;

        private HeldScan(int wanted)
        {
            this.wanted = wanted;
        }

        static HeldScan start(ManagedChannel channel, ScanRequest request, int wanted)
        {
            HeldScan scan = new HeldScan(wanted);
            StorageServiceGrpc.newStub(channel).scan(request, scan);
            return scan;
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<ScanRequest> requestStream)
        {
            requests = requestStream;
            requestStream.disableAutoRequestWithInitial(1);
        }

        @Override
        public void onNext(ScanResponse response)
        {
            if (response.hasBatch()) {
                codec.decode(response.getBatch()).forEach(page -> rows.addAndGet(page.getPositionCount()));
            }
            if (messages.incrementAndGet() < wanted) {
                requests.request(1);
            }
        }

        @Override
        public void onError(Throwable failure)
        {
            ended.complete(failure);
        }

        @Override
        public void onCompleted()
        {
            ended.complete(null);
        }

        void cancel()
        {
            requests.cancel("the test is done with it", null);
        }

        long messages()
        {
            return messages.get();
        }

        long rows()
        {
            return rows.get();
        }

        CompletableFuture<Throwable> ended()
        {
            return ended;
        }
    }
}
