package io.nsc.storage.security;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.FileUploader;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.SignedMessages;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.storage.server.StorageServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import static io.grpc.Status.Code.PERMISSION_DENIED;
import static io.grpc.Status.Code.UNAUTHENTICATED;
import static io.nsc.storage.server.StorageTesting.await;
import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * A storage node with mutual TLS: uploads need the metadata service's grant for that file and
 * node, it attests what it stored, and only clients read.
 */
@TestInstance(PER_CLASS)
final class TestStorageSecurity
{
    private static final String NODE_ID = "node-s";
    // what the metadata service would derive for this node; the stand-in below hands it out
    private static final GrantKey NODE_KEY = SignedMessages.nodeKey(new byte[32], NODE_ID);
    private static final GrantKey OTHER_KEY = SignedMessages.nodeKey(new byte[32], "node-t");

    @TempDir
    static Path directory;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private ClusterCertificates certificates;
    private StorageServer node;
    private Path file;

    @BeforeAll
    void start()
            throws Exception
    {
        certificates = ClusterCertificates.openOrCreate(directory.resolve("tls"));
        ServiceEndpoints metadata = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(new KeyIssuingMetadata()), Map::of,
                certificates.issue(ComponentRole.METADATA, "metadata", List.of()).toTransportSecurity(),
                AccessPolicy.builder()
                        .allow(MetadataServiceGrpc.getRegisterNodeMethod(), ComponentRole.STORAGE)
                        .allow(MetadataServiceGrpc.getHeartbeatMethod(), ComponentRole.STORAGE)
                        .build());
        resources.add(metadata);
        node = StorageServer.start(ImmutableMap.<String, String>builder()
                .put("storage.node-id", NODE_ID)
                .put("storage.data-dirs", directory.resolve("disk").toString())
                .put("storage.grpc-port", "0")
                .put("storage.http-port", "0")
                .put("storage.metadata-address", "127.0.0.1:" + metadata.grpcPort())
                .putAll(certificates.issue(ComponentRole.STORAGE, NODE_ID, List.of()).toProperties("storage"))
                .buildOrThrow());
        resources.add(node);
        file = Files.write(directory.resolve("all_types.parquet"), fixture("all_types.parquet"));
        ManagedChannel client = channel(ComponentRole.CLIENT, "trino");
        // the node refuses granted uploads until the metadata service handed it its key
        awaitCondition("the node received its key", () -> {
            String fileId = randomFileId();
            try {
                upload(client, fileId, Optional.of(grant(NODE_KEY, fileId, NODE_ID, Duration.ofMinutes(1))));
                return true;
            }
            catch (Exception e) {
                return false;
            }
        });
    }

    @AfterAll
    void stop()
            throws Exception
    {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void uploadsNeedAValidGrant()
            throws Exception
    {
        ManagedChannel client = channel(ComponentRole.CLIENT, "loader");
        String fileId = randomFileId();
        assertDenied(() -> upload(client, fileId, Optional.empty()), "no grant");
        assertDenied(() -> upload(client, fileId, Optional.of(grant(NODE_KEY, fileId, NODE_ID, Duration.ofMinutes(-1)))), "the grant expired");
        assertDenied(() -> upload(client, fileId, Optional.of(grant(NODE_KEY, randomFileId(), NODE_ID, Duration.ofMinutes(1)))), "the grant is for file");
        assertDenied(() -> upload(client, fileId, Optional.of(grant(OTHER_KEY, fileId, "node-t", Duration.ofMinutes(1)))), "on node node-t, not for this file on node node-s");
        // right fields, wrong key: another node's key cannot grant uploads here
        assertDenied(() -> upload(client, fileId, Optional.of(grant(OTHER_KEY, fileId, NODE_ID, Duration.ofMinutes(1)))), "the grant's signature is not the metadata service's");
        UploadGrant valid = grant(NODE_KEY, fileId, NODE_ID, Duration.ofMinutes(1));
        assertDenied(() -> upload(client, fileId, Optional.of(valid.toBuilder().setExpiresAtMillis(valid.getExpiresAtMillis() + 3_600_000).build())), "signature");

        // a granted upload is stored and attested with the node's own key
        UploadResponse response = upload(client, fileId, Optional.of(valid));
        FileAttestation attestation = response.getAttestation();
        assertThat(SignedMessages.isValidSignature(NODE_KEY, attestation)).isTrue();
        assertThat(SignedMessages.isValidSignature(OTHER_KEY, attestation)).isFalse();
        assertThat(attestation.getFileId()).isEqualTo(fileId);
        assertThat(attestation.getNodeId()).isEqualTo(NODE_ID);
        assertThat(attestation.getSizeBytes()).isEqualTo(Files.size(file));
        assertThat(attestation.getRowCount()).isEqualTo(response.getRowCount());
        assertThat(attestation.getCrc32C()).isEqualTo(response.getCrc32C());
        assertThat(attestation.getCompactStatsSha256()).isEqualTo(ByteString.copyFrom(SignedMessages.sha256(response.getCompactStats().toByteArray())));
    }

    @Test
    void onlyClientsReadAndWrite()
    {
        String fileId = randomFileId();
        ManagedChannel storage = channel(ComponentRole.STORAGE, "node-t");
        assertDenied(() -> upload(storage, fileId, Optional.of(grant(NODE_KEY, fileId, NODE_ID, Duration.ofMinutes(1)))), "storage:node-t may not call nsc.v1.StorageService/Upload (allowed: client)");
        // storage nodes read from each other to copy replicas: past the policy, to the file lookup
        assertThatThrownBy(() -> StorageServiceGrpc.newBlockingStub(storage).readRanges(ReadRangesRequest.newBuilder()
                .setFileId(fileId)
                .addRanges(ByteRange.newBuilder().setOffset(0).setLength(4))
                .build()).hasNext())
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
        // the metadata service may look at a node's counters, but not read data
        ManagedChannel metadata = channel(ComponentRole.METADATA, "metadata");
        assertThat(StorageServiceGrpc.newBlockingStub(metadata).getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getNodeId()).isEqualTo(NODE_ID);
        assertDenied(() -> StorageServiceGrpc.newBlockingStub(metadata).readRanges(ReadRangesRequest.newBuilder().setFileId(fileId).build()).hasNext(), "metadata:metadata may not call");
    }

    @Test
    void everyMethodNeedsACertificate()
            throws Exception
    {
        ManagedChannel anonymous = NettyChannelBuilder.forAddress("127.0.0.1", node.grpcPort())
                .negotiationType(NegotiationType.TLS)
                .sslContext(GrpcSslContexts.forClient().trustManager(directory.resolve("tls/ca.pem").toFile()).build())
                .build();
        resources.add(() -> GrpcChannels.close(anonymous));
        for (MethodDescriptor<?, ?> method : StorageServiceGrpc.getServiceDescriptor().getMethods()) {
            assertThat(callWithEmptyRequest(anonymous, method)).as(method.getFullMethodName()).isEqualTo(UNAUTHENTICATED);
        }
    }

    /** The status one call with an empty request ends in, whatever the method's kind. */
    @SuppressWarnings("unchecked")
    private static <Q, R> Status.Code callWithEmptyRequest(ManagedChannel channel, MethodDescriptor<Q, R> method)
    {
        Q request = (Q) ((MethodDescriptor.PrototypeMarshaller<Q>) method.getRequestMarshaller()).getMessagePrototype();
        CompletableFuture<Status.Code> result = new CompletableFuture<>();
        StreamObserver<R> responses = new StreamObserver<>()
        {
            @Override
            public void onNext(R value) {}

            @Override
            public void onError(Throwable t)
            {
                result.complete(Status.fromThrowable(t).getCode());
            }

            @Override
            public void onCompleted()
            {
                result.complete(Status.Code.OK);
            }
        };
        ClientCall<Q, R> call = channel.newCall(method, CallOptions.DEFAULT);
        switch (method.getType()) {
            case UNARY -> ClientCalls.asyncUnaryCall(call, request, responses);
            case SERVER_STREAMING -> ClientCalls.asyncServerStreamingCall(call, request, responses);
            case CLIENT_STREAMING, BIDI_STREAMING -> {
                StreamObserver<Q> requests = method.getType() == MethodDescriptor.MethodType.CLIENT_STREAMING
                        ? ClientCalls.asyncClientStreamingCall(call, responses)
                        : ClientCalls.asyncBidiStreamingCall(call, responses);
                requests.onNext(request);
                requests.onCompleted();
            }
            default -> throw new AssertionError(method.getType());
        }
        return await(result);
    }

    private static void assertDenied(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String description)
    {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(PERMISSION_DENIED);
                    assertThat(e.getStatus().getDescription()).contains(description);
                });
    }

    private UploadResponse upload(ManagedChannel channel, String fileId, Optional<UploadGrant> grant)
            throws Exception
    {
        return FileUploader.upload(channel, fileId, grant, file, Files.size(file), Duration.ofSeconds(30)).response();
    }

    private static UploadGrant grant(GrantKey key, String fileId, String nodeId, Duration lifetime)
    {
        return SignedMessages.signGrant(key, fileId, nodeId, System.currentTimeMillis() + lifetime.toMillis());
    }

    private ManagedChannel channel(ComponentRole role, String name)
    {
        ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + node.grpcPort(), certificates.issue(role, name, List.of()).toTransportSecurity());
        resources.add(() -> GrpcChannels.close(channel));
        return channel;
    }

    /** Registers the node and hands it its key, as the metadata service does. */
    private static final class KeyIssuingMetadata
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        @Override
        public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> responseObserver)
        {
            responseObserver.onNext(RegisterNodeResponse.newBuilder().setHeartbeatIntervalMillis(200).setClusterId("test-cluster").setGrantKey(NODE_KEY).build());
            responseObserver.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> responseObserver)
        {
            responseObserver.onNext(HeartbeatResponse.newBuilder().setKnown(true).setClusterId("test-cluster").setGrantKey(NODE_KEY).build());
            responseObserver.onCompleted();
        }
    }
}
