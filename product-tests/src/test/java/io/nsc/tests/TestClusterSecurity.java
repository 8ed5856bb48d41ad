package io.nsc.tests;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.tests.cluster.ComposeCluster;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import io.nsc.tests.cluster.TrinoAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.grpc.Status.Code.PERMISSION_DENIED;
import static io.grpc.Status.Code.UNAUTHENTICATED;
import static io.grpc.Status.Code.UNAVAILABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cluster ./nsc demo starts, seen by someone who reaches its ports without being one of its
 * components: nothing is served to them, each identity does only its own job, and SQL through
 * Trino goes on working.
 */
@ExtendWith(NscClusterExtension.class)
final class TestClusterSecurity
{
    @Test
    void servicesServeOnlyTheirOwnCertifiedComponents(NscCluster nscCluster)
            throws Exception
    {
        // the certificates live in the process cluster's state directory; Compose keeps them in a volume
        assumeTrue(nscCluster instanceof ProcessCluster, "needs the process cluster's certificate directory");
        ProcessCluster cluster = (ProcessCluster) nscCluster;
        List<ManagedChannel> channels = new ArrayList<>();
        try {
            // plaintext: the TLS port does not speak it
            ManagedChannel plaintext = GrpcChannels.forAddress(cluster.grpcAddress("metadata"), TransportSecurity.insecure());
            channels.add(plaintext);
            assertCode(() -> MetadataServiceGrpc.newBlockingStub(plaintext).listSchemas(ListSchemasRequest.getDefaultInstance()), UNAVAILABLE);

            // TLS without a certificate of one's own
            ManagedChannel anonymousMetadata = anonymous(cluster, "metadata");
            ManagedChannel anonymousStorage = anonymous(cluster, "storage-1");
            channels.add(anonymousMetadata);
            channels.add(anonymousStorage);
            assertCode(() -> MetadataServiceGrpc.newBlockingStub(anonymousMetadata).dropTable(DropTableRequest.newBuilder().setSchemaName("tpch").setTableName("lineitem").build()), UNAUTHENTICATED);
            assertCode(() -> StorageServiceGrpc.newBlockingStub(anonymousStorage).scan(ScanRequest.newBuilder().setFileId("0123456789abcdef0123456789abcdef").build()).hasNext(), UNAUTHENTICATED);

            // a storage node's own certificate does not let it commit, nor speak for another node
            ManagedChannel asStorage = GrpcChannels.forAddress(cluster.grpcAddress("metadata"), cluster.identity("storage-2").toTransportSecurity());
            channels.add(asStorage);
            assertCode(() -> MetadataServiceGrpc.newBlockingStub(asStorage).commitFiles(CommitFilesRequest.newBuilder().setSchemaName("tpch").setTableName("lineitem").build()), PERMISSION_DENIED);
            assertCode(() -> MetadataServiceGrpc.newBlockingStub(asStorage).registerNode(RegisterNodeRequest.newBuilder().setNodeId("storage-1").setAddress("127.0.0.1:1").build()), PERMISSION_DENIED);

            // Trino's client certificate may not register a node either
            ManagedChannel asTrino = GrpcChannels.forAddress(cluster.grpcAddress("metadata"), cluster.identity("trino").toTransportSecurity());
            channels.add(asTrino);
            assertCode(() -> MetadataServiceGrpc.newBlockingStub(asTrino).registerNode(RegisterNodeRequest.newBuilder().setNodeId("storage-1").setAddress("127.0.0.1:1").build()), PERMISSION_DENIED);
            assertThat(MetadataServiceGrpc.newBlockingStub(asTrino).listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).contains("tpch");
        }
        finally {
            channels.forEach(GrpcChannels::close);
        }

        // none of it changed anything: SQL answers as before
        try (Connection connection = cluster.connect("nsc")) {
            assertThat(Jdbc.query(connection, "SELECT count(*) FROM nsc.tpch.lineitem").rows()).isEqualTo(Jdbc.query(connection, "SELECT count(*) FROM tpch.tiny.lineitem").rows());
        }
        // and the audit log names who tried what
        String audit = Files.readString(cluster.metadataDirectory().resolve("data/audit.log"));
        assertThat(audit).contains("\"caller\":\"storage:storage-2\",\"method\":\"RegisterNode\",\"target\":\"storage-1 at 127.0.0.1:1\",\"outcome\":\"PERMISSION_DENIED\"");
    }

