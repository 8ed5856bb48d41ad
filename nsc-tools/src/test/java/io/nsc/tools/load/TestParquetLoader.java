package io.nsc.tools.load;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.parquet.LocalParquetDataSource;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RemovedRowGroups;
import io.nsc.protocol.proto.SetCommentRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.server.StorageServer;
import io.nsc.tools.NscTool;
import io.nsc.tools.ParquetTestFiles;
import io.nsc.tools.tpch.TpchGeneratorOptions;
import io.nsc.tools.tpch.TpchParquetGenerator;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/** The loader against a real metadata service and three real storage nodes, all in this JVM. */
final class TestParquetLoader
{
    private static final int STORAGE_NODES = 3;
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final LoadOptions TWO_REPLICAS = LoadOptions.defaults().withReplication(2);
    private static final AtomicInteger tableCounter = new AtomicInteger();

    @TempDir
    static Path workDir;

    private static Path tpchDir;
    private static MetadataServer metadataServer;
    private static final List<StorageServer> storageServers = new ArrayList<>();
    private static ManagedChannel metadataChannel;
    private static MetadataServiceBlockingStub metadata;
    private static String metadataAddress;
    private static TransportSecurity security;
    private static TlsFiles clientFiles;
    private static TlsFiles storageFiles;

    @BeforeAll
    static void startCluster()
            throws Exception
    {
        tpchDir = workDir.resolve("tpch");
        new TpchParquetGenerator().generate(0.01, tpchDir, TpchGeneratorOptions.defaults()
                .withTables(List.of("lineitem", "nation", "region"))
                .withRowsPerRowGroup(7_000)
                .withRowsPerFile(25_000));

        // the loader as operators run it: mutual TLS, grants for every upload, attested statistics
        ClusterCertificates certificates = ClusterCertificates.openOrCreate(workDir.resolve("tls"));
        metadataServer = MetadataServer.start(ImmutableMap.<String, String>builder()
                .put("metadata.data-dir", workDir.resolve("metadata").toString())
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "0")
                // a page holds a lineitem's files, and no more: info pages through larger tables
                .put("metadata.table-files-page-max-files", "3")
                .putAll(certificates.issue(ComponentRole.METADATA, "metadata", List.of()).toProperties("metadata"))
                .buildOrThrow());
        metadataAddress = "127.0.0.1:" + metadataServer.grpcPort();
        for (int node = 0; node < STORAGE_NODES; node++) {
            storageServers.add(StorageServer.start(ImmutableMap.<String, String>builder()
                    .put("storage.node-id", "node-" + node)
                    .put("storage.data-dirs", workDir.resolve("storage-" + node).toString())
                    .put("storage.grpc-port", "0")
                    .put("storage.http-port", "0")
                    .put("storage.metadata-address", metadataAddress)
                    .putAll(certificates.issue(ComponentRole.STORAGE, "node-" + node, List.of()).toProperties("storage"))
                    .buildOrThrow()));
        }
        clientFiles = certificates.issue(ComponentRole.CLIENT, "loader", List.of());
        storageFiles = certificates.issue(ComponentRole.STORAGE, "node-0", List.of());
        security = clientFiles.toTransportSecurity();
        metadataChannel = GrpcChannels.forAddress(metadataAddress, security);
        metadata = MetadataServiceGrpc.newBlockingStub(metadataChannel);
        awaitLiveNodes(STORAGE_NODES);
    }

    @AfterAll
    static void stopCluster()
    {
        if (metadataChannel != null) {
            GrpcChannels.close(metadataChannel);
        }
        storageServers.forEach(StorageServer::close);
        if (metadataServer != null) {
            metadataServer.close();
        }
    }

    @Test
    void loadsGeneratedTable()
            throws Exception
    {
        String table = newTableName();
        List<String> progress = new ArrayList<>();
        LoadResult result = new ParquetLoader(security, progress::add).load(metadataAddress, "tpch", table, List.of(tpchDir.resolve("lineitem")), TWO_REPLICAS);

        assertThat(result.tableCreated()).isTrue();
        assertThat(result.rows()).isEqualTo(60_175);
        assertThat(result.files()).extracting(file -> file.path().getFileName().toString())
                .containsExactly("lineitem-000.parquet", "lineitem-001.parquet", "lineitem-002.parquet");
        assertThat(progress).anyMatch(line -> line.startsWith("uploaded"));

        TableInfo info = metadata.getTable(GetTableRequest.newBuilder().setSchemaName("tpch").setTableName(table).build());
        assertThat(info.getVersion()).isEqualTo(result.tableVersion());
        assertThat(info.getRowCount()).isEqualTo(60_175);
        assertThat(info.getFileCount()).isEqualTo(3);
        assertThat(info.getColumnsList()).extracting(Column::getName).startsWith("l_orderkey", "l_partkey").endsWith("l_comment");
        assertThat(info.getColumnsList()).contains(column("l_shipdate", "date"), column("l_quantity", "double"), column("l_returnflag", "varchar"));

        GetTableFilesResponse files = metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(info.getTableId()).build());
        assertThat(files.getVersion()).isEqualTo(result.tableVersion());
        assertThat(files.getFilesList()).hasSize(3);
        Map<String, Long> expectedRows = result.files().stream()
                .collect(toImmutableMap(LoadedFile::fileId, file -> footerRowCount(file.path())));
        for (DataFile file : files.getFilesList()) {
            assertThat(file.getReplicaNodeIdsList()).hasSize(2).doesNotHaveDuplicates();
            assertThat(file.getRowCount()).isEqualTo(expectedRows.get(file.getFileId()));
            assertThat(file.getCompactStats().isEmpty()).isFalse();
        }
        assertThat(files.getNodesList()).extracting(StorageNode::getNodeId)
                .containsAll(files.getFilesList().stream().flatMap(file -> file.getReplicaNodeIdsList().stream()).collect(toImmutableList()));
    }

    @Test
    void infoCommandDescribesTheLoadedTable()
    {
        String table = newTableName();
        new ParquetLoader(security).load(metadataAddress, "tpch", table, List.of(tpchDir.resolve("nation")), TWO_REPLICAS);
        // 6 files: more than one answer of the service holds, listed in pages
        String large = newTableName();
        new ParquetLoader(security).load(metadataAddress, "tpch", large, List.of(tpchDir.resolve("lineitem")), TWO_REPLICAS);
        new ParquetLoader(security).load(metadataAddress, "tpch", large, List.of(tpchDir.resolve("lineitem")), TWO_REPLICAS);
        ByteArrayOutputStream largeOut = new ByteArrayOutputStream();
        assertThat(NscTool.run(infoCommand("tpch." + large, clientFiles), new PrintStream(largeOut, true, UTF_8), new PrintStream(new ByteArrayOutputStream(), true, UTF_8))).isZero();
        assertThat(largeOut.toString(UTF_8))
                .contains("table tpch.%s version 2: 16 columns, 6 files, 120,350 rows".formatted(large))
                .satisfies(text -> assertThat(text.lines().filter(line -> line.startsWith("file ")).distinct()).hasSize(6));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = NscTool.run(infoCommand("tpch." + table, clientFiles), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
        assertThat(status).as(err.toString(UTF_8)).isZero();

        // a storage node's certificate is no client's: the catalog is not its to read
        ByteArrayOutputStream denied = new ByteArrayOutputStream();
        assertThat(NscTool.run(infoCommand("tpch." + table, storageFiles), new PrintStream(new ByteArrayOutputStream(), true, UTF_8), new PrintStream(denied, true, UTF_8)))
                .isEqualTo(NscTool.EXIT_FAILED);
        assertThat(denied.toString(UTF_8)).contains("PERMISSION_DENIED").contains("storage:node-0 may not call nsc.v1.MetadataService/GetTable");

        // nation: 4 columns, 25 rows in one row group
        assertThat(out.toString(UTF_8))
                .contains("table tpch.%s version 1: 4 columns, 1 files, 25 rows".formatted(table))
                .contains("1 row groups, 4 column chunks")
                .containsPattern("compact stats: [0-9,]+ bytes in all, [0-9.]+ bytes per column chunk");
        assertThat(NscTool.run(infoCommand("tpch.no_such_table", clientFiles), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8)))
                .isEqualTo(NscTool.EXIT_FAILED);
        assertThat(err.toString(UTF_8)).contains("NOT_FOUND");
    }

    private static List<String> infoCommand(String table, TlsFiles identity)
    {
        return List.of("info", "--metadata", metadataAddress, table,
                "--certificate", identity.certificate().toString(), "--key", identity.key().toString(), "--ca", identity.ca().toString());
    }

    @Test
    void infoCommandCountsOnlyWhatDeletesLeft()
    {
        // 25,000 rows in row groups of 7,000, 7,000, 7,000 and 4,000
        String table = newTableName();
        new ParquetLoader(security).load(metadataAddress, "tpch", table, List.of(tpchDir.resolve("lineitem/lineitem-000.parquet")), TWO_REPLICAS);
        TableInfo info = tableInfo("tpch", table).orElseThrow();
        String fileId = metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(info.getTableId()).build()).getFiles(0).getFileId();
        metadata.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("tpch")
                .setTableName(table)
                .addAllColumns(info.getColumnsList())
                .setExpectedTableId(info.getTableId())
                .setRemovals(FileRemovals.newBuilder()
                        .setReadVersion(info.getVersion())
                        .addRemovedRowGroups(RemovedRowGroups.newBuilder().setFileId(fileId).addRowGroups(0)))
                .build());

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(NscTool.run(infoCommand("tpch." + table, clientFiles), new PrintStream(out, true, UTF_8), new PrintStream(new ByteArrayOutputStream(), true, UTF_8))).isZero();
        assertThat(out.toString(UTF_8))
                .contains("file %s: 18,000 rows, ".formatted(fileId))
                .contains(" 3 row groups (1 more removed by DELETEs), replicas ")
                .contains("table tpch.%s version 2: 16 columns, 1 files, 18,000 rows, ".formatted(table))
                .contains(", 3 row groups, ");
    }

    @Test
    void keepsTheBloomFiltersOfLoadedFilesFolded()
            throws Exception
    {
        // 3,000 distinct values in a filter trino-parquet sized for 100,000
        Path directory = Files.createDirectories(workDir.resolve("bloom"));
        Path file = directory.resolve("ids.parquet");
        ParquetTestFiles.writeFileWithTrinoBloomFilter(file, 3000);
        // 3,000 bigints take about 24KB: most of the file is the filter
        assertThat(Files.size(file)).isGreaterThan(64 * 1024);

        String table = newTableName();
        new ParquetLoader(security).load(metadataAddress, "tpch", table, List.of(file), TWO_REPLICAS);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(NscTool.run(infoCommand("tpch." + table, clientFiles), new PrintStream(out, true, UTF_8), new PrintStream(new ByteArrayOutputStream(), true, UTF_8))).isZero();
        // at 1% false positives 3,000 values take 4KB or 8KB, the power of two folding reaches
        assertThat(out.toString(UTF_8)).containsPattern("bloom filter id: 1 of 1 row groups, (4,096|8,192) bytes");
    }

    @Test
    void usesTheNextMetadataServiceWhenTheFirstIsDown()
            throws IOException
    {
        String addresses = "127.0.0.1:" + unusedPort() + "," + metadataAddress;
        String table = newTableName();
        LoadResult result = new ParquetLoader(security).load(addresses, "tpch", table, List.of(tpchDir.resolve("nation/nation-000.parquet")), TWO_REPLICAS);
        assertThat(result.tableCreated()).isTrue();
        assertThat(tableInfo("tpch", table).orElseThrow().getRowCount()).isEqualTo(25);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> info = new ArrayList<>(infoCommand("tpch." + table, clientFiles));
        info.set(info.indexOf(metadataAddress), addresses);
        assertThat(NscTool.run(info, new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8))).isEqualTo(NscTool.EXIT_OK);
        assertThat(out.toString(UTF_8)).contains("table tpch.%s version 1".formatted(table));
    }

    private static int unusedPort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void appendsToExistingTable()
    {
        String table = newTableName();
        Path nation = tpchDir.resolve("nation/nation-000.parquet");
        ParquetLoader loader = new ParquetLoader(security);
        LoadResult first = loader.load(metadataAddress, "tpch", table, List.of(nation), TWO_REPLICAS);
        LoadResult second = loader.load(metadataAddress, "tpch", table, List.of(nation), TWO_REPLICAS);

        assertThat(first.tableCreated()).isTrue();
        assertThat(second.tableCreated()).isFalse();
        assertThat(second.tableVersion()).isGreaterThan(first.tableVersion());
        assertThat(second.files().getFirst().fileId()).isNotEqualTo(first.files().getFirst().fileId());

        TableInfo info = tableInfo("tpch", table).orElseThrow();
        assertThat(info.getFileCount()).isEqualTo(2);
        assertThat(info.getRowCount()).isEqualTo(50);
        assertThat(fileIds(info)).containsExactlyInAnyOrder(first.files().getFirst().fileId(), second.files().getFirst().fileId());
    }

    @Test
    void refusesDirectoryWithNonParquetFile()
            throws IOException
    {
        Path directory = Files.createDirectories(workDir.resolve("with-junk"));
        Files.copy(tpchDir.resolve("nation/nation-000.parquet"), directory.resolve("a-nation.parquet"));
        Files.writeString(directory.resolve("b-junk.parquet"), "this is a text file that only pretends to be Parquet\n".repeat(10));
        assertRefusedForNewAndExistingTable(List.of(directory), "b-junk.parquet");
    }

    @Test
    void refusesTruncatedFile()
            throws IOException
    {
        Path truncated = workDir.resolve("truncated-lineitem.parquet");
        byte[] bytes = Files.readAllBytes(tpchDir.resolve("lineitem/lineitem-002.parquet"));
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
        assertRefusedForNewAndExistingTable(List.of(tpchDir.resolve("nation/nation-000.parquet"), truncated), "truncated-lineitem.parquet");
    }

    @Test
    void refusesNestedColumns()
            throws IOException
    {
        Path nested = workDir.resolve("nested.parquet");
        ParquetTestFiles.writeNestedFile(nested);
        assertRefusedForNewAndExistingTable(List.of(nested), "nested.parquet");
        assertThatThrownBy(() -> new ParquetLoader(security).load(metadataAddress, "tpch", newTableName(), List.of(nested), TWO_REPLICAS))
                .hasMessageContaining("nested");
    }

    @Test
    void refusesFilesWithDifferentColumns()
    {
        Path nation = tpchDir.resolve("nation/nation-000.parquet");
        Path region = tpchDir.resolve("region/region-000.parquet");
        String message = assertRefusedForNewAndExistingTable(List.of(nation, region), "region-000.parquet");
        assertThat(message)
                .contains("nation-000.parquet")
                .contains("column 1 is n_nationkey bigint in file %s but r_regionkey bigint in file %s".formatted(nation, region));
    }

    @Test
    void loadsIntoTableWithCommentsButNotAfterColumnChanges()
    {
        String table = newTableName();
        List<Path> nation = List.of(tpchDir.resolve("nation/nation-000.parquet"));
        new ParquetLoader(security).load(metadataAddress, "tpch", table, nation, TWO_REPLICAS);
        // a comment describes a column: files without it still fit the table
        metadata.setComment(SetCommentRequest.newBuilder().setSchemaName("tpch").setTableName(table).setColumnName("n_name").setComment("the name").build());
        assertThat(new ParquetLoader(security).load(metadataAddress, "tpch", table, nation, TWO_REPLICAS).tableVersion()).isEqualTo(2);

        // a dropped column keeps its slot, which no loaded file can fill
        metadata.alterColumn(AlterColumnRequest.newBuilder().setSchemaName("tpch").setTableName(table).setDropColumn("n_comment").build());
        TableInfo before = tableInfo("tpch", table).orElseThrow();
        assertThatThrownBy(() -> new ParquetLoader(security).load(metadataAddress, "tpch", table, nation, TWO_REPLICAS))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("column 4 is n_comment varchar (dropped) in table tpch." + table)
                .hasMessageEndingWith("nothing was loaded");
        assertThat(fileIds(tableInfo("tpch", table).orElseThrow())).isEqualTo(fileIds(before));
    }

    @Test
    void refusesFilesThatDoNotMatchTheTable()
    {
        String table = newTableName();
        LoadResult nation = new ParquetLoader(security).load(metadataAddress, "tpch", table, List.of(tpchDir.resolve("nation/nation-000.parquet")), TWO_REPLICAS);
        TableInfo before = tableInfo("tpch", table).orElseThrow();

        assertThatThrownBy(() -> new ParquetLoader(security).load(metadataAddress, "tpch", table, List.of(tpchDir.resolve("region")), TWO_REPLICAS))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("do not match table tpch." + table)
                .hasMessageContaining("n_nationkey bigint")
                .hasMessageContaining("r_regionkey bigint")
                .hasMessageEndingWith("nothing was loaded");

        TableInfo after = tableInfo("tpch", table).orElseThrow();
        assertThat(after.getVersion()).isEqualTo(before.getVersion()).isEqualTo(nation.tableVersion());
        assertThat(fileIds(after)).isEqualTo(fileIds(before));
    }

    @Test
    void refusesCorruptDataPage()
            throws IOException
    {
        Path corrupt = workDir.resolve("corrupt-lineitem.parquet");
        Files.copy(tpchDir.resolve("lineitem/lineitem-002.parquet"), corrupt);
        ColumnChunkMetadata chunk = columnChunk(corrupt, 1, "l_comment");
        // garble the middle of the chunk's compressed pages; the footer stays intact
        try (RandomAccessFile file = new RandomAccessFile(corrupt.toFile(), "rw")) {
            byte[] garbage = new byte[(int) Math.min(256, chunk.getTotalSize() / 2)];
            Arrays.fill(garbage, (byte) 0x5A);
            file.seek(chunk.getStartingPos() + chunk.getTotalSize() / 4);
            file.write(garbage);
        }
        String message = assertRefusedForNewAndExistingTable(List.of(corrupt), "corrupt-lineitem.parquet");
        assertThat(message).contains("corrupt data in column l_comment, row group 1: ");
    }

    @Test
    void refusesEmptyDirectory()
            throws IOException
    {
        Path empty = Files.createDirectories(workDir.resolve("empty"));
        Files.writeString(empty.resolve("notes.txt"), "no parquet here");
        assertThatThrownBy(() -> new ParquetLoader(security).load(metadataAddress, "tpch", newTableName(), List.of(empty), TWO_REPLICAS))
                .hasMessage("no *.parquet files in directory %s; nothing was loaded".formatted(empty));
    }

    @Test
    void refusesUnreachableMetadataService()
    {
        // validation passes; the failure comes at the first call, before any upload
        assertThatThrownBy(() -> new ParquetLoader(security).load("127.0.0.1:1", "tpch", newTableName(), List.of(tpchDir.resolve("nation")), TWO_REPLICAS))
                .isInstanceOf(LoadException.class)
                .hasMessageContaining("UNAVAILABLE")
                .hasMessageEndingWith("nothing was loaded");
    }

    /**
     * Loads into a new table and into an existing one; both must be refused with a message naming
     * the file, and leave the catalog exactly as it was.
     *
     * @return the refusal's message
     */
    private static String assertRefusedForNewAndExistingTable(List<Path> paths, String fileNamed)
    {
        String newTable = newTableName();
        String message = refusal(newTable, paths);
        assertThat(message).contains(fileNamed).endsWith("nothing was loaded");
        assertThat(tableInfo("refused", newTable)).isEmpty();
        assertThat(metadata.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).doesNotContain("refused");

        String existingTable = newTableName();
        new ParquetLoader(security).load(metadataAddress, "tpch", existingTable, List.of(tpchDir.resolve("nation/nation-000.parquet")), TWO_REPLICAS);
        TableInfo before = tableInfo("tpch", existingTable).orElseThrow();
        String existingMessage = assertThrows(() -> new ParquetLoader(security).load(metadataAddress, "tpch", existingTable, paths, TWO_REPLICAS));
        assertThat(existingMessage).contains(fileNamed).endsWith("nothing was loaded");
        TableInfo after = tableInfo("tpch", existingTable).orElseThrow();
        assertThat(after.getVersion()).isEqualTo(before.getVersion());
        assertThat(fileIds(after)).isEqualTo(fileIds(before));
        return message;
    }

    private static String refusal(String table, List<Path> paths)
    {
        return assertThrows(() -> new ParquetLoader(security).load(metadataAddress, "refused", table, paths, TWO_REPLICAS));
    }

    private static String assertThrows(Runnable load)
    {
        try {
            load.run();
        }
        catch (LoadException e) {
            return e.getMessage();
        }
        return fail("the load was not refused");
    }

    private static Optional<TableInfo> tableInfo(String schema, String table)
    {
        try {
            return Optional.of(metadata.getTable(GetTableRequest.newBuilder().setSchemaName(schema).setTableName(table).build()));
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    private static List<String> fileIds(TableInfo table)
    {
        return metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(table.getTableId()).build())
                .getFilesList().stream()
                .map(DataFile::getFileId)
                .sorted()
                .collect(toImmutableList());
    }

    private static long footerRowCount(Path file)
    {
        try {
            return ParquetFooterParser.parse(file).rowCount();
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static ColumnChunkMetadata columnChunk(Path file, int rowGroup, String column)
            throws IOException
    {
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, ParquetReaderOptions.defaultOptions())) {
            ParquetMetadata metadata = MetadataReader.readFooter(source, Optional.empty());
            return metadata.getBlocks().get(rowGroup).columns().stream()
                    .filter(chunk -> chunk.getPath().toDotString().equals(column))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static Column column(String name, String type)
    {
        return Column.newBuilder().setName(name).setType(type).build();
    }

    private static String newTableName()
    {
        return "t" + tableCounter.incrementAndGet();
    }

    private static void awaitLiveNodes(int count)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (true) {
            List<StorageNode> nodes = metadata.listNodes(ListNodesRequest.getDefaultInstance()).getNodesList();
            long alive = nodes.stream().filter(StorageNode::getAlive).map(StorageNode::getNodeId).distinct().count();
            if (alive >= count) {
                return;
            }
            if (System.nanoTime() > deadline) {
                fail("only %s of %s storage nodes registered: %s".formatted(alive, count, nodes));
            }
            Thread.sleep(100);
        }
    }
}
