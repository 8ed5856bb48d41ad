package io.nsc.storage.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.GetFileInfoResponse;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.storage.read.RangeReader;
import io.nsc.storage.scan.NearStorageScanner;
import io.nsc.storage.security.GrantKeyring;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.nsc.storage.store.UploadedFile;

import java.util.Optional;

import static com.google.protobuf.UnsafeByteOperations.unsafeWrap;
import static io.nsc.protocol.security.ComponentRole.CLIENT;
import static io.nsc.protocol.security.ComponentRole.METADATA;
import static io.nsc.protocol.security.ComponentRole.STORAGE;
import static io.nsc.storage.server.GrpcErrors.toStatusException;
import static java.util.Objects.requireNonNull;

public final class StorageGrpcService
        extends StorageServiceGrpc.StorageServiceImplBase
{
    private static final Logger log = Logger.get(StorageGrpcService.class);

    /**
     * Readers and writers are clients; the metadata service may look at files and load; storage
     * nodes read files from each other to copy replicas.
     */
    public static final AccessPolicy ACCESS_POLICY = AccessPolicy.builder()
            .allow(StorageServiceGrpc.getUploadMethod(), CLIENT)
            .allow(StorageServiceGrpc.getReadRangesMethod(), CLIENT, STORAGE)
            .allow(StorageServiceGrpc.getScanMethod(), CLIENT)
            .allow(StorageServiceGrpc.getGetFileInfoMethod(), CLIENT, METADATA)
            .allow(StorageServiceGrpc.getGetNodeStatsMethod(), CLIENT, METADATA)
            .requireComplete(StorageServiceGrpc.getServiceDescriptor())
            .build();

    private final ParquetFileStore store;
    private final RangeReader reader;
    private final NearStorageScanner scanner;
    private final NodeStatistics statistics;
    private final GrantKeyring keyring;

    @Inject
    public StorageGrpcService(ParquetFileStore store, RangeReader reader, NearStorageScanner scanner, NodeStatistics statistics, GrantKeyring keyring)
    {
        this.keyring = requireNonNull(keyring, "keyring is null");
        this.store = requireNonNull(store, "store is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
    }

    @Override
    public StreamObserver<UploadRequest> upload(StreamObserver<UploadResponse> responseObserver)
    {
        return new UploadStream(responseObserver);
    }

    @Override
    public void readRanges(ReadRangesRequest request, StreamObserver<ReadRangesResponse> responseObserver)
    {
        try {
            StoredFile file = store.require(FileId.fromClient(request.getFileId()));
            reader.read(file, request.getRangesList(), (ServerCallStreamObserver<ReadRangesResponse>) responseObserver);
        }
        catch (RuntimeException e) {
            responseObserver.onError(toStatusException(e));
        }
    }

    @Override
    public void scan(ScanRequest request, StreamObserver<ScanResponse> responseObserver)
    {
        try {
            StoredFile file = store.require(FileId.fromClient(request.getFileId()));
            scanner.scan(file, request, (ServerCallStreamObserver<ScanResponse>) responseObserver);
        }
        catch (RuntimeException e) {
            responseObserver.onError(toStatusException(e));
        }
    }

    @Override
    public void getFileInfo(GetFileInfoRequest request, StreamObserver<GetFileInfoResponse> responseObserver)
    {
        try {
            StoredFile file = store.require(FileId.fromClient(request.getFileId()));
            CompactFileStats stats = store.stats(file);
            responseObserver.onNext(GetFileInfoResponse.newBuilder()
                    .setFileId(file.id().value())
                    .setSizeBytes(file.sizeBytes())
                    .setRowCount(stats.rowCount())
                    // the encoded stats are never modified, so the message may share them
                    .setCompactStats(unsafeWrap(stats.encoded()))
                    .setCrc32C(file.crc32c())
                    .build());
            responseObserver.onCompleted();
        }
        catch (RuntimeException e) {
            responseObserver.onError(toStatusException(e));
        }
    }

    @Override
    public void getNodeStats(GetNodeStatsRequest request, StreamObserver<GetNodeStatsResponse> responseObserver)
    {
        responseObserver.onNext(statistics.snapshot());
        responseObserver.onCompleted();
    }

    private UploadResponse toResponse(UploadedFile uploaded)
    {
        StoredFile file = uploaded.file();
        UploadResponse.Builder response = UploadResponse.newBuilder()
                .setFileId(file.id().value())
                .setSizeBytes(file.sizeBytes())
                .setRowCount(uploaded.stats().rowCount())
                .setCompactStats(unsafeWrap(uploaded.stats().encoded()))
                .setCrc32C(file.crc32c());
        uploaded.columns().forEach(column -> response.addColumns(Column.newBuilder()
                .setName(column.name())
                .setType(column.type())));
        keyring.attest(file, uploaded.stats()).ifPresent(response::setAttestation);
        return response.build();
    }

    /**
     * The server side of one upload. gRPC delivers the client's messages one at a time and asks
     * for the next only after {@link #onNext} returns, so a fast client cannot make the node
     * buffer more than a message.
     */
    private final class UploadStream
            implements StreamObserver<UploadRequest>
    {
        private final StreamObserver<UploadResponse> responseObserver;
        private FileUpload upload;
        private boolean failed;

        private UploadStream(StreamObserver<UploadResponse> responseObserver)
        {
            this.responseObserver = requireNonNull(responseObserver, "responseObserver is null");
        }

        @Override
        public void onNext(UploadRequest request)
        {
            if (failed) {
                return;
            }
            try {
                switch (request.getPartCase()) {
                    case HEADER -> begin(request.getHeader());
                    case DATA -> {
                        if (upload == null) {
                            throw invalid("The first upload message must be the header");
                        }
                        upload.write(request.getData());
                    }
                    case PART_NOT_SET -> throw invalid("Upload message carries neither header nor data");
                }
            }
            catch (Exception e) {
                fail(e);
            }
        }

        private void begin(UploadHeader header)
                throws Exception
        {
            if (upload != null) {
                throw invalid("Upload of %s: a second header".formatted(upload.id()));
            }
            FileId id = FileId.fromClient(header.getFileId());
            keyring.checkGrant(id, header.hasGrant() ? Optional.of(header.getGrant()) : Optional.empty());
            upload = store.beginUpload(id, header.getSizeBytes(), header.getDisplayName());
        }

        @Override
        public void onError(Throwable throwable)
        {
            // the client cancelled or the connection broke: nothing to answer, just clean up
            if (upload != null) {
                log.debug("Upload of %s abandoned: %s", upload.id(), throwable.getMessage());
                upload.close();
            }
        }

        @Override
        public void onCompleted()
        {
            if (failed) {
                return;
            }
            try {
                if (upload == null) {
                    throw invalid("Upload without a header");
                }
                UploadResponse response = toResponse(upload.finish());
                responseObserver.onNext(response);
                responseObserver.onCompleted();
            }
            catch (Exception e) {
                fail(e);
            }
        }

        private void fail(Exception e)
        {
            failed = true;
            if (upload != null) {
                upload.close();
            }
            responseObserver.onError(toStatusException(e));
        }

        private static RuntimeException invalid(String message)
        {
            return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
        }
    }
}