    @Test
    void composeContainersHoldOnlyTheirOwnKeys(NscCluster nscCluster)
    {
        assumeTrue(nscCluster instanceof ComposeCluster, "the Compose cluster's containers");
        ComposeCluster cluster = (ComposeCluster) nscCluster;
        // each serving container, with the identity its bundle holds
        Map<String, String> identities = Map.of(
                "metadata", "metadata",
                "storage-1", "storage-1",
                "storage-2", "storage-2",
                "storage-3", "storage-3",
                "coordinator", "trino",
                "worker-1", "trino",
                "worker-2", "trino");
        identities.forEach((service, identity) -> {
            List<String> files = cluster.tlsFiles(service);
            assertThat(files).as(service).contains("ca.pem", identity + ".pem", identity + ".key").doesNotContain("ca.key");
            assertThat(files.stream().filter(file -> file.endsWith(".key"))).as(service).containsExactly(identity + ".key");
            // the CA's volume is the certificate issuer's alone
            assertThat(cluster.volumes(service)).as(service).doesNotContain("tls-ca");
        });
        assertThat(cluster.volumes("certs")).contains("tls-ca");
    }

    @Test
    void trinoUsersLogInAndTheAuditLogNamesThem(NscCluster nscCluster)
            throws Exception
    {
        assumeTrue(nscCluster instanceof ProcessCluster, "needs the process cluster's directories");
        ProcessCluster cluster = (ProcessCluster) nscCluster;
        TrinoAccess admin = cluster.trinoAccess();
        Path tls = cluster.identity("trino").ca().getParent();
        // --secure makes a password for each role of the shipped access rules, not only for nsc
        TrinoAccess writer = new TrinoAccess(admin.httpsPort(), "writer", Files.readString(tls.resolve("trino-password-writer")).strip(), admin.caFile());
        TrinoAccess analyst = new TrinoAccess(admin.httpsPort(), "analyst", Files.readString(tls.resolve("trino-password-analyst")).strip(), admin.caFile());
        try (Connection connection = analyst.connect("nsc")) {
            assertThat(Jdbc.query(connection, "SELECT count(*) FROM nsc.tpch.region").rows()).isEqualTo(List.of(List.of(5L)));
        }
        // each user has a password of their own (a JDBC connection asks nothing before its first query)
        TrinoAccess wrongPassword = new TrinoAccess(admin.httpsPort(), "writer", admin.password(), admin.caFile());
        assertThatThrownBy(() -> {
            try (Connection connection = wrongPassword.connect("nsc"); Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT 1").close();
            }
        }).hasStackTraceContaining("Authentication failed");
        String table = "audited_" + Long.toHexString(System.nanoTime());
        try (Connection connection = writer.connect("nsc"); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE nsc.tpch.%s AS SELECT * FROM nsc.tpch.region".formatted(table));
            statement.execute("DROP TABLE nsc.tpch.%s".formatted(table));
        }
        // every Trino node has the certificate client:trino; the audit log also names the Trino user
        List<String> audit = Files.readAllLines(cluster.metadataDirectory().resolve("data/audit.log"));
        assertThat(audit).anySatisfy(line -> assertThat(line).contains("\"caller\":\"client:trino\",\"user\":\"writer\",\"query\":\"", "\"method\":\"DropTable\"", "\"target\":\"tpch.%s\"".formatted(table)));

        // the catalog, the audit log and the table data are the services' user's only
        assertThat(permissions(cluster.metadataDirectory().resolve("data"))).isEqualTo("rwx------");
        assertThat(permissions(cluster.metadataDirectory().resolve("data/audit.log"))).isEqualTo("rw-------");
        for (Path disk : cluster.storageDataDirectories("storage-1")) {
            assertThat(permissions(disk)).isEqualTo("rwx------");
        }
    }

    private static String permissions(Path path)
            throws IOException
    {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static ManagedChannel anonymous(ProcessCluster cluster, String component)
            throws Exception
    {
        String[] hostAndPort = cluster.grpcAddress(component).split(":");
        return NettyChannelBuilder.forAddress(hostAndPort[0], Integer.parseInt(hostAndPort[1]))
                .negotiationType(NegotiationType.TLS)
                .sslContext(GrpcSslContexts.forClient().trustManager(cluster.identity("nsc-cli").ca().toFile()).build())
                .build();
    }

    private static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, io.grpc.Status.Code code)
    {
        assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    }
}
