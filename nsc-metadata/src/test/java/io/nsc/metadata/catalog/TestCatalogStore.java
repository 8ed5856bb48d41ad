package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static org.assertj.core.api.Assertions.assertThat;

final class TestCatalogStore
{
    private static final SchemaTableName LINEITEM = new SchemaTableName("tpch", "lineitem");
    private static final List<TableColumn> LINEITEM_COLUMNS = List.of(
            new TableColumn("l_orderkey", "bigint"),
            new TableColumn("l_partkey", "bigint"),
            new TableColumn("l_quantity", "double"),
            new TableColumn("l_shipdate", "date"));

    @TempDir
    Path dataDir;

    private CatalogDatabase database;
    private CatalogStore catalog;
    private int nextFileId;

    @BeforeEach
    void setUp()
    {
        open();
        catalog.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 900, 0, 1), List.of());
        catalog.registerNode(new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 1), List.of());
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testSchemas()
    {
        assertThat(catalog.listSchemas()).isEmpty();
        assertThat(catalog.createSchema("tpch", false)).isTrue();
        assertThat(catalog.createSchema("tpch", true)).isFalse();
        assertThat(catalog.createSchema("a_1", false)).isTrue();
        assertThat(catalog.listSchemas()).containsExactly("a_1", "tpch");

        assertStatus(() -> catalog.createSchema("tpch", false), ALREADY_EXISTS, "Schema tpch already exists");
        assertStatusContains(() -> catalog.createSchema("TPCH", false), INVALID_ARGUMENT, "Invalid schema name 'TPCH'");
        assertStatusContains(() -> catalog.createSchema("1abc", false), INVALID_ARGUMENT, "Invalid schema name '1abc'");
        assertStatusContains(() -> catalog.createSchema("a-b", false), INVALID_ARGUMENT, "Invalid schema name 'a-b'");
        assertStatusContains(() -> catalog.createSchema("x".repeat(129), false), INVALID_ARGUMENT, "Invalid schema name");
        assertStatus(() -> catalog.createSchema("", false), INVALID_ARGUMENT, "The schema name is empty");
        assertStatus(() -> catalog.createSchema("information_schema", false), INVALID_ARGUMENT, "Schema name information_schema is reserved");
        assertThat(catalog.createSchema("x".repeat(128), false)).isTrue();
    }

    @Test
    void testCommitCreatesTableAndReadsBack()
    {
        catalog.createSchema("tpch", false);
        FileEntry first = file(100, "node-a", "node-b");
        FileEntry second = file(50, "node-b", "node-a");
        allocate(first, second);

        CommitResult result = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, second), OptionalLong.empty()));
        assertThat(result.tableCreated()).isTrue();
        assertThat(result.version()).isEqualTo(1);

        TableEntry table = catalog.getTable(LINEITEM).orElseThrow();
        assertThat(table.tableId()).isEqualTo(result.tableId());
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.columns()).isEqualTo(LINEITEM_COLUMNS);
        assertThat(table.rowCount()).isEqualTo(150);
        assertThat(table.fileCount()).isEqualTo(2);
        assertThat(table.sizeBytes()).isEqualTo(first.sizeBytes() + second.sizeBytes());

        TableFiles files = catalog.getTableFiles(result.tableId()).orElseThrow();
        assertThat(files.version()).isEqualTo(1);
        assertThat(files.files()).containsExactly(first, second);
        assertThat(catalog.listAllocations()).isEmpty();
        assertThat(catalog.listTables(Optional.of("tpch"))).containsExactly(LINEITEM);

        // an insert into the existing table: a new version with the old and new files
        FileEntry third = file(7, "node-a");
        allocate(third);
        CommitResult insert = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(third), OptionalLong.of(1)));
        assertThat(insert).isEqualTo(new CommitResult(result.tableId(), 2, false));
        assertThat(catalog.getTableFiles(result.tableId()).orElseThrow().files()).containsExactly(first, second, third);
        assertThat(catalog.getTable(LINEITEM).orElseThrow().rowCount()).isEqualTo(157);
    }

    @Test
    void testEmptyCommitCreatesTable()
    {
        catalog.createSchema("tpch", false);
        CommitResult result = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        assertThat(result.tableCreated()).isTrue();
        assertThat(catalog.getTableFiles(result.tableId()).orElseThrow().files()).isEmpty();
    }

    @Test
    void testListTables()
    {
        catalog.createSchema("tpch", false);
        catalog.createSchema("other", false);
        catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        catalog.commit(commit(new SchemaTableName("tpch", "orders"), LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        catalog.commit(commit(new SchemaTableName("other", "t"), LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));

        assertThat(catalog.listTables(Optional.empty())).containsExactly(
                new SchemaTableName("other", "t"),
                LINEITEM,
                new SchemaTableName("tpch", "orders"));
        assertThat(catalog.listTables(Optional.of("other"))).containsExactly(new SchemaTableName("other", "t"));
        assertStatus(() -> catalog.listTables(Optional.of("missing")), NOT_FOUND, "Schema missing does not exist");
        assertStatus(() -> catalog.listTables(Optional.of("Bad Name")), NOT_FOUND, "Schema Bad Name does not exist");
        assertThat(catalog.getTable(new SchemaTableName("tpch", "missing"))).isEmpty();
        assertThat(catalog.getTableFiles(12345)).isEmpty();
    }

    @Test
    void testCommitOfUnknownAllocationWritesNothing()
    {
        catalog.createSchema("tpch", false);
        FileEntry allocated = file(10, "node-a");
        FileEntry notAllocated = file(10, "node-a");
        allocate(allocated);

        assertStatus(
                () -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(allocated, notAllocated), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "File %s has no open allocation: its id was not issued by AllocateFiles".formatted(notAllocated.fileId()));

        assertNothingCommitted();
        assertThat(catalog.listAllocations()).extracting(Allocation::fileId).containsExactly(allocated.fileId());
    }

    @Test
    void testCommitWithDifferentColumnsWritesNothing()
    {
        catalog.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        allocate(first);
        CommitResult created = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first), OptionalLong.empty()));

        FileEntry second = file(10, "node-a");
        allocate(second);
        List<TableColumn> changedType = List.of(LINEITEM_COLUMNS.get(0), LINEITEM_COLUMNS.get(1), new TableColumn("l_quantity", "bigint"), LINEITEM_COLUMNS.get(3));
        assertStatus(
                () -> catalog.commit(commit(LINEITEM, changedType, false, List.of(second), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "Columns of table tpch.lineitem do not match the files: column 3: table has l_quantity double, files have l_quantity bigint");
        assertStatus(
                () -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS.subList(0, 3), false, List.of(second), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "Columns of table tpch.lineitem do not match the files: column 4: table has l_shipdate date, files have no such column");

        assertThat(catalog.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
        assertThat(catalog.getTableFiles(created.tableId()).orElseThrow().files()).containsExactly(first);
        assertThat(catalog.listAllocations()).extracting(Allocation::fileId).containsExactly(second.fileId());
    }

    @Test
    void testCommitAtWrongVersionIsAborted()
    {
        catalog.createSchema("tpch", false);
        catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        FileEntry file = file(10, "node-a");
        allocate(file);

        assertStatus(
                () -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(7))),
                ABORTED,
                "Table tpch.lineitem is at version 1, but the commit expects version 7");
        assertStatus(
                () -> catalog.commit(commit(new SchemaTableName("tpch", "fresh"), LINEITEM_COLUMNS, true, List.of(file), OptionalLong.of(3))),
                ABORTED,
                "Table tpch.fresh does not exist, but the commit expects it at version 3");

        assertThat(catalog.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
        assertThat(catalog.getTable(new SchemaTableName("tpch", "fresh"))).isEmpty();
        assertThat(catalog.listAllocations()).hasSize(1);
    }

    @Test
    void testConcurrentCommitsAtTheSameVersion()
            throws Exception
    {
        catalog.createSchema("tpch", false);
        catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        List<FileEntry> files = IntStream.range(0, 8).mapToObj(_ -> file(10, "node-a")).toList();
        allocate(files.toArray(FileEntry[]::new));

        // writers that all read version 1: exactly one may win, the others must retry
        List<Callable<Boolean>> writers = files.stream()
                .<Callable<Boolean>>map(file -> () -> {
                    try {
                        catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(1)));
                        return true;
                    }
                    catch (StatusRuntimeException e) {
                        assertThat(e.getStatus().getCode()).isEqualTo(ABORTED);
                        return false;
                    }
                })
                .toList();
        try (ExecutorService executor = Executors.newFixedThreadPool(4)) {
            List<Boolean> outcomes = new ArrayList<>();
            for (Future<Boolean> future : executor.invokeAll(writers)) {
                outcomes.add(future.get());
            }
            assertThat(outcomes).containsOnlyOnce(true);
        }
        TableEntry table = catalog.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(2);
        assertThat(table.fileCount()).isEqualTo(1);
        assertThat(catalog.listAllocations()).hasSize(7);
    }

    @Test
    void testFileCannotBeCommittedTwice()
    {
        catalog.createSchema("tpch", false);
        FileEntry file = file(10, "node-a");
        allocate(file);
        catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty()));

        assertStatus(
                () -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "File %s is already committed to table tpch.lineitem".formatted(file.fileId()));
        assertThat(catalog.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void testCommitChecks()
    {
        FileEntry file = file(10, "node-a");
        allocate(file);

        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty())), NOT_FOUND, "Schema tpch does not exist");
        catalog.createSchema("tpch", false);
        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.empty())), NOT_FOUND, "Table tpch.lineitem does not exist");
        assertStatusContains(() -> catalog.commit(commit(new SchemaTableName("tpch", "Bad"), LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid table name 'Bad'");
        assertStatus(() -> catalog.commit(commit(LINEITEM, List.of(), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "A table needs at least one column");
        assertStatusContains(() -> catalog.commit(commit(LINEITEM, List.of(new TableColumn("A", "bigint")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid column name 'A'");
        assertStatus(() -> catalog.commit(commit(LINEITEM, List.of(new TableColumn("a", "bigint"), new TableColumn("a", "double")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Duplicate column name a");
        assertStatus(() -> catalog.commit(commit(LINEITEM, List.of(new TableColumn("a", " ")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Column a has no type");
        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file, file), OptionalLong.empty())), INVALID_ARGUMENT, "File %s appears twice in the commit".formatted(file.fileId()));

        FileEntry badId = new FileEntry("../../etc/passwd", 1, 10, 0, compactStats(10), List.of("node-a"));
        assertStatusContains(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(badId), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid file id '../../etc/passwd'");
        FileEntry noReplicas = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of());
        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(noReplicas), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has no replicas".formatted(file.fileId()));
        FileEntry twice = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of("node-a", "node-a"));
        assertStatusContains(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(twice), OptionalLong.empty())), INVALID_ARGUMENT, "names a replica node twice");
        FileEntry badStats = new FileEntry(file.fileId(), 1, 10, 0, ByteString.copyFromUtf8("not stats"), List.of("node-a"));
        assertStatusContains(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(badStats), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has invalid compact stats".formatted(file.fileId()));
        FileEntry wrongRows = new FileEntry(file.fileId(), 1, 11, 0, compactStats(10), List.of("node-a"));
        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(wrongRows), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has row count 11 but its compact stats say 10".formatted(file.fileId()));
        FileEntry unknownNode = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of("node-a", "node-x"));
        assertStatus(() -> catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(unknownNode), OptionalLong.empty())), FAILED_PRECONDITION,
                "File %s names replica node node-x, which is not a registered storage node".formatted(file.fileId()));

        assertNothingCommitted();
        assertThat(catalog.listAllocations()).hasSize(1);
    }

    @Test
    void testReplicaSyncOnRegistration()
    {
        catalog.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        FileEntry second = file(10, "node-a", "node-b");
        allocate(first, second);
        long tableId = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, second), OptionalLong.empty())).tableId();

        // node-b also has the first file (say, repaired), and reports ids the catalog does not know
        ReplicaSync sync = catalog.registerNode(new NodeEntry("node-b", "127.0.0.1:7012", 1000, 800, 4, 2), List.of(first.fileId(), second.fileId(), "ffffffffffffffffffffffffffffffff", "junk"));
        assertThat(sync).isEqualTo(new ReplicaSync(1, 0));
        // node-a lost the second file
        assertThat(catalog.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 800, 1, 2), List.of(first.fileId()))).isEqualTo(new ReplicaSync(0, 1));

        assertThat(catalog.getTableFiles(tableId).orElseThrow().files())
                .extracting(FileEntry::replicaNodeIds)
                .containsExactly(List.of("node-a", "node-b"), List.of("node-b"));
        assertThat(catalog.listNodes()).extracting(NodeEntry::address).containsExactly("127.0.0.1:7001", "127.0.0.1:7012");
    }

    @Test
    void testNodes()
    {
        assertThat(catalog.updateNodeHeartbeat("node-a", 500, 3, 42)).isTrue();
        assertThat(catalog.updateNodeHeartbeat("node-z", 500, 3, 42)).isFalse();
        assertThat(catalog.listNodes()).containsExactly(
                new NodeEntry("node-a", "127.0.0.1:7001", 1000, 500, 3, 42),
                new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 1));
    }

    @Test
    void testReopen()
            throws Exception
    {
        catalog.createSchema("tpch", false);
        FileEntry file = file(10, "node-b", "node-a");
        FileEntry open = file(10, "node-a");
        allocate(file, open);
        long tableId = catalog.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty())).tableId();

        database.close();
        open();

        assertThat(catalog.listSchemas()).containsExactly("tpch");
        assertThat(catalog.getTable(LINEITEM).orElseThrow().columns()).isEqualTo(LINEITEM_COLUMNS);
        assertThat(catalog.getTableFiles(tableId).orElseThrow().files()).containsExactly(file);
        assertThat(catalog.listAllocations()).extracting(Allocation::fileId).containsExactly(open.fileId());
        assertThat(catalog.listNodes()).extracting(NodeEntry::nodeId).containsExactly("node-a", "node-b");
        int schemaVersion = database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT version FROM schema_version");
                    ResultSet resultSet = statement.executeQuery()) {
                resultSet.next();
                return resultSet.getInt(1);
            }
        });
        assertThat(schemaVersion).isEqualTo(CatalogDatabase.SCHEMA_VERSION);
    }

    private void open()
    {
        database = CatalogDatabase.open(dataDir.resolve("catalog"));
        catalog = new CatalogStore(database);
    }

    private void assertNothingCommitted()
    {
        assertThat(catalog.listTables(Optional.empty())).isEmpty();
    }

    private void allocate(FileEntry... files)
    {
        List<Allocation> allocations = List.of(files).stream()
                .map(file -> new Allocation(file.fileId(), System.currentTimeMillis(), file.replicaNodeIds()))
                .toList();
        catalog.addAllocations(allocations);
    }

    private FileEntry file(long rowCount, String... replicas)
    {
        String fileId = "%032x".formatted(++nextFileId);
        return new FileEntry(fileId, 1000 + rowCount, rowCount, 0xCAFE0000 + nextFileId, compactStats(rowCount), List.of(replicas));
    }

    private static CommitRequest commit(SchemaTableName table, List<TableColumn> columns, boolean createTable, List<FileEntry> files, OptionalLong expectedVersion)
    {
        return new CommitRequest(table, columns, createTable, files, expectedVersion);
    }
}
