package io.nsc.metadata.server;

import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.UNAVAILABLE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

final class TestMetadataServer
{
    private static final List<Column> COLUMNS = List.of(
            column("l_orderkey", "bigint"),
            column("l_quantity", "decimal(12,2)"),
            column("l_shipmode", "varchar(10)"));

    @TempDir
    Path dataDir;

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown()
            throws Exception
    {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void testCatalogSurvivesRestart()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.registerNode(registration("node-b", "127.0.0.1:17002"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("tpch").build());

        AllocateFilesResponse allocation = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(3).build());
        assertThat(allocation.getFilesList()).hasSize(3);
        List<DataFile> files = new ArrayList<>();
        for (FileAllocation file : allocation.getFilesList()) {
            assertThat(file.getFileId()).matches("[0-9a-f]{32}");
            // replication 0 means the default of 2: both nodes, in placement order
            assertThat(file.getReplicasList()).extracting(StorageNode::getNodeId).containsExactlyInAnyOrder("node-a", "node-b");
            long rows = 100 + files.size();
            files.add(DataFile.newBuilder()
                    .setFileId(file.getFileId())
                    .setSizeBytes(4096 + files.size())
                    .setRowCount(rows)
                    .addAllReplicaNodeIds(file.getReplicasList().stream().map(StorageNode::getNodeId).toList())
                    .setCompactStats(compactStats(rows))
                    .setCrc32C(0x8000_0000 + files.size())
                    .build());
        }
        CommitFilesResponse commit = client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("tpch")
                .setTableName("lineitem")
                .addAllColumns(COLUMNS)
                .setCreateTable(true)
                .addAllFiles(files)
                .build());
        assertThat(commit.getTableCreated()).isTrue();
        assertThat(commit.getVersion()).isEqualTo(1);

