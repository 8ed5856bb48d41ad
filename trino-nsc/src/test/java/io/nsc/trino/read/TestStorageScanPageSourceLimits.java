package io.nsc.trino.read;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.client.StorageClients;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

import static io.nsc.trino.NscErrorCode.NSC_BAD_STORAGE_RESPONSE;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_SCAN_MEMORY_LIMIT;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A misbehaving storage node (a fake one here) must not take a Trino worker's heap: batches are
 * decoded within limits, and what is refused becomes a TrinoException with an nsc error code.
 */
@TestInstance(PER_CLASS)
final class TestStorageScanPageSourceLimits
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
        PageCodec.BatchBuilder batch = new PageCodec(PageCompression.PAGE_COMPRESSION_LZ4).newBatch();
        BlockBuilder values = BIGINT.createBlockBuilder(null, 3);
        for (long value = 0; value < 3; value++) {
            BIGINT.writeLong(values, value);
        }
        batch.add(new Page(values.build()));
        PageBatch message = batch.build();
        respond(message);
        StorageScanPageSource source = source();
        SourcePage page = source.getNextSourcePage();
        assertThat(page.getPositionCount()).isEqualTo(3);
        assertThat(source.getNextSourcePage()).isNull();
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
        assertThatThrownBy(() -> source().getNextSourcePage())
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
        assertThatThrownBy(() -> source(PageCompression.PAGE_COMPRESSION_NONE).getNextSourcePage())
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_BAD_STORAGE_RESPONSE.toErrorCode()))
                .hasMessageContaining("exceeds its memory limit");
    }

    @Test
    void testScanOverTheStorageMemoryBudgetDoesNotFailOver()
    {
        behaviour = (_, observer) -> observer.onError(Status.RESOURCE_EXHAUSTED.withDescription("Scan of file f exceeds its memory limit of 256MB").asRuntimeException());
        int before = calls.get();
        StorageScanPageSource source = new StorageScanPageSource(request(PageCompression.PAGE_COMPRESSION_LZ4), List.of(address, address), clients, 30_000);
        assertThatThrownBy(source::getNextSourcePage)
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
