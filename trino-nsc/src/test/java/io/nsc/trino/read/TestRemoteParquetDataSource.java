package io.nsc.trino.read;

import com.google.common.io.MoreFiles;
import com.google.common.io.Resources;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.server.StorageServer;
import io.nsc.trino.client.StorageClients;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static java.util.Arrays.copyOfRange;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Replica failover of the byte-range reads, against one real storage node and addresses where
 * nothing listens: no metadata service, no Trino.
 */
@TestInstance(PER_CLASS)
final class TestRemoteParquetDataSource
{
    private static final String FILE_ID = "0123456789abcdef0123456789abcdef";
    private static final long TIMEOUT_MILLIS = 30_000;

    private Path dataDir;
    private StorageServer storage;
    private StorageClients clients;
    private byte[] file;

    @BeforeAll
    void setUp()
            throws Exception
    {
        dataDir = Files.createTempDirectory("nsc-remote-data-source");
        storage = StorageServer.start(Map.of(
                "storage.node-id", "node-1",
                "storage.data-dirs", dataDir.toString(),
                "storage.grpc-port", "0",
                "storage.http-port", "0",
                "storage.tls.insecure", "true"));
        file = Resources.toByteArray(Resources.getResource("parquet/all_types.parquet"));
        ManagedChannel channel = GrpcChannels.forAddress(liveAddress(), TransportSecurity.insecure());
        try {
            UploadResponse response = upload(channel, FILE_ID, file);
            assertThat(response.getSizeBytes()).isEqualTo(file.length);
        }
        finally {
            GrpcChannels.close(channel);
        }
        clients = new StorageClients(TransportSecurity.insecure());
    }

    @AfterAll
    void tearDown()
            throws IOException
    {
        if (clients != null) {
            clients.close();
        }
        if (storage != null) {
            storage.close();
        }
        if (dataDir != null) {
            MoreFiles.deleteRecursively(dataDir, ALLOW_INSECURE);
        }
    }

    @Test
    void testFailsOverToTheNextReplica()
            throws IOException
    {
        RemoteParquetDataSource source = dataSource(List.of(deadAddress(), liveAddress()));

        assertThat(source.readFully(0, file.length).getBytes()).isEqualTo(file);
        assertThat(source.getReplicaFailovers()).isEqualTo(1);
        assertThat(source.getReadRequests()).isEqualTo(1);
        assertThat(source.getReadBytes()).isEqualTo(file.length);

        // the replica that answered is asked first from now on: no second failover
        int offset = file.length - 100;
        assertThat(source.readFully(offset, 50).getBytes()).isEqualTo(copyOfRange(file, offset, offset + 50));
        assertThat(source.getReplicaFailovers()).isEqualTo(1);
        assertThat(source.getReadRequests()).isEqualTo(2);
        assertThat(source.getReadBytes()).isEqualTo(file.length + 50);
    }

    @Test
    void testFailsNamingTheFileAndEveryReplicaWhenAllAreDown()
            throws IOException
    {
        String first = deadAddress();
        String second = deadAddress();
        RemoteParquetDataSource source = dataSource(List.of(first, second));

        assertThatThrownBy(() -> source.readFully(4, 16))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageContaining("nsc file " + FILE_ID)
                .hasMessageContaining(first + ": ")
                .hasMessageContaining(second + ": ");
        assertThat(source.getReplicaFailovers()).isZero();
    }

    private RemoteParquetDataSource dataSource(List<String> replicas)
    {
        return new RemoteParquetDataSource(FILE_ID, file.length, replicas, clients, ParquetReaderOptions.defaultOptions(), TIMEOUT_MILLIS);
    }

    private String liveAddress()
    {
        return "127.0.0.1:" + storage.grpcPort();
    }

    /** A loopback port that was free a moment ago: connections to it are refused at once. */
    private static String deadAddress()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return "127.0.0.1:" + socket.getLocalPort();
        }
    }

    private static UploadResponse upload(ManagedChannel channel, String fileId, byte[] data)
            throws Exception
    {
        CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        StreamObserver<UploadRequest> requests = StorageServiceGrpc.newStub(channel).upload(new StreamObserver<>()
        {
            private UploadResponse response;

            @Override
            public void onNext(UploadResponse value)
            {
                response = value;
            }

            @Override
            public void onError(Throwable t)
            {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted()
            {
                result.complete(response);
            }
        });
        requests.onNext(UploadRequest.newBuilder()
                .setHeader(UploadHeader.newBuilder().setFileId(fileId).setSizeBytes(data.length).setDisplayName("all_types.parquet"))
                .build());
        // several messages, as a real upload sends them
        int chunk = 4096;
        for (int offset = 0; offset < data.length; offset += chunk) {
            requests.onNext(UploadRequest.newBuilder().setData(ByteString.copyFrom(data, offset, Math.min(chunk, data.length - offset))).build());
        }
        requests.onCompleted();
        return result.get(30, TimeUnit.SECONDS);
    }
}
