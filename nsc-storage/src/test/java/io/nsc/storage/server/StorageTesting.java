package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import com.google.common.io.Resources;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.TransportSecurity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.util.Objects.requireNonNull;

/** Helpers for tests that run real storage nodes on ephemeral ports. */
public final class StorageTesting
{
    private static final Duration AWAIT_TIMEOUT = Duration.ofSeconds(30);

    private StorageTesting() {}

    public static Map<String, String> properties(String nodeId, List<Path> dataDirs, Map<String, String> extra)
    {
        return ImmutableMap.<String, String>builder()
                .put("storage.node-id", nodeId)
                .put("storage.data-dirs", String.join(",", dataDirs.stream().map(Path::toString).toList()))
                .put("storage.grpc-port", "0")
                .put("storage.http-port", "0")
                // the storage behaviour: TestStorageSecurity runs nodes with TLS, grants and attestations
                .put("storage.tls.insecure", "true")
                // counters stay still unless a test scrubs on purpose
                .put("storage.scrub-rate", "0B")
                .putAll(extra)
                // extra properties override the defaults above
                .buildKeepingLast();
    }

    public static ManagedChannel channel(StorageServer server)
    {
        return GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), TransportSecurity.insecure());
    }

    public static byte[] fixture(String name)
    {
        try {
            return Resources.toByteArray(Resources.getResource("parquet/" + name));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String randomFileId()
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return "%016x%016x".formatted(random.nextLong(), random.nextLong());
    }

    public static int crc32c(byte[] data)
    {
        CRC32C crc = new CRC32C();
        crc.update(data);
        return (int) crc.getValue();
    }

    /** Uploads in messages of {@code chunkSize} bytes, announcing {@code declaredSize}. */
    public static UploadResponse upload(ManagedChannel channel, String fileId, String displayName, byte[] data, long declaredSize, int chunkSize)
    {
        CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        StreamObserver<UploadRequest> requests = StorageServiceGrpc.newStub(channel).upload(completing(result));
        requests.onNext(UploadRequest.newBuilder()
                .setHeader(UploadHeader.newBuilder().setFileId(fileId).setSizeBytes(declaredSize).setDisplayName(displayName))
                .build());
        for (int offset = 0; offset < data.length; offset += chunkSize) {
            requests.onNext(UploadRequest.newBuilder()
                    .setData(ByteString.copyFrom(data, offset, Math.min(chunkSize, data.length - offset)))
                    .build());
        }
        requests.onCompleted();
        return await(result);
    }

    public static UploadResponse upload(ManagedChannel channel, String fileId, byte[] data)
    {
        return upload(channel, fileId, "test.parquet", data, data.length, 4096);
    }

    public static <T> T await(CompletableFuture<T> future)
    {
        try {
            return future.get(AWAIT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof StatusRuntimeException statusException) {
                // rethrown here so that the test's stack trace shows the calling line
                throw new StatusRuntimeException(statusException.getStatus(), statusException.getTrailers());
            }
            throw new RuntimeException(e.getCause());
        }
        catch (TimeoutException e) {
            throw new RuntimeException("No answer in " + AWAIT_TIMEOUT, e);
        }
    }

    /** Polls until the condition holds; fails after a generous deadline (no test depends on speed). */
    /** The node's counters from its /v1/metrics endpoint (plain HTTP, as the tests start it). */
    public static Map<String, Long> metrics(StorageServer server)
    {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:%s/v1/metrics".formatted(server.httpPort()))).build(),
                    HttpResponse.BodyHandlers.ofString());
            checkState(response.statusCode() == 200, "/v1/metrics answered %s: %s", response.statusCode(), response.body());
            return response.body().lines()
                    .map(line -> line.split(" "))
                    .collect(toImmutableMap(parts -> parts[0], parts -> Long.parseLong(parts[1])));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    public static void awaitCondition(String description, BooleanSupplier condition)
    {
        long deadline = System.nanoTime() + AWAIT_TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting until " + description);
            }
            try {
                Thread.sleep(10);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted waiting until " + description, e);
            }
        }
    }

    /** Every regular file under a directory, recursively. */
    public static List<Path> filesUnder(Path directory)
    {
        if (!Files.exists(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).collect(toImmutableList());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A response observer that completes the future with the single response or the error. */
    public static <T> StreamObserver<T> completing(CompletableFuture<T> result)
    {
        requireNonNull(result, "result is null");
        return new StreamObserver<>()
        {
            @Override
            public void onNext(T value)
            {
                result.complete(value);
            }

            @Override
            public void onError(Throwable t)
            {
                result.completeExceptionally(t);
            }

            @Override
            public void onCompleted()
            {
                // a no-op after onNext
                result.completeExceptionally(new IllegalStateException("completed without a response"));
            }
        };
    }
}
