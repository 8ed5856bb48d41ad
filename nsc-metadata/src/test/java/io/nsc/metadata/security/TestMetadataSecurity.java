package io.nsc.metadata.security;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.SignedMessages;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.protocol.security.TransportSecurity;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import javax.net.ssl.SSLHandshakeException;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static io.grpc.Status.Code.PERMISSION_DENIED;
import static io.grpc.Status.Code.UNAUTHENTICATED;
import static io.grpc.Status.Code.UNAVAILABLE;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The metadata service with mutual TLS: who may call what, which node a storage certificate may
 * speak for, grants, attested statistics, and the audit log.
 */
@TestInstance(PER_CLASS)
final class TestMetadataSecurity
{
    private static final List<Column> COLUMNS = List.of(Column.newBuilder().setName("x").setType("bigint").build());

    @TempDir
    static Path directory;

    private final List<AutoCloseable> resources = new ArrayList<>();
    private ClusterCertificates certificates;
    private MetadataServer server;
    private MetadataServiceBlockingStub client;
    private MetadataServiceBlockingStub nodeA;
    private MetadataServiceBlockingStub nodeB;

    @BeforeAll
    void startServer()
    {
        certificates = ClusterCertificates.openOrCreate(directory.resolve("tls"));
        server = MetadataServer.start(ImmutableMap.<String, String>builder()
                .put("metadata.data-dir", directory.resolve("metadata").toString())
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "0")
                .putAll(certificates.issue(ComponentRole.METADATA, "metadata", List.of()).toProperties("metadata"))
                .buildOrThrow());
        resources.add(server);
        client = stub(identity(ComponentRole.CLIENT, "trino"));
        nodeA = stub(identity(ComponentRole.STORAGE, "node-a"));
        nodeB = stub(identity(ComponentRole.STORAGE, "node-b"));
    }

    @AfterAll
    void tearDown()
            throws Exception
    {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void callerWithoutCertificateIsUnauthenticated()
            throws Exception
    {
        // TLS that trusts the cluster CA, but presents no certificate of its own
        ManagedChannel anonymous = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
                .negotiationType(NegotiationType.TLS)
                .sslContext(GrpcSslContexts.forClient().trustManager(directory.resolve("tls/ca.pem").toFile()).build())
                .build();
        resources.add(() -> GrpcChannels.close(anonymous));
        // every method of the service, whatever it is, before it reads the request
        for (MethodDescriptor<?, ?> method : MetadataServiceGrpc.getServiceDescriptor().getMethods()) {
            assertThatThrownBy(() -> callWithEmptyRequest(anonymous, method))
                    .as(method.getFullMethodName())
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(UNAUTHENTICATED));
        }
        MetadataServiceBlockingStub stub = MetadataServiceGrpc.newBlockingStub(anonymous);
        assertStatusContains(() -> stub.listSchemas(ListSchemasRequest.getDefaultInstance()), UNAUTHENTICATED, "needs a client certificate issued by the cluster CA");
        assertStatusContains(() -> stub.dropSchema(io.nsc.protocol.proto.DropSchemaRequest.newBuilder().setSchemaName("tpch").build()), UNAUTHENTICATED, "client certificate");
        assertStatusContains(() -> stub.registerNode(registration("node-a")), UNAUTHENTICATED, "client certificate");
    }

    @Test
    void plaintextAndForeignCertificatesNeverReachTheService()
    {
        MetadataServiceBlockingStub plaintext = MetadataServiceGrpc.newBlockingStub(channel(TransportSecurity.insecure()));
        assertThatThrownBy(() -> plaintext.listSchemas(ListSchemasRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(UNAVAILABLE));

        // a certificate with the right role and name from another CA: the handshake fails
        ClusterCertificates other = ClusterCertificates.openOrCreate(directory.resolve("other-ca"));
        MetadataServiceBlockingStub forged = MetadataServiceGrpc.newBlockingStub(channel(other.issue(ComponentRole.CLIENT, "trino", List.of()).toTransportSecurity()));
        assertThatThrownBy(() -> forged.listSchemas(ListSchemasRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(UNAVAILABLE));
    }

    @Test
    void aTlsServersCertificateIsNobodyToTheService()
            throws Exception
    {
        // the catalog's PostgreSQL holds a certificate of the cluster CA (nsc certs server:...): it
        // serves only, so its host can neither read nor change the catalog with it
        TlsFiles files = certificates.issueServer("postgresql", List.of("pg.example"));
        assertThatThrownBy(files::toTransportSecurity).hasMessageContaining("names no nsc role");
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort())
                .negotiationType(NegotiationType.TLS)
                .sslContext(GrpcSslContexts.forClient()
                        .trustManager(directory.resolve("tls/ca.pem").toFile())
                        .keyManager(files.certificate().toFile(), files.key().toFile())
                        .build())
                .build();
        resources.add(() -> GrpcChannels.close(channel));
        MetadataServiceBlockingStub databaseHost = MetadataServiceGrpc.newBlockingStub(channel);
        // refused in the handshake (no client authentication in its key usage) or, past it, as nobody
        assertThatThrownBy(() -> databaseHost.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("from_the_database_host").build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isIn(UNAVAILABLE, UNAUTHENTICATED));
        assertThatThrownBy(() -> databaseHost.listSchemas(ListSchemasRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isIn(UNAVAILABLE, UNAUTHENTICATED));
        assertThat(client.listSchemas(ListSchemasRequest.getDefaultInstance()).toString()).doesNotContain("from_the_database_host");
    }

    @Test
    void rolesComeFromTheCertificate()
    {
        // a storage node may not change the catalog, nor read it
        assertStatusContains(() -> nodeA.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("evil").build()), PERMISSION_DENIED, "storage:node-a may not call nsc.v1.MetadataService/CreateSchema (allowed: client)");
        assertStatusContains(() -> nodeA.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").build()), PERMISSION_DENIED, "storage:node-a may not call nsc.v1.MetadataService/CommitFiles");
        assertStatusContains(() -> nodeA.listSchemas(ListSchemasRequest.getDefaultInstance()), PERMISSION_DENIED, "may not call");
        // a client may not pose as a storage node
        assertStatusContains(() -> client.registerNode(registration("node-a")), PERMISSION_DENIED, "client:trino may not call nsc.v1.MetadataService/RegisterNode (allowed: storage)");
        assertStatusContains(() -> client.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-a").build()), PERMISSION_DENIED, "may not call");
        // a node speaks only for itself: no redirecting another node's reads to oneself
        assertStatusContains(() -> nodeB.registerNode(registration("node-a")), PERMISSION_DENIED, "storage:node-b may not act as storage node 'node-a'");
        assertStatusContains(() -> nodeB.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-a").build()), PERMISSION_DENIED, "may not act as storage node 'node-a'");
        assertStatusContains(() -> nodeB.findOrphans(FindOrphansRequest.newBuilder().setNodeId("node-a").build()), PERMISSION_DENIED, "may not act as storage node 'node-a'");
    }

    @Test
    void commitsOnlyStatisticsTheStorageNodesAttested()
            throws IOException
    {
        GrantKey keyA = nodeA.registerNode(registration("node-a")).getGrantKey();
        GrantKey keyB = nodeB.registerNode(registration("node-b")).getGrantKey();
        assertThat(keyA.getKeyId()).isEqualTo(keyB.getKeyId());
        assertThat(keyA.getSecret()).isNotEqualTo(keyB.getSecret());
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("secure").setIfNotExists(true).build());

        FileAllocation allocation = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(2).build()).getFiles(0);
        // one grant per replica, for that node, signed with that node's key
        assertThat(allocation.getGrantsList()).extracting(UploadGrant::getNodeId)
                .containsExactlyElementsOf(allocation.getReplicasList().stream().map(StorageNode::getNodeId).toList());
        for (UploadGrant grant : allocation.getGrantsList()) {
            assertThat(grant.getFileId()).isEqualTo(allocation.getFileId());
            GrantKey own = grant.getNodeId().equals("node-a") ? keyA : keyB;
            GrantKey other = grant.getNodeId().equals("node-a") ? keyB : keyA;
            assertThat(SignedMessages.isValidSignature(own, grant)).isTrue();
            assertThat(SignedMessages.isValidSignature(other, grant)).isFalse();
        }

        ByteString stats = compactStats(100);
        DataFile file = DataFile.newBuilder()
                .setFileId(allocation.getFileId())
                .setSizeBytes(4096)
                .setRowCount(100)
                .setCrc32C(0x1234)
                .setCompactStats(stats)
                .addReplicaNodeIds("node-a")
                .addReplicaNodeIds("node-b")
                .build();
        FileAttestation byA = attest(keyA, "node-a", file);
        FileAttestation byB = attest(keyB, "node-b", file);

        assertStatusContains(() -> commit("unattested", file), PERMISSION_DENIED, "storage node node-a did not attest it");
        assertStatusContains(() -> commit("half", file.toBuilder().addAttestations(byA).build()), PERMISSION_DENIED, "storage node node-b did not attest it");
        // the writer invents min/max: the stats no longer hash to what the nodes attested
        DataFile forgedStats = file.toBuilder().setCompactStats(compactStats(101)).addAttestations(byA).addAttestations(byB).build();
        assertStatusContains(() -> commit("forged", forgedStats), PERMISSION_DENIED, "differ from what storage node node-a stored and attested");
        assertStatusContains(() -> commit("forged", file.toBuilder().setRowCount(1_000_000).addAttestations(byA).addAttestations(byB).build()), PERMISSION_DENIED, "differ from what storage node");
        // node-a signing on behalf of node-b is not node-b's attestation
        FileAttestation posing = attest(keyA, "node-b", file);
        assertStatusContains(() -> commit("posing", file.toBuilder().addAttestations(byA).addAttestations(posing).build()), PERMISSION_DENIED, "does not carry that node's signature");

        assertThat(commit("attested", file.toBuilder().addAttestations(byA).addAttestations(byB).build()).getTableCreated()).isTrue();

        // the audit log names the caller of every catalog change, refused or not
        List<String> audit = Files.readAllLines(directory.resolve("metadata/audit.log"), UTF_8);
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"caller\":\"client:trino\"", "\"method\":\"CommitFiles\"", "\"target\":\"secure.attested (1 files)\"", "\"outcome\":\"OK\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"caller\":\"client:trino\"", "\"target\":\"secure.forged (1 files)\"", "\"outcome\":\"PERMISSION_DENIED\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"caller\":\"storage:node-a\"", "\"method\":\"RegisterNode\""));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"caller\":\"storage:node-b\"", "\"target\":\"node-a at 127.0.0.1:1\"", "\"outcome\":\"PERMISSION_DENIED\""));
    }

    @Test
    void catalogAndAuditLogAreTheServicesUsersOnly()
            throws IOException
    {
        // other users of the machine can neither list nor read the catalog, the grant secret or the audit log
        assertThat(Files.getPosixFilePermissions(directory.resolve("metadata"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
        assertThat(Files.getPosixFilePermissions(directory.resolve("metadata/audit.log"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void replacementIsGrantedUnderTheNewNodesKeyOnly()
    {
        GrantKey keyA = nodeA.registerNode(registration("node-a")).getGrantKey();
        GrantKey keyB = nodeB.registerNode(registration("node-b")).getGrantKey();
        FileAllocation allocation = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build()).getFiles(0);
        String failed = allocation.getReplicas(0).getNodeId();
        String other = failed.equals("node-a") ? "node-b" : "node-a";

        FileAllocation replacement = client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(allocation.getFileId()).addFailedNodeIds(failed).build());
        assertThat(replacement.getFileId()).isEqualTo(allocation.getFileId());
        assertThat(replacement.getReplicasList()).extracting(StorageNode::getNodeId).containsExactly(other);
        UploadGrant grant = replacement.getGrants(0);
        assertThat(grant.getFileId()).isEqualTo(allocation.getFileId());
        assertThat(grant.getNodeId()).isEqualTo(other);
        assertThat(SignedMessages.isValidSignature(other.equals("node-a") ? keyA : keyB, grant)).isTrue();
        assertThat(SignedMessages.isValidSignature(other.equals("node-a") ? keyB : keyA, grant)).isFalse();

        // a storage node cannot get itself (or anyone) a replica
        assertStatusContains(() -> nodeA.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(allocation.getFileId()).build()),
                PERMISSION_DENIED, "storage:node-a may not call nsc.v1.MetadataService/ReplaceReplica (allowed: client)");
    }

    @Test
    void httpEndpointsNeedACertificate()
            throws Exception
    {
        URI health = URI.create("https://127.0.0.1:%s/v1/health".formatted(server.httpPort()));
        TransportSecurity storage = identity(ComponentRole.STORAGE, "node-a");
        try (HttpClient http = HttpClient.newBuilder().sslContext(storage.jdkContext().orElseThrow()).build()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
        }
        // trusting the CA is not enough: the server wants the caller's certificate
        javax.net.ssl.TrustManagerFactory trust = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        java.security.KeyStore store = java.security.KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(directory.resolve("tls/ca.pem"))));
        trust.init(store);
        javax.net.ssl.SSLContext anonymous = javax.net.ssl.SSLContext.getInstance("TLSv1.3");
        anonymous.init(null, trust.getTrustManagers(), null);
        try (HttpClient http = HttpClient.newBuilder().sslContext(anonymous).build()) {
            assertThatThrownBy(() -> http.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOfAny(SSLHandshakeException.class, IOException.class);
        }
    }

    // every metadata method is unary: an empty request is the default instance of its type
    @SuppressWarnings("unchecked")
    private static <Q, R> R callWithEmptyRequest(ManagedChannel channel, MethodDescriptor<Q, R> method)
    {
        Q request = (Q) ((MethodDescriptor.PrototypeMarshaller<Q>) method.getRequestMarshaller()).getMessagePrototype();
        return ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT, request);
    }

    private io.nsc.protocol.proto.CommitFilesResponse commit(String table, DataFile file)
    {
        return client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("secure")
                .setTableName(table)
                .addAllColumns(COLUMNS)
                .setCreateTable(true)
                .addFiles(file)
                .build());
    }

    private static FileAttestation attest(GrantKey key, String nodeId, DataFile file)
    {
        return SignedMessages.signAttestation(key, FileAttestation.newBuilder()
                .setFileId(file.getFileId())
                .setNodeId(nodeId)
                .setSizeBytes(file.getSizeBytes())
                .setRowCount(file.getRowCount())
                .setCrc32C(file.getCrc32C())
                .setCompactStatsSha256(ByteString.copyFrom(SignedMessages.sha256(file.getCompactStats().toByteArray())))
                .build());
    }

    private TransportSecurity identity(ComponentRole role, String name)
    {
        return certificates.issue(role, name, List.of()).toTransportSecurity();
    }

    private MetadataServiceBlockingStub stub(TransportSecurity security)
    {
        return MetadataServiceGrpc.newBlockingStub(channel(security));
    }

    private ManagedChannel channel(TransportSecurity security)
    {
        ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), security);
        resources.add(() -> GrpcChannels.close(channel));
        return channel;
    }

    private static RegisterNodeRequest registration(String nodeId)
    {
        return RegisterNodeRequest.newBuilder()
                .setNodeId(nodeId)
                .setAddress("127.0.0.1:1")
                .setCapacityBytes(10L << 30)
                .setFreeBytes(8L << 30)
                .build();
    }
}