        TableInfo table = client.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName("lineitem").build());
        assertThat(table.getColumnsList()).isEqualTo(COLUMNS);
        assertThat(table.getRowCount()).isEqualTo(303);
        assertThat(table.getFileCount()).isEqualTo(3);
        GetTableFilesResponse tableFiles = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(commit.getTableId()).build());
        assertThat(tableFiles.getFilesList()).isEqualTo(files);
        assertThat(tableFiles.getNodesList()).extracting(StorageNode::getNodeId).containsExactlyInAnyOrder("node-a", "node-b");
        assertThat(tableFiles.getNodesList()).allMatch(StorageNode::getAlive);

        close(server);
        MetadataServer restarted = startServer();
        MetadataServiceBlockingStub after = client(restarted);

        assertThat(after.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("tpch");
        assertThat(after.listTables(ListTablesRequest.getDefaultInstance()).getTablesList())
                .containsExactly(TableName.newBuilder().setSchemaName("tpch").setTableName("lineitem").build());
        assertThat(after.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName("lineitem").build())).isEqualTo(table);
        GetTableFilesResponse filesAfter = after.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(commit.getTableId()).build());
        assertThat(filesAfter.getVersion()).isEqualTo(1);
        assertThat(filesAfter.getFilesList()).isEqualTo(files);
        // the nodes are known, with their addresses, but not alive until they heartbeat again
        assertThat(filesAfter.getNodesList())
                .extracting(StorageNode::getNodeId, StorageNode::getAddress, StorageNode::getAlive)
                .containsExactlyInAnyOrder(
                        tuple("node-a", "127.0.0.1:17001", false),
                        tuple("node-b", "127.0.0.1:17002", false));
        assertStatus(() -> after.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).build()), UNAVAILABLE, "No storage node is live");

        assertThat(after.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-a").setFreeBytes(1 << 30).build()).getKnown()).isTrue();
        assertThat(after.listNodes(ListNodesRequest.getDefaultInstance()).getNodesList())
                .extracting(StorageNode::getNodeId, StorageNode::getAlive)
                .containsExactly(tuple("node-a", true), tuple("node-b", false));
        AllocateFilesResponse single = after.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build());
        assertThat(single.getFiles(0).getReplicasList()).extracting(StorageNode::getNodeId).containsExactly("node-a");
    }

    @Test
    void testErrorStatuses()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);

        assertStatusContains(() -> client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("Bad-Name").build()), INVALID_ARGUMENT, "Invalid schema name 'Bad-Name'");
        assertStatus(() -> client.createSchema(CreateSchemaRequest.getDefaultInstance()), INVALID_ARGUMENT, "The schema name is empty");
        assertThat(client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("tpch").build()).getCreated()).isTrue();
        assertStatus(() -> client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("tpch").build()), ALREADY_EXISTS, "Schema tpch already exists");
        assertThat(client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("tpch").setIfNotExists(true).build()).getCreated()).isFalse();

        assertStatus(() -> client.listTables(ListTablesRequest.newBuilder().setSchemaName("missing").build()), NOT_FOUND, "Schema missing does not exist");
        assertStatus(() -> client.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName("nope").build()), NOT_FOUND, "Table tpch.nope does not exist");
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(42).build()), NOT_FOUND, "Table with id 42 does not exist");

        assertStatus(() -> client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).build()), UNAVAILABLE, "No storage node is live");
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.registerNode(registration("node-b", "127.0.0.1:17002"));
        assertStatus(() -> client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(3).build()), FAILED_PRECONDITION,
                "Replication 3 requested but only 2 storage nodes are live");
        assertStatus(() -> client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(0).build()), INVALID_ARGUMENT, "File count must be between 1 and 10000, got 0");
        assertStatus(() -> client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(-1).build()), INVALID_ARGUMENT, "Replication must not be negative, got -1");

        assertStatus(() -> client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("nope").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).build()),
                NOT_FOUND, "Schema nope does not exist");
        assertStatus(() -> client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("tpch").setTableName("t").addAllColumns(COLUMNS).build()),
                NOT_FOUND, "Table tpch.t does not exist");
        assertStatusContains(() -> client.registerNode(registration("node c", "127.0.0.1:1")), INVALID_ARGUMENT, "Invalid node id 'node c'");
        assertThat(client.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-z").build()).getKnown()).isFalse();

        assertThat(httpGet(server, "/v1/metrics"))
                .contains("rpc_errors 13\n")
                .contains("registered_nodes 2\n")
                .contains("live_nodes 2\n")
                .contains("commits 0\n");
    }

    @Test
    void testHttpAndJmx()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        FileAllocation file = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build()).getFiles(0);
        client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("s")
                .setTableName("t")
                .addAllColumns(COLUMNS)
                .setCreateTable(true)
                .addFiles(DataFile.newBuilder()
                        .setFileId(file.getFileId())
                        .setRowCount(5)
                        .setSizeBytes(10)
                        .addReplicaNodeIds("node-a")
                        .setCompactStats(compactStats(5)))
                .build());

        assertThat(httpGet(server, "/v1/health")).isEqualTo("OK\n");
        assertThat(httpGet(server, "/v1/metrics"))
                .contains("commits 1\n")
                .contains("files_committed 1\n")
                .contains("files_allocated 1\n")
                .contains("node_registrations 1\n")
                .contains("live_nodes 1\n");

        MBeanServer mbeanServer = ManagementFactory.getPlatformMBeanServer();
        ObjectName stats = new ObjectName("io.nsc.metadata.server:name=MetadataStats");
        assertThat(mbeanServer.getAttribute(stats, "Commits.TotalCount")).isEqualTo(1L);
        assertThat(mbeanServer.getAttribute(stats, "LiveNodes")).isEqualTo(1);
        close(server);
        assertThat(mbeanServer.isRegistered(stats)).isFalse();
    }

    private MetadataServer startServer()
    {
        MetadataServer server = MetadataServer.start(Map.of(
                "metadata.data-dir", dataDir.resolve("metadata").toString(),
                "metadata.grpc-port", "0",
                "metadata.http-port", "0"));
        resources.add(server);
        return server;
    }

    private void close(AutoCloseable resource)
            throws Exception
    {
        resources.remove(resource);
        resource.close();
    }

    private MetadataServiceBlockingStub client(MetadataServer server)
    {
        ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort());
        resources.add(() -> GrpcChannels.close(channel));
        return MetadataServiceGrpc.newBlockingStub(channel);
    }

    private static String httpGet(MetadataServer server, String path)
            throws IOException, InterruptedException
    {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:%s%s".formatted(server.httpPort(), path))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body();
        }
    }

    private static RegisterNodeRequest registration(String nodeId, String address)
    {
        return RegisterNodeRequest.newBuilder()
                .setNodeId(nodeId)
                .setAddress(address)
                .setCapacityBytes(10L << 30)
                .setFreeBytes(8L << 30)
                .build();
    }

    private static Column column(String name, String type)
    {
        return Column.newBuilder().setName(name).setType(type).build();
    }
}
