package io.nsc.metadata.server;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.DropSchemaRequest;
import io.nsc.protocol.proto.DropSchemaResponse;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.DropTableResponse;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RemovedRowGroups;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableFilesPageToken;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.security.TransportSecurity;
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
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.OUT_OF_RANGE;
import static io.grpc.Status.Code.RESOURCE_EXHAUSTED;
import static io.grpc.Status.Code.UNAVAILABLE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static io.nsc.metadata.TestingStats.compactStatsOfRowGroups;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
        // the nodes are known, with their addresses, and alive: the catalog recorded their
        // registration less than the node timeout ago, so placement works at once
        assertThat(filesAfter.getNodesList())
                .extracting(StorageNode::getNodeId, StorageNode::getAddress, StorageNode::getAlive)
                .containsExactlyInAnyOrder(
                        tuple("node-a", "127.0.0.1:17001", true),
                        tuple("node-b", "127.0.0.1:17002", true));
        assertThat(after.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-a").setFreeBytes(1 << 30).build()).getKnown()).isTrue();
        AllocateFilesResponse single = after.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build());
        assertThat(single.getFiles(0).getReplicasList()).extracting(StorageNode::getNodeId).containsAnyOf("node-a", "node-b").hasSize(1);
    }

    @Test
    void testTableFilesInPagesOfOneVersion()
    {
        MetadataServer server = startServer(Map.of("metadata.table-files-page-max-files", "4"));
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.registerNode(registration("node-b", "127.0.0.1:17002"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        List<DataFile> files = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            files.add(allocateAndDescribe(client, 10 + i).toBuilder().setColumnSketches(ByteString.copyFromUtf8("sketches " + i)).build());
        }
        CommitFilesResponse commit = client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addAllFiles(files).build());
        long tableId = commit.getTableId();

        // a page size beyond the service's limit gets the limit; a commit between pages changes nothing listed
        List<DataFile> listed = new ArrayList<>();
        List<Integer> pageSizes = new ArrayList<>();
        ByteString token = ByteString.EMPTY;
        do {
            GetTableFilesResponse page = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(100).setPageToken(token).setOmitColumnSketches(true).build());
            assertThat(page.getVersion()).isEqualTo(commit.getVersion());
            // the nodes of this page's files, no others
            assertThat(page.getNodesList()).extracting(StorageNode::getNodeId)
                    .containsExactlyInAnyOrderElementsOf(page.getFilesList().stream().flatMap(file -> file.getReplicaNodeIdsList().stream()).distinct().toList());
            listed.addAll(page.getFilesList());
            pageSizes.add(page.getFilesCount());
            if (pageSizes.size() == 1) {
                DataFile late = allocateAndDescribe(client, 99);
                assertThat(client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).addFiles(late).build()).getVersion())
                        .isEqualTo(commit.getVersion() + 1);
            }
            token = page.getNextPageToken();
        }
        while (!token.isEmpty());
        assertThat(pageSizes).containsExactly(4, 4, 2);
        assertThat(listed).isEqualTo(files.stream().map(file -> file.toBuilder().clearColumnSketches().build()).toList());

        // a listing of the new version, or of the old one asked by number
        assertThat(client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(100).build()).getVersion()).isEqualTo(commit.getVersion() + 1);
        GetTableFilesResponse old = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(commit.getVersion()).setPageSize(3).build());
        assertThat(old.getFilesList()).isEqualTo(files.subList(0, 3));

        // tokens hold their table and version, and nothing else passes for one
        ByteString oldToken = old.getNextPageToken();
        assertStatusContains(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId + 1).setPageToken(oldToken).build()), INVALID_ARGUMENT,
                "The page token continues the listing of version 1 of table %s, not of table %s".formatted(tableId, tableId + 1));
        assertStatusContains(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(2).setPageToken(oldToken).build()), INVALID_ARGUMENT,
                "not of table %s version 2".formatted(tableId));
        assertStatusContains(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageToken(ByteString.copyFromUtf8("garbage")).build()), INVALID_ARGUMENT,
                "The page token is not one GetTableFiles issued");
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(-1).build()), INVALID_ARGUMENT, "Page size -1 is negative");
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(7).setPageSize(1).build()), OUT_OF_RANGE,
                "Table with id %s is at version 2: version 7 does not exist".formatted(tableId));
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId + 1).setPageSize(1).build()), NOT_FOUND,
                "Table with id %s does not exist".formatted(tableId + 1));
        // the old version's listing goes on where it stopped
        assertThat(client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageToken(oldToken).build()).getFilesList()).isEqualTo(files.subList(3, 7));
    }

    @Test
    void testUnpagedListingOfTheVersionAskedOnlyWhenItFitsOnePage()
    {
        MetadataServer server = startServer(Map.of("metadata.table-files-page-max-files", "4"));
        MetadataServiceBlockingStub client = client(server);
        List<DataFile> files = schemaAndFilesOfOneNode(client, 8);
        // version 1 holds exactly as many files as a page, version 2 twice as many
        long tableId = client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addAllFiles(files.subList(0, 4)).build()).getTableId();
        client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).addAllFiles(files.subList(4, 8)).build());

        GetTableFilesResponse first = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(1).build());
        assertThat(first.getVersion()).isEqualTo(1);
        assertThat(first.getFilesList()).isEqualTo(files.subList(0, 4));
        assertThat(first.getNextPageToken()).isEmpty();
        assertThat(client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(1).setOmitColumnSketches(true).build()).getFilesList())
                .isEqualTo(files.subList(0, 4).stream().map(file -> file.toBuilder().clearColumnSketches().build()).toList());
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).build()), RESOURCE_EXHAUSTED,
                ("Version 2 of table with id %s has more files than one answer holds (at most 4 files and 4MB of stats and sketches): " +
                        "list them in pages, with a page_size and the next_page_token of each answer").formatted(tableId));
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(-1).build()), INVALID_ARGUMENT, "Version -1 is negative");
        assertStatus(() -> client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setVersion(3).build()), OUT_OF_RANGE,
                "Table with id %s is at version 2: version 3 does not exist".formatted(tableId));

        // a file count that is a multiple of the page size: the last full page says no more follow
        GetTableFilesResponse page = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(4).build());
        assertThat(page.getFilesList()).isEqualTo(files.subList(0, 4));
        GetTableFilesResponse last = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(4).setPageToken(page.getNextPageToken()).build());
        assertThat(last.getFilesList()).isEqualTo(files.subList(4, 8));
        assertThat(last.getNextPageToken()).isEmpty();
    }

    @Test
    void testForgedPageTokensAreRefused()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        List<DataFile> files = schemaAndFilesOfOneNode(client, 4);
        long tableId = client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addAllFiles(files).build()).getTableId();
        TableFilesPageToken issued = TableFilesPageToken.parseFrom(client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageSize(1).build()).getNextPageToken());
        assertThat(issued).isEqualTo(TableFilesPageToken.newBuilder().setTableId(tableId).setVersion(1).setCommittedVersion(1).setCommitOrdinal(0).build());
        // the token as issued continues after the first file
        assertThat(client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).setPageToken(issued.toByteString()).build()).getFilesList())
                .isEqualTo(files.subList(1, 4));

        // past the end of the commit: the listing would answer nothing and end, OK
        assertStatus(() -> listAfter(client, issued.toBuilder().setCommitOrdinal(4)), INVALID_ARGUMENT,
                "Version 1 of table with id %s has no file 4 of commit 1 to continue a listing after".formatted(tableId));
        // a version the table never reached was never listed: not OUT_OF_RANGE, which a client may wait out
        assertStatus(() -> listAfter(client, issued.toBuilder().setVersion(5)), INVALID_ARGUMENT,
                "Table with id %s is at version 1: no listing of version 5 was ever begun to continue".formatted(tableId));
        assertStatus(() -> listAfter(client, issued.toBuilder().setVersion(5).setCommittedVersion(3)), INVALID_ARGUMENT,
                "Table with id %s is at version 1: no listing of version 5 was ever begun to continue".formatted(tableId));
        // structurally impossible positions
        assertStatusContains(() -> listAfter(client, issued.toBuilder().setCommittedVersion(2)), INVALID_ARGUMENT, "The page token is not one GetTableFiles issued");
        assertStatusContains(() -> listAfter(client, issued.toBuilder().setCommitOrdinal(-1)), INVALID_ARGUMENT, "The page token is not one GetTableFiles issued");
        assertStatusContains(() -> listAfter(client, issued.toBuilder().setCommittedVersion(0)), INVALID_ARGUMENT, "The page token is not one GetTableFiles issued");
    }

    /** Schema s and {@code count} allocated files (with sketches) on node-a, to commit. */
    private static List<DataFile> schemaAndFilesOfOneNode(MetadataServiceBlockingStub client, int count)
    {
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        List<DataFile> files = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            files.add(allocateAndDescribe(client, 10 + i).toBuilder().setColumnSketches(ByteString.copyFromUtf8("sketches " + i)).build());
        }
        return files;
    }

    private static GetTableFilesResponse listAfter(MetadataServiceBlockingStub client, TableFilesPageToken.Builder token)
    {
        return client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(token.getTableId()).setPageSize(10).setPageToken(token.build().toByteString()).build());
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
        // a name of any length is answered with a readable status, not an overflowing trailer (a bare INTERNAL); four more errors
        for (String character : List.of("a", "\u00e9", "\u20ac", "\ud83d\ude00")) {
            String longName = character.repeat(20_000 / character.length());
            assertThatThrownBy(() -> client.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName(longName).build()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).isEqualTo(NOT_FOUND);
                        assertThat(e.getStatus().getDescription()).startsWith("Table tpch." + character.repeat(4)).endsWith("...").hasSizeLessThanOrEqualTo(800);
                    });
        }

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
                .contains("rpc_errors 17\n")
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
        client.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("t").build());
        assertThatThrownBy(() -> client.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("missing").build()));

        assertThat(httpGet(server, "/v1/health")).isEqualTo("OK\n");
        assertThat(httpGet(server, "/v1/metrics"))
                // the lookup of a missing table is an error, not a lookup
                .contains("table_lookups 1\n")
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

    @Test
    void testCreateAndDropTables()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        Map<String, String> properties = Map.of("sorted_by", "l_orderkey", "replication", "1");

        CreateTableRequest create = CreateTableRequest.newBuilder()
                .setSchemaName("s")
                .setTableName("t")
                .addAllColumns(COLUMNS)
                .putAllProperties(properties)
                .build();
        assertStatus(() -> client.createTable(create), NOT_FOUND, "Schema s does not exist");
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        CreateTableResponse created = client.createTable(create);
        assertThat(created.getCreated()).isTrue();
        TableInfo table = created.getTable();
        assertThat(table.getColumnsList()).isEqualTo(COLUMNS);
        assertThat(table.getPropertiesMap()).isEqualTo(properties);
        assertThat(table.getVersion()).isEqualTo(1);
        assertThat(client.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("t").build())).isEqualTo(table);
        assertStatus(() -> client.createTable(create), ALREADY_EXISTS, "Table s.t already exists");
        assertThat(client.createTable(create.toBuilder().setIfNotExists(true).build())).isEqualTo(CreateTableResponse.newBuilder().setTable(table).setCreated(false).build());
        assertStatus(() -> client.createTable(create.toBuilder().setTableName("u").clearColumns().build()), INVALID_ARGUMENT, "A table needs at least one column");

        // CREATE TABLE AS: properties with the commit, and no appending to a table that exists
        DataFile file = allocateAndDescribe(client, 5);
        CommitFilesRequest ctas = CommitFilesRequest.newBuilder()
                .setSchemaName("s")
                .setTableName("ctas")
                .addAllColumns(COLUMNS)
                .setCreateTable(true)
                .setMustCreate(true)
                .putTableProperties("row_group_size", "32MB")
                .addFiles(file)
                .build();
        CommitFilesResponse committed = client.commitFiles(ctas);
        assertThat(committed.getTableCreated()).isTrue();
        assertStatus(() -> client.commitFiles(ctas.toBuilder().setFiles(0, allocateAndDescribe(client, 5)).build()), ALREADY_EXISTS, "Table s.ctas already exists");
        // an INSERT of nothing leaves the version alone
        CommitFilesResponse empty = client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("ctas").addAllColumns(COLUMNS).build());
        assertThat(empty).isEqualTo(CommitFilesResponse.newBuilder().setTableId(committed.getTableId()).setVersion(1).build());

        // the properties survive a restart; with no table version retention a dropped table's files are released at once
        close(server);
        MetadataServer restarted = startServer(Map.of("metadata.table-version-retention", "0s"));
        MetadataServiceBlockingStub after = client(restarted);
        assertThat(after.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("t").build()).getPropertiesMap()).isEqualTo(properties);
        assertThat(after.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("ctas").build()).getPropertiesMap()).containsExactly(Map.entry("row_group_size", "32MB"));

        assertStatus(() -> after.dropSchema(DropSchemaRequest.newBuilder().setSchemaName("s").build()), FAILED_PRECONDITION, "Schema s is not empty");
        assertThat(after.dropTable(DropTableRequest.newBuilder().setSchemaName("s").setTableName("ctas").build()))
                .isEqualTo(DropTableResponse.newBuilder().setDropped(true).setFilesReleased(1).build());
        // the dropped table's file is an orphan now
        assertThat(after.findOrphans(FindOrphansRequest.newBuilder().setNodeId("node-a").addFileIds(file.getFileId()).build()).getOrphanFileIdsList())
                .containsExactly(file.getFileId());
        assertStatus(() -> after.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("ctas").build()), NOT_FOUND, "Table s.ctas does not exist");
        assertStatus(() -> after.dropTable(DropTableRequest.newBuilder().setSchemaName("s").setTableName("ctas").build()), NOT_FOUND, "Table s.ctas does not exist");
        assertThat(after.dropTable(DropTableRequest.newBuilder().setSchemaName("s").setTableName("ctas").setIfExists(true).build())).isEqualTo(DropTableResponse.getDefaultInstance());
        assertThat(after.dropTable(DropTableRequest.newBuilder().setSchemaName("s").setTableName("t").build()).getFilesReleased()).isZero();
        assertThat(after.dropSchema(DropSchemaRequest.newBuilder().setSchemaName("s").build())).isEqualTo(DropSchemaResponse.newBuilder().setDropped(true).build());
        assertStatus(() -> after.dropSchema(DropSchemaRequest.newBuilder().setSchemaName("s").build()), NOT_FOUND, "Schema s does not exist");
        assertThat(after.dropSchema(DropSchemaRequest.newBuilder().setSchemaName("s").setIfExists(true).build()).getDropped()).isFalse();
        assertThat(after.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).isEmpty();

        assertThat(httpGet(restarted, "/v1/metrics"))
                .contains("tables_dropped 2\n")
                .contains("files_released 1\n")
                .contains("orphan_checks 1\n")
                .contains("orphans_reported 1\n");
    }

    @Test
    void testDeleteCommitsOverTheWire()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        List<DataFile> files = schemaAndFilesOfOneNode(client, 2);
        DataFile grouped = allocateAndDescribe(client, 0).toBuilder().setRowCount(12).setCompactStats(compactStatsOfRowGroups(5, 7)).build();
        CommitFilesResponse created = client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true)
                .addAllFiles(files).addFiles(grouped)
                .build());

        // one file removed, a row group of another, in the metadata alone
        CommitFilesResponse deleted = client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setExpectedTableId(created.getTableId())
                .setRemovals(FileRemovals.newBuilder()
                        .setReadVersion(1)
                        .addRemovedFileIds(files.get(0).getFileId())
                        .addRemovedRowGroups(RemovedRowGroups.newBuilder().setFileId(grouped.getFileId()).addRowGroups(1)))
                .build());
        assertThat(deleted).isEqualTo(CommitFilesResponse.newBuilder()
                .setTableId(created.getTableId()).setVersion(2).setFilesRemoved(1).setRowGroupsRemoved(1).setRowsRemoved(10 + 7).build());

        // the listing says which row groups left a file, as of the version listed
        GetTableFilesResponse current = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(created.getTableId()).build());
        assertThat(current.getFilesList()).extracting(DataFile::getFileId).containsExactly(files.get(1).getFileId(), grouped.getFileId());
        assertThat(current.getFiles(1).getRemovedRowGroupsList()).containsExactly(1);
        GetTableFilesResponse first = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(created.getTableId()).setVersion(1).build());
        assertThat(first.getFilesList()).extracting(DataFile::getFileId).containsExactly(files.get(0).getFileId(), files.get(1).getFileId(), grouped.getFileId());
        assertThat(first.getFiles(2).getRemovedRowGroupsList()).isEmpty();
        // and lists only the files asked for
        GetTableFilesResponse some = client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(created.getTableId()).setVersion(1)
                .addFileIds(grouped.getFileId()).addFileIds(files.get(0).getFileId()).build());
        assertThat(some.getFilesList()).extracting(DataFile::getFileId).containsExactly(files.get(0).getFileId(), grouped.getFileId());

        // a DELETE that read version 1 and removes the same file again changed nothing
        CommitFilesRequest stale = CommitFilesRequest.newBuilder()
                .setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setExpectedTableId(created.getTableId())
                .setRemovals(FileRemovals.newBuilder().setReadVersion(1).addRemovedFileIds(files.get(0).getFileId()))
                .build();
        assertStatus(() -> client.commitFiles(stale), ABORTED,
                "File %s of table s.t was removed by a commit at version 2, after version 1 that the statement read; nothing was committed".formatted(files.get(0).getFileId()));
        assertStatus(() -> client.commitFiles(stale.toBuilder().setRemovals(FileRemovals.newBuilder().setReadVersion(2)
                        .addRemovedRowGroups(RemovedRowGroups.newBuilder().setFileId(grouped.getFileId()).addRowGroups(0))
                        .addRemovedRowGroups(RemovedRowGroups.newBuilder().setFileId(grouped.getFileId()).addRowGroups(1))).build()),
                INVALID_ARGUMENT, "File %s is named twice in the commit's removals".formatted(grouped.getFileId()));
        DataFile withRemovedRowGroups = allocateAndDescribe(client, 3).toBuilder().addRemovedRowGroups(0).build();
        assertStatus(() -> client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).addFiles(withRemovedRowGroups).build()),
                INVALID_ARGUMENT, "File %s of the commit names removed row groups: a commit removes them with its removals".formatted(withRemovedRowGroups.getFileId()));
        GetTableFilesRequest.Builder tooMany = GetTableFilesRequest.newBuilder().setTableId(created.getTableId());
        for (int i = 0; i < 1001; i++) {
            tooMany.addFileIds("%032x".formatted(i));
        }
        assertStatus(() -> client.getTableFiles(tooMany.build()), INVALID_ARGUMENT, "At most 1000 file ids per listing, got 1001");
        assertThat(client.getTable(GetTableRequest.newBuilder().setSchemaName("s").setTableName("t").build()).getVersion()).isEqualTo(2);

        assertThat(httpGet(server, "/v1/metrics"))
                .contains("deletes 1\n")
                .contains("files_removed 1\n")
                .contains("row_groups_removed 1\n")
                .contains("files_rewritten 0\n")
                .contains("rows_deleted 17\n");
    }

    @Test
    void testFindOrphans()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        DataFile committed = allocateAndDescribe(client, 5);
        DataFile allocated = allocateAndDescribe(client, 5);
        client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addFiles(committed).build());
        String unknown = "0123456789abcdef0123456789abcdef";

        // the node the file is committed on keeps it; any other node's copy is one too many
        assertThat(client.findOrphans(FindOrphansRequest.newBuilder()
                .setNodeId("node-a")
                .addFileIds(committed.getFileId())
                .addFileIds(allocated.getFileId())
                .addFileIds(unknown)
                .build())
                .getOrphanFileIdsList())
                .containsExactly(unknown);
        assertThat(client.findOrphans(FindOrphansRequest.newBuilder()
                .setNodeId("node-z")
                .addFileIds(committed.getFileId())
                .addFileIds(allocated.getFileId())
                .addFileIds(unknown)
                .build())
                .getOrphanFileIdsList())
                .containsExactlyInAnyOrder(committed.getFileId(), unknown);
        assertStatusContains(() -> client.findOrphans(FindOrphansRequest.newBuilder().setNodeId("node-a").addFileIds("nope").build()), INVALID_ARGUMENT, "Invalid file id 'nope'");
        assertThat(httpGet(server, "/v1/metrics"))
                .contains("orphan_checks 2\n")
                .contains("orphans_reported 3\n");
    }

    @Test
    void testClusterId()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        String clusterId = client.registerNode(registration("node-a", "127.0.0.1:17001")).getClusterId();
        assertThat(clusterId).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        // the same id in every answer a storage node checks
        assertThat(clusterIds(client)).containsExactly(clusterId, clusterId, clusterId);

        // a restart on the same data dir keeps it
        close(server);
        MetadataServer restarted = startServer();
        assertThat(clusterIds(client(restarted))).containsExactly(clusterId, clusterId, clusterId);

        // a service on another (empty) data dir is another cluster: what nodes must notice
        close(restarted);
        MetadataServer other = startServer(Map.of("metadata.data-dir", dataDir.resolve("other").toString()));
        String otherId = client(other).registerNode(registration("node-a", "127.0.0.1:17001")).getClusterId();
        assertThat(otherId).isNotEmpty().isNotEqualTo(clusterId);
    }

    /** The cluster id in the answers to RegisterNode, Heartbeat and FindOrphans, in that order. */
    private static List<String> clusterIds(MetadataServiceBlockingStub client)
    {
        return List.of(
                client.registerNode(registration("node-a", "127.0.0.1:17001")).getClusterId(),
                client.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-a").build()).getClusterId(),
                client.findOrphans(FindOrphansRequest.newBuilder().setNodeId("node-a").addFileIds("0123456789abcdef0123456789abcdef").build()).getClusterId());
    }

    @Test
    void testExpiredAllocation()
    {
        MetadataServer server = startServer(Map.of("metadata.allocation-timeout", "1s"));
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        DataFile file = allocateAndDescribe(client, 5);
        // polling, not sleeping a fixed time: the allocation is reported once it has expired
        FindOrphansRequest check = FindOrphansRequest.newBuilder().setNodeId("node-a").addFileIds(file.getFileId()).build();
        awaitCondition("the allocation expires", () -> client.findOrphans(check).getOrphanFileIdsCount() == 1);
        assertStatus(
                () -> client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addFiles(file).build()),
                FAILED_PRECONDITION,
                "Cannot commit: file id %s was allocated too long ago (allocation timeout 1s)".formatted(file.getFileId()));
    }

    @Test
    void testReplaceReplica()
            throws Exception
    {
        MetadataServer server = startServer();
        MetadataServiceBlockingStub client = client(server);
        client.registerNode(registration("node-a", "127.0.0.1:17001"));
        client.registerNode(registration("node-b", "127.0.0.1:17002"));
        // full: never chosen for a file of known size
        client.registerNode(registration("node-full", "127.0.0.1:17009").toBuilder().setFreeBytes(0).build());
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());

        FileAllocation allocation = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build()).getFiles(0);
        String fileId = allocation.getFileId();
        String failed = allocation.getReplicas(0).getNodeId();
        assertThat(failed).isNotEqualTo("node-full");
        String other = failed.equals("node-a") ? "node-b" : "node-a";

        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).addFailedNodeIds(other).setSizeBytes(100).build()), INVALID_ARGUMENT,
                "Storage node %s is not allocated to hold file %s (allocated: %s)".formatted(other, fileId, failed));
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).setSizeBytes(-1).build()), INVALID_ARGUMENT,
                "File size must not be negative, got -1");
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).setSizeBytes(9L << 30).build()), FAILED_PRECONDITION,
                "No storage node is left for another replica of file %s (allocated: %s): the other live storage nodes (%s) last reported less than %s bytes free".formatted(
                        fileId, failed, failed.equals("node-a") ? "node-b, node-full" : "node-a, node-full", 9L << 30));

        FileAllocation replacement = client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).addFailedNodeIds(failed).setSizeBytes(100).build());
        assertThat(replacement.getFileId()).isEqualTo(fileId);
        assertThat(replacement.getReplicasList()).extracting(StorageNode::getNodeId, StorageNode::getAddress, StorageNode::getAlive)
                .containsExactly(tuple(other, other.equals("node-a") ? "127.0.0.1:17001" : "127.0.0.1:17002", true));
        assertThat(replacement.getGrantsList()).extracting(UploadGrant::getNodeId, UploadGrant::getFileId).containsExactly(tuple(other, fileId));

        // node-b (say) is allocated now, node-full has no room: nothing is left
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).addFailedNodeIds(other).setSizeBytes(100).build()), FAILED_PRECONDITION,
                "No storage node is left for another replica of file %s (allocated: %s, %s): the other live storage nodes (node-full) last reported less than 100 bytes free".formatted(fileId, failed, other));
        // of unknown size, the full node is still a candidate
        FileAllocation last = client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).build());
        assertThat(last.getReplicasList()).extracting(StorageNode::getNodeId).containsExactly("node-full");
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).build()), FAILED_PRECONDITION,
                "No storage node is left for another replica of file %s (allocated: %s, %s, node-full): every live storage node is already allocated to hold it".formatted(fileId, failed, other));

        // the commit may name the replacement, which the allocation now holds
        DataFile file = DataFile.newBuilder()
                .setFileId(fileId)
                .setRowCount(5)
                .setSizeBytes(100)
                .addReplicaNodeIds(other)
                .setCompactStats(compactStats(5))
                .build();
        assertThat(client.commitFiles(CommitFilesRequest.newBuilder().setSchemaName("s").setTableName("t").addAllColumns(COLUMNS).setCreateTable(true).addFiles(file).build()).getTableCreated()).isTrue();
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId(fileId).build()), NOT_FOUND,
                "File %s has no open allocation: it is committed to table s.t, and its replicas no longer change".formatted(fileId));
        assertStatus(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId("0123456789abcdef0123456789abcdef").build()), NOT_FOUND,
                "File 0123456789abcdef0123456789abcdef has no open allocation: its id was not issued by AllocateFiles, or its table was dropped");
        assertStatusContains(() -> client.replaceReplica(ReplaceReplicaRequest.newBuilder().setFileId("nope").build()), INVALID_ARGUMENT, "Invalid file id 'nope'");

        assertThat(httpGet(server, "/v1/metrics")).contains("replicas_replaced 2\n");
    }

    private static DataFile allocateAndDescribe(MetadataServiceBlockingStub client, long rows)
    {
        FileAllocation allocation = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(1).setReplication(1).build()).getFiles(0);
        return DataFile.newBuilder()
                .setFileId(allocation.getFileId())
                .setRowCount(rows)
                .setSizeBytes(100)
                .addAllReplicaNodeIds(allocation.getReplicasList().stream().map(StorageNode::getNodeId).toList())
                .setCompactStats(compactStats(rows))
                .build();
    }

    private static void awaitCondition(String description, BooleanSupplier condition)
    {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting until " + description);
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    private MetadataServer startServer()
    {
        return startServer(Map.of());
    }

    private MetadataServer startServer(Map<String, String> extraProperties)
    {
        MetadataServer server = MetadataServer.start(ImmutableMap.<String, String>builder()
                .put("metadata.data-dir", dataDir.resolve("metadata").toString())
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "0")
                // the catalog's behaviour, one client playing every role: TestMetadataSecurity covers TLS and roles
                .put("metadata.tls.insecure", "true")
                .putAll(extraProperties)
                // extra properties override the defaults above
                .buildKeepingLast());
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
        ManagedChannel channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), TransportSecurity.insecure());
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
