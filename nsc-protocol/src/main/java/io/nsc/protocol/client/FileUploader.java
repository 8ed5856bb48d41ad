package io.nsc.protocol.client;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.zip.CRC32C;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Streams one local file to one storage node with {@code StorageService.Upload}: the header, then
 * the bytes in 1 MiB messages. It sends only while the call is ready (gRPC flow control), so at
 * most a message or two per upload is ever held in memory, whatever the file's size.
 *
 * <p>Shared by the loader ({@code ./nsc load}) and the connector's page sinks: both stream files
 * they hold locally to the storage nodes the metadata service chose.
 */
public final class FileUploader
{
    public static final int CHUNK_BYTES = 1 << 20;

    private FileUploader() {}

    /**
     * @param crc32c the CRC32C of the bytes sent, to check the node's answer against
     */
    public record Uploaded(UploadResponse response, int crc32c)
    {
        public Uploaded
        {
            requireNonNull(response, "response is null");
        }
    }

    /** The metadata service's grant for the allocated file's replica on {@code nodeId}, if it issued one. */
    public static Optional<UploadGrant> grantFor(FileAllocation allocation, String nodeId)
    {
        return allocation.getGrantsList().stream()
                .filter(grant -> grant.getNodeId().equals(nodeId))
                .findFirst();
    }

    /**
     * @param grant the metadata service's grant for this file on this node ({@link #grantFor});
     *        a node with TLS refuses an upload without one
     */
    public static Uploaded upload(Channel channel, String fileId, Optional<UploadGrant> grant, Path file, long sizeBytes, Duration timeout)
            throws IOException, StatusRuntimeException, InterruptedException
    {
        requireNonNull(grant, "grant is null");
        requireNonNull(channel, "channel is null");
        requireNonNull(fileId, "fileId is null");
        requireNonNull(file, "file is null");

        UploadCall call = new UploadCall();
        StorageServiceGrpc.newStub(channel)
                .withDeadlineAfter(timeout.toMillis(), MILLISECONDS)
                .upload(call);
        ClientCallStreamObserver<UploadRequest> requests = call.requests();

        CRC32C crc = new CRC32C();
        long sent = 0;
        try (InputStream input = Files.newInputStream(file)) {
            if (!call.awaitReady()) {
                return call.awaitResponse(crc);
            }
            UploadHeader.Builder header = UploadHeader.newBuilder()
                    .setFileId(fileId)
                    .setSizeBytes(sizeBytes)
                    .setDisplayName(file.getFileName().toString());
            grant.ifPresent(header::setGrant);
            requests.onNext(UploadRequest.newBuilder().setHeader(header).build());
            byte[] buffer = new byte[CHUNK_BYTES];
            while (true) {
                int length = input.readNBytes(buffer, 0, buffer.length);
                if (length == 0) {
                    break;
                }
                crc.update(buffer, 0, length);
                sent += length;
                if (!call.awaitReady()) {
                    // the node answered early (an error): nothing more to send
                    return call.awaitResponse(crc);
                }
                requests.onNext(UploadRequest.newBuilder().setData(ByteString.copyFrom(buffer, 0, length)).build());
            }
        }
        catch (IOException | RuntimeException | InterruptedException e) {
            requests.cancel("upload aborted by the client", e);
            throw e;
        }
        if (sent != sizeBytes) {
            IOException changed = new IOException("%s changed while uploading: read %s bytes, expected %s".formatted(file, sent, sizeBytes));
            requests.cancel("file changed during upload", changed);
            throw changed;
        }
        requests.onCompleted();
        return call.awaitResponse(crc);
    }

    /** The response side of one Upload call, plus the readiness signal the sender waits on. */
    private static final class UploadCall
            implements ClientResponseObserver<UploadRequest, UploadResponse>
    {
        private final CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        private final Object readiness = new Object();
        private volatile ClientCallStreamObserver<UploadRequest> requests;
        private volatile UploadResponse response;

        @Override
        public void beforeStart(ClientCallStreamObserver<UploadRequest> requests)
        {
            this.requests = requests;
            requests.setOnReadyHandler(this::wake);
        }

        ClientCallStreamObserver<UploadRequest> requests()
        {
            return requireNonNull(requests, "call not started");
        }

        /** Waits until the call can take another message; false when it has already ended. */
        boolean awaitReady()
                throws InterruptedException
        {
            synchronized (readiness) {
                while (!result.isDone() && !requests.isReady()) {
                    // the timeout only guards against a missed wake-up; normally onReady arrives first
                    readiness.wait(100);
                }
            }
            return !result.isDone();
        }

        Uploaded awaitResponse(CRC32C crc)
                throws InterruptedException
        {
            try {
                return new Uploaded(result.get(), (int) crc.getValue());
            }
            catch (ExecutionException e) {
                if (e.getCause() instanceof StatusRuntimeException status) {
                    throw status;
                }
                throw new RuntimeException(e.getCause());
            }
        }

        @Override
        public void onNext(UploadResponse value)
        {
            response = value;
        }

        @Override
        public void onError(Throwable throwable)
        {
            result.completeExceptionally(throwable);
            wake();
        }

        @Override
        public void onCompleted()
        {
            if (response == null) {
                result.completeExceptionally(new IllegalStateException("storage node ended the upload without an answer"));
            }
            else {
                result.complete(response);
            }
            wake();
        }

        private void wake()
        {
            synchronized (readiness) {
                readiness.notifyAll();
            }
        }
    }
}
