package io.nsc.metadata.server;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.nsc.metadata.catalog.ClusterCatalog;
import io.nsc.metadata.catalog.PostgreSqlCatalogDatabase;
import io.nsc.metadata.catalog.PostgreSqlServerExtension;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableEntry;
import io.nsc.metadata.catalog.TestingCatalog;
import io.nsc.metadata.catalog.TestingPostgreSqlServer;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.security.TransportSecurity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.stream.Stream;

import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The service wired to a PostgreSQL catalog: it starts only with the settings it needs, serves a
 * catalog another service shares, and leaves its backups to PostgreSQL's own tools.
 */
final class TestMetadataServerOnPostgreSql
{
    @RegisterExtension
    static final PostgreSqlServerExtension postgreSql = new PostgreSqlServerExtension();

    @TempDir
    Path dataDir;

    @Test
    void testStartNeedsUrlAndUser()
    {
        assertThatThrownBy(() -> MetadataServer.start(properties(Map.of("metadata.catalog", "postgresql"))))
                .hasMessageContaining("metadata.catalog.postgresql.url must be set when metadata.catalog=postgresql")
                .hasMessageContaining("metadata.catalog.postgresql.user must be set when metadata.catalog=postgresql");
    }

    @Test
    void testServesASharedCatalogAndLeavesBackupsToPostgreSql()
            throws Exception
    {
        String url = postgreSql.server().createDatabase();
        try (MetadataServer server = MetadataServer.start(properties(Map.of(
                "metadata.catalog", "POSTGRESQL",
                "metadata.catalog.postgresql.url", url,
                "metadata.catalog.postgresql.user", TestingPostgreSqlServer.USER,
                "metadata.catalog.postgresql.max-connections", "3")));
                PostgreSqlCatalogDatabase shared = PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(url, 2))) {
            ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), TransportSecurity.insecure());
            try {
                MetadataServiceBlockingStub client = MetadataServiceGrpc.newBlockingStub(channel);
                client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("tpch").build());
                client.createTable(CreateTableRequest.newBuilder()
                        .setSchemaName("tpch")
                        .setTableName("t")
                        .addColumns(Column.newBuilder().setName("a").setType("bigint"))
                        .build());

                // what one service wrote, another over the same database reads, and the other way round
                TestingCatalog other = TestingCatalog.create(shared, Clock.systemUTC());
                TableEntry table = other.tables().getTable(new SchemaTableName("tpch", "t")).orElseThrow();
                assertThat(table.version()).isEqualTo(1);
                other.tables().createSchema("other", false);
                assertThat(client.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("other", "tpch");
                assertThat(other.cluster().clusterId()).isNotEmpty();

                assertStatus(() -> client.backupCatalog(BackupCatalogRequest.getDefaultInstance()).next(), FAILED_PRECONDITION,
                        "The catalog is in PostgreSQL: back it up with pg_dump (or the server's continuous archiving); ./nsc backup and restore cover the embedded H2 catalog only");
            }
            finally {
                GrpcChannels.close(channel);
            }
        }
        // the data directory holds the service's own files, never a catalog
        try (Stream<Path> files = Files.list(dataDir.resolve("metadata"))) {
            assertThat(files.map(path -> path.getFileName().toString())).doesNotContain("metadata.mv.db");
        }
    }

    @Test
    void testServicesOverOneCatalogHandOutTheSameNodeKeys()
    {
        String url = postgreSql.server().createDatabase();
        try (MetadataServer server = MetadataServer.start(properties(Map.of(
                "metadata.catalog", "POSTGRESQL",
                "metadata.catalog.postgresql.url", url,
                "metadata.catalog.postgresql.user", TestingPostgreSqlServer.USER)));
                PostgreSqlCatalogDatabase shared = PostgreSqlCatalogDatabase.open(postgreSql.server().connectionSettings(url, 2))) {
            GrantKey fromServer = register(server, "node-a");
            // another service over the catalog derives the same key from the catalog's secret, so a
            // grant one service signs verifies with the key the other handed to the node
            byte[] secret = new ClusterCatalog(shared).grantSecret(() -> {
                throw new AssertionError("the running service stored the secret already");
            });
            GrantAuthority other = new GrantAuthority(secret, Clock.systemUTC(), java.time.Duration.ofMinutes(30));
            assertThat(other.nodeKey("node-a")).isEqualTo(fromServer);
            assertThat(other.nodeKey("node-b")).isNotEqualTo(fromServer);
            // and the service keeps no secret of its own beside the catalog's
            assertThat(dataDir.resolve("metadata").resolve(GrantAuthority.SECRET_FILE)).doesNotExist();
        }
    }

    private static GrantKey register(MetadataServer server, String nodeId)
    {
        ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), TransportSecurity.insecure());
        try {
            return MetadataServiceGrpc.newBlockingStub(channel)
                    .registerNode(RegisterNodeRequest.newBuilder().setNodeId(nodeId).setAddress("127.0.0.1:17001").setCapacityBytes(1 << 30).setFreeBytes(1 << 30).build())
                    .getGrantKey();
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    private Map<String, String> properties(Map<String, String> catalog)
    {
        return ImmutableMap.<String, String>builder()
                .put("metadata.data-dir", dataDir.resolve("metadata").toString())
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "0")
                .put("metadata.tls.insecure", "true")
                .putAll(catalog)
                .buildOrThrow();
    }
}
