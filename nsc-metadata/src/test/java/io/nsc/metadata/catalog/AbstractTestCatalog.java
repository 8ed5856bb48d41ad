package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;
import io.airlift.units.Duration;
import io.grpc.StatusRuntimeException;
import io.nsc.metadata.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.ALREADY_EXISTS;
import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.OUT_OF_RANGE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static io.nsc.metadata.TestingStats.compactStatsOfRowGroups;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The catalog's behaviour, the same on every backend: each concrete subclass runs these tests
 * against one ({@link TestCatalogOnH2}, {@link TestCatalogOnPostgreSql}) and adds what only that
 * backend has.
 */
abstract class AbstractTestCatalog
{
    protected static final SchemaTableName LINEITEM = new SchemaTableName("tpch", "lineitem");
    protected static final List<TableColumn> LINEITEM_COLUMNS = List.of(
            new TableColumn("l_orderkey", "bigint"),
            new TableColumn("l_partkey", "bigint"),
            new TableColumn("l_quantity", "double"),
            new TableColumn("l_shipdate", "date"));
    // a materialized view and its storage table
    protected static final SchemaTableName MATERIALIZED_VIEW = new SchemaTableName("tpch", "totals");
    protected static final SchemaTableName STORAGE_TABLE = new SchemaTableName("tpch", "st_0123456789abcdef0123456789abcdef");
    protected static final Map<String, String> PROPERTIES = Map.of("sorted_by", "l_shipdate,l_orderkey", "row_group_size", "64MB");
    protected static final Duration ALLOCATION_TIMEOUT = new Duration(1, HOURS);
    protected static final String UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

    protected final TestingClock clock = new TestingClock(1_750_000_000_000L);
    protected CatalogDatabase database;
    protected ClusterCatalog cluster;
    protected TableCatalog tables;
    protected TableHistory history;
    protected CommitCatalog commits;
    protected AllocationCatalog allocations;
    protected NodeCatalog nodes;
    private int nextFileId;

    /** A new, empty database for one test, at the newest schema version. */
    protected abstract CatalogDatabase newDatabase();

    /** The database of the test, opened again after {@link #database} was closed. */
    protected abstract CatalogDatabase reopenDatabase();

    /** Another new database, beside the test's. */
    protected abstract CatalogDatabase newOtherDatabase();

    @BeforeEach
    void setUp()
    {
        use(newDatabase());
        nodes.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 900, 0, 1), List.of());
        nodes.registerNode(new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 1), List.of());
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testSchemas()
    {
        assertThat(tables.listSchemas()).isEmpty();
        assertThat(tables.createSchema("tpch", false)).isTrue();
        assertThat(tables.createSchema("tpch", true)).isFalse();
        assertThat(tables.createSchema("a_1", false)).isTrue();
        assertThat(tables.listSchemas()).containsExactly("a_1", "tpch");

        assertStatus(() -> tables.createSchema("tpch", false), ALREADY_EXISTS, "Schema tpch already exists");
        assertStatusContains(() -> tables.createSchema("TPCH", false), INVALID_ARGUMENT, "Invalid schema name 'TPCH'");
        assertStatusContains(() -> tables.createSchema("1abc", false), INVALID_ARGUMENT, "Invalid schema name '1abc'");
        assertStatusContains(() -> tables.createSchema("a-b", false), INVALID_ARGUMENT, "Invalid schema name 'a-b'");
        assertStatusContains(() -> tables.createSchema("x".repeat(129), false), INVALID_ARGUMENT, "Invalid schema name");
        assertStatus(() -> tables.createSchema("", false), INVALID_ARGUMENT, "The schema name is empty");
        assertStatus(() -> tables.createSchema("information_schema", false), INVALID_ARGUMENT, "Schema name information_schema is reserved");
        assertStatus(() -> tables.createSchema("system", false), INVALID_ARGUMENT, "Schema name system is reserved");
        assertThat(tables.createSchema("x".repeat(128), false)).isTrue();
    }

    @Test
    void testCommitCreatesTableAndReadsBack()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(100, "node-a", "node-b");
        FileEntry second = file(50, "node-b", "node-a");
        allocate(first, second);

        CommitResult result = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, second), OptionalLong.empty()));
        assertThat(result.tableCreated()).isTrue();
        assertThat(result.version()).isEqualTo(1);

        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.tableId()).isEqualTo(result.tableId());
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.columns()).isEqualTo(LINEITEM_COLUMNS);
        assertThat(table.rowCount()).isEqualTo(150);
        assertThat(table.fileCount()).isEqualTo(2);
        assertThat(table.sizeBytes()).isEqualTo(first.sizeBytes() + second.sizeBytes());

        TableFiles files = tables.getTableFiles(result.tableId()).orElseThrow();
        assertThat(files.version()).isEqualTo(1);
        assertThat(files.files()).containsExactly(first, second);
        assertThat(allocations.listAllocations()).isEmpty();
        assertThat(tables.listTables(Optional.of("tpch"))).containsExactly(LINEITEM);

        // an insert into the existing table: a new version with the old and new files
        FileEntry third = file(7, "node-a");
        allocate(third);
        CommitResult insert = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(third), OptionalLong.of(1)));
        assertThat(insert).isEqualTo(new CommitResult(result.tableId(), 2, false));
        assertThat(tables.getTableFiles(result.tableId()).orElseThrow().files()).containsExactly(first, second, third);
        assertThat(tables.getTable(LINEITEM).orElseThrow().rowCount()).isEqualTo(157);
    }

    @Test
    void testEmptyCommitCreatesTable()
    {
        tables.createSchema("tpch", false);
        CommitResult result = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        assertThat(result.tableCreated()).isTrue();
        assertThat(tables.getTableFiles(result.tableId()).orElseThrow().files()).isEmpty();
    }

    @Test
    void testListTables()
    {
        tables.createSchema("tpch", false);
        tables.createSchema("other", false);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        commits.commit(commit(new SchemaTableName("tpch", "orders"), LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        commits.commit(commit(new SchemaTableName("other", "t"), LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));

        assertThat(tables.listTables(Optional.empty())).containsExactly(
                new SchemaTableName("other", "t"),
                LINEITEM,
                new SchemaTableName("tpch", "orders"));
        assertThat(tables.listTables(Optional.of("other"))).containsExactly(new SchemaTableName("other", "t"));
        assertStatus(() -> tables.listTables(Optional.of("missing")), NOT_FOUND, "Schema missing does not exist");
        assertStatus(() -> tables.listTables(Optional.of("Bad Name")), NOT_FOUND, "Schema Bad Name does not exist");
        assertThat(tables.getTable(new SchemaTableName("tpch", "missing"))).isEmpty();
        assertThat(tables.getTableFiles(12345)).isEmpty();
    }

    @Test
    void testCommitOfUnknownAllocationWritesNothing()
    {
        tables.createSchema("tpch", false);
        FileEntry allocated = file(10, "node-a");
        FileEntry notAllocated = file(10, "node-a");
        allocate(allocated);

        assertStatus(
                () -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(allocated, notAllocated), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "File %s has no open allocation: its id was not issued by AllocateFiles, or its allocation expired and was purged".formatted(notAllocated.fileId()));

        assertNothingCommitted();
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(allocated.fileId());
    }

    @Test
    void testCommitWithDifferentColumnsWritesNothing()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        allocate(first);
        CommitResult created = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first), OptionalLong.empty()));

        FileEntry second = file(10, "node-a");
        allocate(second);
        List<TableColumn> changedType = List.of(LINEITEM_COLUMNS.get(0), LINEITEM_COLUMNS.get(1), new TableColumn("l_quantity", "bigint"), LINEITEM_COLUMNS.get(3));
        assertStatus(
                () -> commits.commit(commit(LINEITEM, changedType, false, List.of(second), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "Columns of table tpch.lineitem do not match the files: column 3: table has l_quantity double, files have l_quantity bigint");
        assertStatus(
                () -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS.subList(0, 3), false, List.of(second), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "Columns of table tpch.lineitem do not match the files: column 4: table has l_shipdate date, files have no such column");

        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
        assertThat(tables.getTableFiles(created.tableId()).orElseThrow().files()).containsExactly(first);
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(second.fileId());
    }

    @Test
    void testCommitAtWrongVersionIsAborted()
    {
        tables.createSchema("tpch", false);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        FileEntry file = file(10, "node-a");
        allocate(file);

        assertStatus(
                () -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(7))),
                ABORTED,
                "Table tpch.lineitem is at version 1, but the commit expects version 7");
        assertStatus(
                () -> commits.commit(commit(new SchemaTableName("tpch", "fresh"), LINEITEM_COLUMNS, true, List.of(file), OptionalLong.of(3))),
                ABORTED,
                "Table tpch.fresh does not exist, but the commit expects it at version 3");

        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
        assertThat(tables.getTable(new SchemaTableName("tpch", "fresh"))).isEmpty();
        assertThat(allocations.listAllocations()).hasSize(1);
    }

    @Test
    void testConcurrentCommitsAtTheSameVersion()
            throws Exception
    {
        tables.createSchema("tpch", false);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty()));
        List<FileEntry> files = IntStream.range(0, 8).mapToObj(_ -> file(10, "node-a")).toList();
        allocate(files.toArray(FileEntry[]::new));

        // writers that all read version 1: exactly one may win, the others must retry
        List<Callable<Boolean>> writers = files.stream()
                .<Callable<Boolean>>map(file -> () -> {
                    try {
                        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(1)));
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
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(2);
        assertThat(table.fileCount()).isEqualTo(1);
        assertThat(allocations.listAllocations()).hasSize(7);
    }

    @Test
    void testFileCannotBeCommittedTwice()
    {
        tables.createSchema("tpch", false);
        FileEntry file = file(10, "node-a");
        allocate(file);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty()));

        assertStatus(
                () -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "File %s is already committed to table tpch.lineitem".formatted(file.fileId()));
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
    }

    @Test
    void testCommitChecks()
    {
        FileEntry file = file(10, "node-a");
        allocate(file);

        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty())), NOT_FOUND, "Schema tpch does not exist");
        tables.createSchema("tpch", false);
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.empty())), NOT_FOUND, "Table tpch.lineitem does not exist");
        assertStatusContains(() -> commits.commit(commit(new SchemaTableName("tpch", "Bad"), LINEITEM_COLUMNS, true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid table name 'Bad'");
        assertStatus(() -> commits.commit(commit(LINEITEM, List.of(), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "A table needs at least one column");
        assertStatusContains(() -> commits.commit(commit(LINEITEM, List.of(new TableColumn("A", "bigint")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid column name 'A'");
        assertStatus(() -> commits.commit(commit(LINEITEM, List.of(new TableColumn("a", "bigint"), new TableColumn("a", "double")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Duplicate column name a");
        assertStatus(() -> commits.commit(commit(LINEITEM, List.of(new TableColumn("a", " ")), true, List.of(file), OptionalLong.empty())), INVALID_ARGUMENT, "Column a has no type");
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(file, file), OptionalLong.empty())), INVALID_ARGUMENT, "File %s appears twice in the commit".formatted(file.fileId()));

        FileEntry badId = new FileEntry("../../etc/passwd", 1, 10, 0, compactStats(10), List.of("node-a"));
        assertStatusContains(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(badId), OptionalLong.empty())), INVALID_ARGUMENT, "Invalid file id '../../etc/passwd'");
        FileEntry noReplicas = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of());
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(noReplicas), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has no replicas".formatted(file.fileId()));
        FileEntry twice = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of("node-a", "node-a"));
        assertStatusContains(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(twice), OptionalLong.empty())), INVALID_ARGUMENT, "names a replica node twice");
        FileEntry badStats = new FileEntry(file.fileId(), 1, 10, 0, ByteString.copyFromUtf8("not stats"), List.of("node-a"));
        assertStatusContains(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(badStats), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has invalid compact stats".formatted(file.fileId()));
        FileEntry wrongRows = new FileEntry(file.fileId(), 1, 11, 0, compactStats(10), List.of("node-a"));
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(wrongRows), OptionalLong.empty())), INVALID_ARGUMENT, "File %s has row count 11 but its compact stats say 10".formatted(file.fileId()));
        FileEntry unknownNode = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of("node-a", "node-x"));
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(unknownNode), OptionalLong.empty())), FAILED_PRECONDITION,
                "File %s names replica node node-x, which is not a registered storage node".formatted(file.fileId()));
        // node-b is registered, but was never allocated the file
        FileEntry unallocatedNode = new FileEntry(file.fileId(), 1, 10, 0, compactStats(10), List.of("node-a", "node-b"));
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(unallocatedNode), OptionalLong.empty())), FAILED_PRECONDITION,
                "File %s names replica node node-b, which was not allocated to hold it (allocated: node-a)".formatted(file.fileId()));

        assertNothingCommitted();
        assertThat(allocations.listAllocations()).hasSize(1);
    }

    @Test
    void testAddReplicaLetsTheCommitNameTheNewNode()
    {
        nodes.registerNode(new NodeEntry("node-c", "127.0.0.1:7003", 1000, 900, 0, 1), List.of());
        tables.createSchema("tpch", false);
        FileEntry allocated = file(10, "node-a", "node-b");
        allocate(allocated);

        // the chooser sees the allocated nodes, and its choice goes last
        List<List<String>> seen = new ArrayList<>();
        Allocation replaced = allocations.addReplica(allocated.fileId(), replicas -> {
            seen.add(replicas);
            return "node-c";
        });
        assertThat(seen).containsExactly(List.of("node-a", "node-b"));
        assertThat(replaced.replicaNodeIds()).containsExactly("node-a", "node-b", "node-c");
        assertThat(allocations.listAllocations()).extracting(Allocation::replicaNodeIds).containsExactly(List.of("node-a", "node-b", "node-c"));

        // the writer commits the replicas that were written: node-b failed, node-c replaced it
        FileEntry written = new FileEntry(allocated.fileId(), allocated.sizeBytes(), 10, allocated.crc32c(), allocated.compactStats(), List.of("node-a", "node-c"));
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(written), OptionalLong.empty())).tableId();
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).extracting(FileEntry::replicaNodeIds).containsExactly(List.of("node-a", "node-c"));

        // committed: its replicas no longer change
        assertStatus(() -> allocations.addReplica(allocated.fileId(), _ -> "node-b"), NOT_FOUND,
                "File %s has no open allocation: it is committed to table tpch.lineitem, and its replicas no longer change".formatted(allocated.fileId()));
    }

    @Test
    void testAddReplicaRefusalsChangeNothing()
    {
        FileEntry allocated = file(10, "node-a");
        allocate(allocated);

        assertStatusContains(() -> allocations.addReplica("../etc", _ -> "node-b"), INVALID_ARGUMENT, "Invalid file id '../etc'");
        String unknown = "%032x".formatted(999_999);
        assertStatus(() -> allocations.addReplica(unknown, _ -> "node-b"), NOT_FOUND,
                "File %s has no open allocation: its id was not issued by AllocateFiles, or its table was dropped".formatted(unknown));
        // a chooser's refusal goes to the caller, and the allocation stays as it was
        assertStatus(() -> allocations.addReplica(allocated.fileId(), _ -> {
            throw io.grpc.Status.FAILED_PRECONDITION.withDescription("no node left").asRuntimeException();
        }), FAILED_PRECONDITION, "no node left");
        assertThatThrownBy(() -> allocations.addReplica(allocated.fileId(), _ -> "node-a"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Node node-a already holds a replica of file %s".formatted(allocated.fileId()));
        assertThat(allocations.listAllocations()).extracting(Allocation::replicaNodeIds).containsExactly(List.of("node-a"));

        // expired: a node may have deleted its copy as an orphan
        clock.advance(ALLOCATION_TIMEOUT.toMillis() + 1, MILLISECONDS);
        assertStatus(() -> allocations.addReplica(allocated.fileId(), _ -> "node-b"), NOT_FOUND,
                "File %s has no open allocation: it was allocated too long ago (allocation timeout 1h); write it again under a new id".formatted(allocated.fileId()));
        assertThat(allocations.listAllocations()).extracting(Allocation::replicaNodeIds).containsExactly(List.of("node-a"));
    }

    @Test
    void testReplicaSyncOnRegistration()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        FileEntry second = file(10, "node-a", "node-b");
        allocate(first, second);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, second), OptionalLong.empty())).tableId();

        // node-b also has the first file (say, repaired), and reports ids the catalog does not know
        ReplicaSync sync = nodes.registerNode(new NodeEntry("node-b", "127.0.0.1:7012", 1000, 800, 4, 2), List.of(first.fileId(), second.fileId(), "ffffffffffffffffffffffffffffffff", "junk"));
        assertThat(sync).isEqualTo(new ReplicaSync(1, 0));
        // node-a lost the second file
        assertThat(nodes.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 800, 1, 2), List.of(first.fileId()))).isEqualTo(new ReplicaSync(0, 1));

        assertThat(tables.getTableFiles(tableId).orElseThrow().files())
                .extracting(FileEntry::replicaNodeIds)
                .containsExactly(List.of("node-a", "node-b"), List.of("node-b"));
        assertThat(nodes.listNodes()).extracting(NodeEntry::address).containsExactly("127.0.0.1:7001", "127.0.0.1:7012");

        // the lost replica is missing, not forgotten: not read, not counted, still node-a's
        ReplicaCatalog replicas = new ReplicaCatalog(database, TestingCatalog.DEFAULT_REPLICATION);
        assertThat(replicas.missingReplicaCounts()).containsExactly(Map.entry("node-a", 1L));
        assertThat(replicas.fileReplicas()).filteredOn(file -> file.fileId().equals(second.fileId()))
                .extracting(FileReplicas::nodeIds)
                .containsExactly(List.of("node-b"));
        assertThat(allocations.findOrphans("node-a", List.of(second.fileId()))).isEmpty();
        // an empty data directory at start (an unmounted disk) reports nothing: every replica goes missing
        assertThat(nodes.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 800, 0, 3), List.of())).isEqualTo(new ReplicaSync(0, 1));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files())
                .extracting(FileEntry::replicaNodeIds)
                .containsExactly(List.of("node-b"), List.of("node-b"));
        // the disk is back: its replicas count again, in their old place
        assertThat(nodes.registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 800, 2, 4), List.of(first.fileId(), second.fileId()))).isEqualTo(new ReplicaSync(2, 0));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files())
                .extracting(FileEntry::replicaNodeIds)
                .containsExactly(List.of("node-a", "node-b"), List.of("node-a", "node-b"));
        assertThat(replicas.missingReplicaCounts()).isEmpty();
    }

    @Test
    void testNodes()
    {
        assertThat(nodes.updateNodeHeartbeat("node-a", 500, 3, 42)).isTrue();
        assertThat(nodes.updateNodeHeartbeat("node-z", 500, 3, 42)).isFalse();
        assertThat(nodes.listNodes()).containsExactly(
                new NodeEntry("node-a", "127.0.0.1:7001", 1000, 500, 3, 42),
                new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 1));
    }

    @Test
    void testReopen()
            throws Exception
    {
        tables.createSchema("tpch", false);
        FileEntry file = file(10, "node-b", "node-a");
        FileEntry open = file(10, "node-a");
        allocate(file, open);
        long tableId = commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(file), PROPERTIES)).tableId();

        database.close();
        use(reopenDatabase());

        assertThat(tables.listSchemas()).containsExactly("tpch");
        assertThat(tables.getTable(LINEITEM).orElseThrow().columns()).isEqualTo(LINEITEM_COLUMNS);
        assertThat(tables.getTable(LINEITEM).orElseThrow().properties()).isEqualTo(PROPERTIES);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(file);
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(open.fileId());
        assertThat(nodes.listNodes()).extracting(NodeEntry::nodeId).containsExactly("node-a", "node-b");
        assertThat(countRows("SELECT version FROM schema_version")).isEqualTo(CatalogSchema.VERSION).isEqualTo(15);
        assertThat(countRows("SELECT count(*) FROM schema_version")).isEqualTo(1);
    }

    @Test
    void testCreateTable()
    {
        assertStatus(() -> tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false), NOT_FOUND, "Schema tpch does not exist");
        tables.createSchema("tpch", false);

        CreateTableResult created = tables.createTable(LINEITEM, LINEITEM_COLUMNS, PROPERTIES, false);
        assertThat(created.created()).isTrue();
        TableEntry table = created.table();
        assertThat(table.name()).isEqualTo(LINEITEM);
        assertThat(table.columns()).isEqualTo(LINEITEM_COLUMNS);
        assertThat(table.properties()).isEqualTo(PROPERTIES);
        // like a table after its first commit, so that an INSERT can expect a version
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.createdMillis()).isEqualTo(clock.millis());
        assertThat(List.of(table.rowCount(), table.fileCount(), table.sizeBytes())).containsOnly(0L);
        assertThat(tables.getTable(LINEITEM)).contains(table);
        assertThat(tables.listTables(Optional.of("tpch"))).containsExactly(LINEITEM);
        TableFiles files = tables.getTableFiles(table.tableId()).orElseThrow();
        assertThat(files.version()).isEqualTo(1);
        assertThat(files.files()).isEmpty();

        assertStatus(() -> tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false), ALREADY_EXISTS, "Table tpch.lineitem already exists");
        // IF NOT EXISTS answers the table as it is, whatever the request's columns
        CreateTableResult again = tables.createTable(LINEITEM, List.of(new TableColumn("other", "varchar")), Map.of(), true);
        assertThat(again).isEqualTo(new CreateTableResult(table, false));

        FileEntry file = file(10, "node-a");
        allocate(file);
        assertThat(commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(1))))
                .isEqualTo(new CommitResult(table.tableId(), 2, false));
    }

    @Test
    void testCreateTableChecks()
    {
        tables.createSchema("tpch", false);
        assertStatusContains(() -> tables.createTable(new SchemaTableName("Tpch", "t"), LINEITEM_COLUMNS, Map.of(), false), INVALID_ARGUMENT, "Invalid schema name 'Tpch'");
        assertStatusContains(() -> tables.createTable(new SchemaTableName("tpch", "t-1"), LINEITEM_COLUMNS, Map.of(), false), INVALID_ARGUMENT, "Invalid table name 't-1'");
        assertStatus(() -> tables.createTable(LINEITEM, List.of(), Map.of(), false), INVALID_ARGUMENT, "A table needs at least one column");
        assertStatus(() -> tables.createTable(LINEITEM, List.of(new TableColumn("a", "bigint"), new TableColumn("a", "bigint")), Map.of(), false), INVALID_ARGUMENT,
                "Duplicate column name a");
        assertStatusContains(() -> tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of("Sorted By", "x"), false), INVALID_ARGUMENT, "Invalid table property name 'Sorted By'");
        assertStatus(() -> tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of("", "x"), false), INVALID_ARGUMENT, "The table property name is empty");
        assertStatus(() -> tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of("sorted_by", "x".repeat(65_537)), false), INVALID_ARGUMENT,
                "The value of table property sorted_by is longer than 65536 characters");
        assertNothingCommitted();

        // values are the connector's to judge: stored as given, even empty
        Map<String, String> unusual = Map.of("sorted_by", "", "x".repeat(128), "v".repeat(65_536));
        assertThat(tables.createTable(LINEITEM, LINEITEM_COLUMNS, unusual, false).table().properties()).isEqualTo(unusual);
    }

    @Test
    void testRenameTableAndSchema()
    {
        tables.createSchema("tpch", false);
        tables.createSchema("other", false);
        FileEntry file = file(10, "node-a");
        allocate(file);
        long tableId = commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(file), PROPERTIES)).tableId();
        tables.createTable(new SchemaTableName("other", "taken"), LINEITEM_COLUMNS, Map.of(), false);

        // within the schema and into another: the same table, with its version, files and properties
        SchemaTableName renamed = new SchemaTableName("tpch", "renamed");
        tables.renameTable(LINEITEM, renamed);
        SchemaTableName moved = new SchemaTableName("other", "moved");
        tables.renameTable(renamed, moved);
        TableEntry table = tables.getTable(moved).orElseThrow();
        assertThat(table.tableId()).isEqualTo(tableId);
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.properties()).isEqualTo(PROPERTIES);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(file);
        assertThat(tables.getTable(LINEITEM)).isEmpty();
        assertThat(tables.listTables(Optional.of("tpch"))).isEmpty();

        assertStatus(() -> tables.renameTable(LINEITEM, renamed), NOT_FOUND, "Table tpch.lineitem does not exist");
        assertStatus(() -> tables.renameTable(moved, new SchemaTableName("other", "taken")), ALREADY_EXISTS, "Table other.taken already exists");
        assertStatus(() -> tables.renameTable(moved, new SchemaTableName("nope", "t")), NOT_FOUND, "Schema nope does not exist");
        assertStatusContains(() -> tables.renameTable(moved, new SchemaTableName("other", "Bad")), INVALID_ARGUMENT, "Invalid table name 'Bad'");

        // a schema takes its tables along
        tables.renameSchema("other", "archive");
        assertThat(tables.listSchemas()).containsExactly("archive", "tpch");
        assertThat(tables.listTables(Optional.of("archive"))).containsExactly(new SchemaTableName("archive", "moved"), new SchemaTableName("archive", "taken"));
        assertThat(tables.getTable(new SchemaTableName("archive", "moved")).orElseThrow().tableId()).isEqualTo(tableId);
        assertStatus(() -> tables.renameSchema("other", "x"), NOT_FOUND, "Schema other does not exist");
        assertStatus(() -> tables.renameSchema("archive", "tpch"), ALREADY_EXISTS, "Schema tpch already exists");
        assertStatus(() -> tables.renameSchema("archive", "system"), INVALID_ARGUMENT, "Schema name system is reserved");
    }

    @Test
    void testTruncateTable()
    {
        tables.createSchema("tpch", false);
        FileEntry file = file(10, "node-a");
        allocate(file);
        List<TableColumn> columns = List.of(new TableColumn("a", "bigint", Optional.of("key")));
        TableEntry table = tables.createTable(LINEITEM, columns, PROPERTIES, Optional.of("kept"), TableCatalog.ExistingTable.FAIL).table();
        commits.commit(commit(LINEITEM, List.of(new TableColumn("a", "bigint")), false, List.of(file), OptionalLong.of(1)));

        clock.advance(5, MINUTES);
        assertStatus(() -> tables.truncateTable(LINEITEM, OptionalLong.of(table.tableId() + 100)), ABORTED,
                "Table tpch.lineitem was dropped and created again since the statement began; nothing was truncated");
        TableCatalog.TruncatedTable truncated = tables.truncateTable(LINEITEM, OptionalLong.of(table.tableId()));
        assertThat(truncated.dropped()).isEqualTo(new DroppedTable(table.tableId(), 1));
        TableEntry empty = truncated.table();
        assertThat(empty.tableId()).isNotEqualTo(table.tableId());
        assertThat(empty.columns()).isEqualTo(columns);
        assertThat(empty.properties()).isEqualTo(PROPERTIES);
        assertThat(empty.comment()).contains("kept");
        assertThat(empty.createdMillis()).isEqualTo(table.createdMillis());
        assertThat(List.of(empty.rowCount(), empty.fileCount(), empty.sizeBytes())).containsOnly(0L);
        assertThat(tables.getTable(LINEITEM)).contains(empty);
        assertThat(tables.getTableFiles(empty.tableId()).orElseThrow().files()).isEmpty();
        // the truncated file stays claimed for the table version retention
        assertThat(allocations.findOrphans("node-a", List.of(file.fileId()))).isEmpty();
        assertStatus(() -> tables.truncateTable(new SchemaTableName("tpch", "missing"), OptionalLong.empty()), NOT_FOUND, "Table tpch.missing does not exist");
    }

    @Test
    void testDropSchemaCascade()
    {
        tables.createSchema("tpch", false);
        tables.createSchema("other", false);
        FileEntry first = file(10, "node-a");
        FileEntry second = file(20, "node-a");
        FileEntry kept = file(30, "node-a");
        allocate(first, second, kept);
        long lineitemId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first), OptionalLong.empty())).tableId();
        long ordersId = commits.commit(commit(new SchemaTableName("tpch", "orders"), LINEITEM_COLUMNS, true, List.of(second), OptionalLong.empty())).tableId();
        commits.commit(commit(new SchemaTableName("other", "t"), LINEITEM_COLUMNS, true, List.of(kept), OptionalLong.empty()));

        assertStatus(() -> tables.dropSchema("tpch", false, false), FAILED_PRECONDITION, "Schema tpch is not empty");
        assertThat(tables.dropSchema("tpch", false, true)).contains(List.of(new DroppedTable(lineitemId, 1), new DroppedTable(ordersId, 1)));
        assertThat(tables.listSchemas()).containsExactly("other");
        assertThat(tables.listTables(Optional.empty())).containsExactly(new SchemaTableName("other", "t"));
        // the dropped tables' files stay claimed for the table version retention, like a DROP TABLE's
        assertThat(allocations.findOrphans("node-a", List.of(first.fileId(), second.fileId(), kept.fileId()))).isEmpty();
        assertThat(tables.dropSchema("tpch", true, true)).isEmpty();
        assertStatus(() -> tables.dropSchema("tpch", false, true), NOT_FOUND, "Schema tpch does not exist");
        assertThat(tables.dropSchema("other", false, true)).isPresent();
        assertThat(tables.listSchemas()).isEmpty();
    }

    @Test
    void testCreateOrReplace()
    {
        tables.createSchema("tpch", false);
        FileEntry old = file(10, "node-a");
        FileEntry replacement = file(20, "node-a");
        allocate(old, replacement);
        long oldId = commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(old), PROPERTIES)).tableId();

        // CREATE OR REPLACE TABLE: an empty table of the new definition, under a new id
        CreateTableResult created = tables.createTable(LINEITEM, List.of(new TableColumn("x", "varchar")), Map.of(), Optional.of("new"), TableCatalog.ExistingTable.REPLACE);
        assertThat(created.replaced()).contains(new DroppedTable(oldId, 1));
        TableEntry empty = created.table();
        assertThat(empty.tableId()).isNotEqualTo(oldId);
        assertThat(empty.columns()).containsExactly(new TableColumn("x", "varchar"));
        assertThat(List.of(empty.rowCount(), empty.fileCount())).containsOnly(0L);
        assertThat(empty.properties()).isEmpty();
        assertThat(empty.comment()).contains("new");
        assertThat(tables.getTableFiles(oldId)).isEmpty();
        // without a table of that name it is a plain CREATE
        SchemaTableName orders = new SchemaTableName("tpch", "orders");
        CreateTableResult plain = tables.createTable(orders, LINEITEM_COLUMNS, Map.of(), Optional.empty(), TableCatalog.ExistingTable.REPLACE);
        assertThat(plain.created()).isTrue();
        assertThat(plain.replaced()).isEmpty();

        // CREATE OR REPLACE TABLE AS: the commit drops the table and creates the new one with its files
        CommitResult replaced = commits.commit(CommitRequest.createOrReplaceTableAs(LINEITEM, LINEITEM_COLUMNS, List.of(replacement), PROPERTIES));
        assertThat(replaced.tableCreated()).isTrue();
        assertThat(replaced.replaced()).contains(new DroppedTable(empty.tableId(), 0));
        assertThat(replaced.tableId()).isNotIn(oldId, empty.tableId());
        assertThat(tables.getTableFiles(replaced.tableId()).orElseThrow().files()).containsExactly(replacement);
        assertThat(tables.getTable(LINEITEM).orElseThrow().properties()).isEqualTo(PROPERTIES);
        // the replaced table's file stays claimed for the table version retention
        assertThat(allocations.findOrphans("node-a", List.of(old.fileId(), replacement.fileId()))).isEmpty();

        // a failed replace changes nothing: the table it would have replaced is still there
        FileEntry unallocated = file(30, "node-a");
        assertStatusContains(() -> commits.commit(CommitRequest.createOrReplaceTableAs(LINEITEM, LINEITEM_COLUMNS, List.of(unallocated), Map.of())), FAILED_PRECONDITION, unallocated.fileId());
        assertThat(tables.getTable(LINEITEM).orElseThrow().tableId()).isEqualTo(replaced.tableId());
        assertThat(tables.getTableFiles(replaced.tableId()).orElseThrow().files()).containsExactly(replacement);
        // replacing is for a commit that creates the table: never an append
        assertStatus(() -> commits.commit(new CommitRequest(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty(), Map.of(), false, OptionalLong.empty(), Optional.empty(), true, Optional.empty(), Optional.empty())),
                INVALID_ARGUMENT, "A commit that replaces a table must create it (must_create)");
    }

    @Test
    void testComments()
    {
        tables.createSchema("tpch", false);
        List<TableColumn> columns = List.of(new TableColumn("a", "bigint", Optional.of("the key")), new TableColumn("b", "varchar"));
        TableEntry created = tables.createTable(LINEITEM, columns, Map.of(), Optional.of("línea 🙂 'quoted'"), TableCatalog.ExistingTable.FAIL).table();
        assertThat(created.comment()).contains("línea 🙂 'quoted'");
        assertThat(created.columns()).isEqualTo(columns);

        // comments are no part of the files' schema: a commit of the same columns without them is taken, and keeps them
        FileEntry file = file(10, "node-a");
        allocate(file);
        assertThat(commits.commit(commit(LINEITEM, List.of(new TableColumn("a", "bigint"), new TableColumn("b", "varchar")), false, List.of(file), OptionalLong.of(1))).version())
                .isEqualTo(2);
        TableEntry committed = tables.getTable(LINEITEM).orElseThrow();
        assertThat(committed.comment()).isEqualTo(created.comment());
        assertThat(committed.columns()).isEqualTo(columns);

        // set, replaced, emptied and removed; the version stays
        tables.setComment(LINEITEM, Optional.of("b"), Optional.of("x".repeat(65_536)));
        tables.setComment(LINEITEM, Optional.of("a"), Optional.empty());
        tables.setComment(LINEITEM, Optional.empty(), Optional.of(""));
        TableEntry commented = tables.getTable(LINEITEM).orElseThrow();
        assertThat(commented.columns()).containsExactly(new TableColumn("a", "bigint"), new TableColumn("b", "varchar", Optional.of("x".repeat(65_536))));
        assertThat(commented.comment()).contains("");
        assertThat(commented.version()).isEqualTo(2);
        tables.setComment(LINEITEM, Optional.empty(), Optional.empty());
        assertThat(tables.getTable(LINEITEM).orElseThrow().comment()).isEmpty();

        assertStatus(() -> tables.setComment(LINEITEM, Optional.of("c"), Optional.of("x")), NOT_FOUND, "Column c of table tpch.lineitem does not exist");
        assertStatus(() -> tables.setComment(new SchemaTableName("tpch", "missing"), Optional.empty(), Optional.of("x")), NOT_FOUND, "Table tpch.missing does not exist");
        assertStatus(() -> tables.setComment(LINEITEM, Optional.empty(), Optional.of("x".repeat(65_537))), INVALID_ARGUMENT, "A comment is longer than 65536 characters");
        assertStatus(() -> tables.setComment(LINEITEM, Optional.of("a"), Optional.of("a\0b")), INVALID_ARGUMENT, "A comment cannot contain the NUL character");
        assertStatus(() -> tables.createTable(new SchemaTableName("tpch", "t"), List.of(new TableColumn("a", "bigint", Optional.of("x".repeat(65_537)))), Map.of(), false),
                INVALID_ARGUMENT, "A comment is longer than 65536 characters");
        assertThat(tables.getTable(LINEITEM).orElseThrow().columns().get(1).comment()).contains("x".repeat(65_536));

        // a CREATE TABLE AS commits the table's comment with its first files
        SchemaTableName orders = new SchemaTableName("tpch", "orders");
        commits.commit(CommitRequest.createTableAs(orders, List.of(new TableColumn("o", "bigint")), List.of(), Map.of()).withTableComment("orders"));
        assertThat(tables.getTable(orders).orElseThrow().comment()).contains("orders");
    }

    @Test
    void testColumnChanges()
    {
        tables.createSchema("tpch", false);
        TableEntry created = tables.createTable(LINEITEM, List.of(new TableColumn("a", "bigint", Optional.of("the key")), new TableColumn("b", "varchar")),
                Map.of("sorted_by", "a"), Optional.empty(), TableCatalog.ExistingTable.FAIL).table();
        FileEntry before = file(10, "node-a");
        allocate(before);
        commits.commit(commit(LINEITEM, List.of(new TableColumn("a", "bigint"), new TableColumn("b", "varchar")), false, List.of(before), OptionalLong.of(1)));

        // each change is a new version with the same files
        TableEntry added = tables.alterColumn(LINEITEM, OptionalLong.of(created.tableId()), new ColumnChange.Add(new TableColumn("c", "date", Optional.of("new"))), Optional.empty());
        assertThat(added.version()).isEqualTo(3);
        assertThat(added.columns()).extracting(TableColumn::name).containsExactly("a", "b", "c");
        assertThat(tables.getTableFiles(added.tableId()).orElseThrow().files()).containsExactly(before);

        TableEntry renamed = tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Rename("a", "key"), Optional.of(Map.of("sorted_by", "key")));
        assertThat(renamed.columns().getFirst()).isEqualTo(new TableColumn("key", "bigint", Optional.of("the key")));
        assertThat(renamed.properties()).isEqualTo(Map.of("sorted_by", "key"));

        // a dropped column keeps its slot, without its comment; its name is free again
        TableEntry dropped = tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Drop("b"), Optional.empty());
        assertThat(dropped.columns()).containsExactly(
                new TableColumn("key", "bigint", Optional.of("the key")),
                new TableColumn("b", "varchar", Optional.empty(), true),
                new TableColumn("c", "date", Optional.of("new")));
        TableEntry readded = tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("b", "bigint")), Optional.empty());
        assertThat(readded.columns()).hasSize(4);
        assertThat(readded.version()).isEqualTo(6);
        assertThat(readded.properties()).isEqualTo(Map.of("sorted_by", "key"));
        // the comment of the live b, not of the dropped one
        tables.setComment(LINEITEM, Optional.of("b"), Optional.of("again"));
        assertThat(tables.getTable(LINEITEM).orElseThrow().columns()).extracting(TableColumn::comment)
                .containsExactly(Optional.of("the key"), Optional.empty(), Optional.of("new"), Optional.of("again"));

        // a write must bring every slot, the dropped one too; one that began under the old columns fails
        FileEntry after = file(10, "node-a");
        allocate(after);
        assertStatusContains(() -> commits.commit(commit(LINEITEM, List.of(new TableColumn("key", "bigint"), new TableColumn("b", "varchar"), new TableColumn("c", "date")), false, List.of(after), OptionalLong.empty())),
                FAILED_PRECONDITION, "column 2: table has b varchar (dropped), files have b varchar");
        List<TableColumn> slots = List.of(new TableColumn("key", "bigint"), new TableColumn("b", "varchar", Optional.empty(), true), new TableColumn("c", "date"), new TableColumn("b", "bigint"));
        assertThat(commits.commit(commit(LINEITEM, slots, false, List.of(after), OptionalLong.of(6))).version()).isEqualTo(7);

        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("c", "bigint")), Optional.empty()),
                ALREADY_EXISTS, "Column c already exists in table tpch.lineitem");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Rename("c", "key"), Optional.empty()),
                ALREADY_EXISTS, "Column key already exists in table tpch.lineitem");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Rename("nope", "x"), Optional.empty()),
                NOT_FOUND, "Column nope of table tpch.lineitem does not exist");
        assertStatusContains(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Rename("c", "Bad Name"), Optional.empty()),
                INVALID_ARGUMENT, "Invalid column name");
        assertStatusContains(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("d", " ")), Optional.empty()),
                INVALID_ARGUMENT, "Column d has no type");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.of(created.tableId() + 100), new ColumnChange.Drop("c"), Optional.empty()),
                ABORTED, "Table tpch.lineitem was dropped and created again since the statement began; no column was changed");
        assertStatus(() -> tables.alterColumn(new SchemaTableName("tpch", "missing"), OptionalLong.empty(), new ColumnChange.Drop("c"), Optional.empty()),
                NOT_FOUND, "Table tpch.missing does not exist");
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Drop("c"), Optional.empty());
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Drop("b"), Optional.empty());
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Drop("key"), Optional.empty()),
                INVALID_ARGUMENT, "Cannot drop column key: it is the only column of table tpch.lineitem");
        // nothing a refused change touched moved the table
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(9);
    }

    @Test
    void testSetColumnType()
    {
        tables.createSchema("tpch", false);
        List<TableColumn> original = List.of(new TableColumn("a", "integer"), new TableColumn("r", "real"), new TableColumn("d", "decimal(10,2)"));
        tables.createTable(LINEITEM, original, Map.of(), false);
        FileEntry before = file(10, "node-a");
        allocate(before);
        commits.commit(commit(LINEITEM, original, false, List.of(before), OptionalLong.of(1)));

        // a widening is a new version with the same files; versions before it keep the old type
        TableEntry widened = tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("a", "bigint"), Optional.empty());
        assertThat(widened.version()).isEqualTo(3);
        assertThat(widened.columns()).extracting(TableColumn::type).containsExactly("bigint", "real", "decimal(10,2)");
        assertThat(tables.getTableFiles(widened.tableId()).orElseThrow().files()).containsExactly(before);
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("r", "double"), Optional.empty());
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("d", "decimal(20,2)"), Optional.empty());
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("d", "decimal(30,2)"), Optional.empty());
        assertThat(history.tableAtVersion(LINEITEM, 2).columns()).isEqualTo(original);
        assertThat(history.tableAtVersion(LINEITEM, 3).columns()).extracting(TableColumn::type).containsExactly("bigint", "real", "decimal(10,2)");
        assertThat(history.tableAtVersion(LINEITEM, 5).columns()).extracting(TableColumn::type).containsExactly("bigint", "double", "decimal(20,2)");
        assertThat(history.tableAtVersion(LINEITEM, 6).columns()).extracting(TableColumn::type).containsExactly("bigint", "double", "decimal(30,2)");
        assertThat(history.listVersions(LINEITEM)).extracting(TableVersion::operation).endsWith(Optional.of("SET COLUMN TYPE"), Optional.of("SET COLUMN TYPE"));

        // a write that began under the old type fails at its commit
        FileEntry after = file(10, "node-a");
        allocate(after);
        assertStatusContains(() -> commits.commit(commit(LINEITEM, original, false, List.of(after), OptionalLong.empty())),
                FAILED_PRECONDITION, "table has a bigint, files have a integer");

        // anything but a widening is refused and changes nothing
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("a", "integer"), Optional.empty()),
                INVALID_ARGUMENT, "Cannot change type of column a of table tpch.lineitem from bigint to integer");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("a", "bigint"), Optional.empty()),
                INVALID_ARGUMENT, "Cannot change type of column a of table tpch.lineitem from bigint to bigint");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("d", "decimal(31,3)"), Optional.empty()),
                INVALID_ARGUMENT, "Cannot change type of column d of table tpch.lineitem from decimal(30,2) to decimal(31,3)");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("r", "varchar"), Optional.empty()),
                INVALID_ARGUMENT, "Cannot change type of column r of table tpch.lineitem from double to varchar");
        assertStatus(() -> tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.SetType("nope", "bigint"), Optional.empty()),
                NOT_FOUND, "Column nope of table tpch.lineitem does not exist");
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(6);
    }

    @Test
    void testCommitCreatesTableWithProperties()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        allocate(first);
        CommitResult created = commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(first), PROPERTIES));
        assertThat(created.tableCreated()).isTrue();
        assertThat(tables.getTable(LINEITEM).orElseThrow().properties()).isEqualTo(PROPERTIES);

        // an append ignores properties: they belong to the table's creation
        FileEntry second = file(10, "node-a");
        allocate(second);
        commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(second), Map.of("sorted_by", "l_partkey")));
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.properties()).isEqualTo(PROPERTIES);
        assertThat(table.version()).isEqualTo(2);

        assertStatusContains(() -> commits.commit(CommitRequest.createOrAppend(new SchemaTableName("tpch", "t"), LINEITEM_COLUMNS, List.of(), Map.of("Bad", "x"))),
                INVALID_ARGUMENT, "Invalid table property name 'Bad'");
    }

    @Test
    void testMustCreate()
    {
        tables.createSchema("tpch", false);
        FileEntry file = file(10, "node-a");
        allocate(file);
        // must_create alone creates the table: it implies create_table
        CommitResult created = commits.commit(new CommitRequest(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.empty(), PROPERTIES, true, OptionalLong.empty(), Optional.empty(), false, Optional.empty(), Optional.empty()));
        assertThat(created).isEqualTo(new CommitResult(created.tableId(), 1, true));

        // a CREATE TABLE AS that lost the race to another CREATE fails rather than appending
        FileEntry loser = file(20, "node-b");
        allocate(loser);
        for (List<FileEntry> files : List.of(List.of(loser), List.<FileEntry>of())) {
            assertStatus(
                    () -> commits.commit(CommitRequest.createTableAs(LINEITEM, LINEITEM_COLUMNS, files, Map.of())),
                    ALREADY_EXISTS,
                    "Table tpch.lineitem already exists");
        }
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(1);
        assertThat(table.rowCount()).isEqualTo(10);
        assertThat(tables.getTableFiles(created.tableId()).orElseThrow().files()).containsExactly(file);
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(loser.fileId());
    }

    @Test
    void testZeroFileCommits()
    {
        tables.createSchema("tpch", false);
        // CREATE TABLE AS of an empty result: the table exists, with its properties
        CommitResult created = commits.commit(CommitRequest.createTableAs(LINEITEM, LINEITEM_COLUMNS, List.of(), PROPERTIES));
        assertThat(created).isEqualTo(new CommitResult(created.tableId(), 1, true));
        assertThat(tables.getTable(LINEITEM).orElseThrow().properties()).isEqualTo(PROPERTIES);

        // INSERT of nothing: no new version, so readers keep their cached file lists
        assertThat(commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(), OptionalLong.of(1)))).isEqualTo(new CommitResult(created.tableId(), 1, false));
        FileEntry file = file(10, "node-a");
        allocate(file);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(file), OptionalLong.of(1)));
        // it wrote nothing, so a commit in between is no conflict
        assertThat(commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(), OptionalLong.of(1)))).isEqualTo(new CommitResult(created.tableId(), 2, false));
        // but it still must be about this table
        assertStatusContains(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS.subList(0, 2), false, List.of(), OptionalLong.empty())), FAILED_PRECONDITION,
                "Columns of table tpch.lineitem do not match the files");
        assertStatus(() -> commits.commit(commit(new SchemaTableName("tpch", "missing"), LINEITEM_COLUMNS, false, List.of(), OptionalLong.empty())), NOT_FOUND,
                "Table tpch.missing does not exist");

        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.version()).isEqualTo(2);
        assertThat(table.fileCount()).isEqualTo(1);
    }

    @Test
    void testDropTable()
            throws Exception
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a", "node-b");
        FileEntry second = file(20, "node-b");
        FileEntry other = file(30, "node-a");
        allocate(first, second, other);
        long tableId = commits.commit(CommitRequest.createOrAppend(LINEITEM, LINEITEM_COLUMNS, List.of(first, second), PROPERTIES)).tableId();
        SchemaTableName orders = new SchemaTableName("tpch", "orders");
        long ordersId = commits.commit(commit(orders, LINEITEM_COLUMNS, true, List.of(other), OptionalLong.empty())).tableId();

        assertThat(tables.dropTable(LINEITEM, false)).contains(new DroppedTable(tableId, 2));
        assertThat(tables.getTable(LINEITEM)).isEmpty();
        assertThat(tables.getTableFiles(tableId)).isEmpty();
        assertThat(tables.listTables(Optional.empty())).containsExactly(orders);
        for (String table : List.of("tables", "columns", "table_properties", "files")) {
            assertThat(countRows("SELECT count(*) FROM %s WHERE table_id = %s".formatted(table, tableId))).as(table).isZero();
        }
        assertThat(countRows("SELECT count(*) FROM file_replicas WHERE file_id IN ('%s', '%s')".formatted(first.fileId(), second.fileId()))).isZero();
        // the other table is untouched
        assertThat(tables.getTableFiles(ordersId).orElseThrow().files()).containsExactly(other);

        assertStatus(() -> tables.dropTable(LINEITEM, false), NOT_FOUND, "Table tpch.lineitem does not exist");
        assertStatus(() -> tables.dropTable(new SchemaTableName("nope", "t"), false), NOT_FOUND, "Table nope.t does not exist");
        assertStatus(() -> tables.dropTable(new SchemaTableName("tpch", "Bad Name"), false), NOT_FOUND, "Table tpch.Bad Name does not exist");
        assertThat(tables.dropTable(LINEITEM, true)).isEmpty();

        // the name is free again: a new table, with a new id and nothing of the old one
        CreateTableResult recreated = tables.createTable(LINEITEM, LINEITEM_COLUMNS.subList(0, 1), Map.of(), false);
        assertThat(recreated.table().tableId()).isNotIn(tableId, ordersId);
        assertThat(recreated.table().properties()).isEmpty();
        assertThat(tables.dropTable(LINEITEM, false)).contains(new DroppedTable(recreated.table().tableId(), 0));
    }

    @Test
    void testInsertCommitsOnlyIntoTheTableItBeganOn()
            throws Exception
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        allocate(first);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first), OptionalLong.empty())).tableId();

        // an INSERT began on that table; meanwhile it is dropped and created again with the same columns
        tables.dropTable(LINEITEM, false);
        tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false);
        FileEntry inserted = file(5, "node-a");
        allocate(inserted);
        CommitRequest insert = CommitRequest.insert(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(inserted));
        assertStatus(() -> commits.commit(insert), ABORTED, "Table tpch.lineitem was dropped and created again while the write ran; nothing was committed");
        assertThat(tables.getTable(LINEITEM).orElseThrow().rowCount()).isZero();

        tables.dropTable(LINEITEM, false);
        assertStatus(() -> commits.commit(insert), ABORTED, "Table tpch.lineitem was dropped while the write ran; nothing was committed");
    }

    @Test
    void testDeleteRemovesFilesAndRowGroupsInOneCommit()
    {
        tables.createSchema("tpch", false);
        FileEntry whole = file(10, "node-a");
        FileEntry grouped = fileOfRowGroups(List.of("node-a", "node-b"), 5, 6, 7);
        FileEntry rewritten = file(8, "node-b");
        allocate(whole, grouped, rewritten);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(whole, grouped, rewritten), OptionalLong.empty())).tableId();

        // the whole file and the middle row group leave in the metadata alone
        CommitResult deleted = commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(),
                new FileRemovals(1, List.of(whole.fileId()), List.of(), Map.of(grouped.fileId(), List.of(1)))));
        assertThat(deleted.version()).isEqualTo(2);
        assertThat(deleted.removed()).isEqualTo(new RemovalCounts(1, 0, 1, 16));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(withRemovedRowGroups(grouped, 1), rewritten);
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.rowCount()).isEqualTo(12 + 8);
        assertThat(table.fileCount()).isEqualTo(2);
        assertThat(table.sizeBytes()).isEqualTo(grouped.sizeBytes() + rewritten.sizeBytes());
        assertThat(countRows("SELECT count(*) FROM files WHERE file_id = '%s'".formatted(whole.fileId()))).isZero();

        // a rewrite: the file leaves, a file of its surviving rows enters, in one version
        FileEntry survivors = file(3, "node-a");
        allocate(survivors);
        CommitResult rewrite = commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(survivors),
                new FileRemovals(2, List.of(), List.of(rewritten.fileId()), Map.of())));
        assertThat(rewrite.version()).isEqualTo(3);
        assertThat(rewrite.removed()).isEqualTo(new RemovalCounts(0, 1, 0, 5));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(withRemovedRowGroups(grouped, 1), survivors);
        assertThat(tables.getTable(LINEITEM).orElseThrow().rowCount()).isEqualTo(12 + 3);

        // every earlier version still lists its own files: the snapshot a query planned
        assertThat(listVersion(tableId, 1)).containsExactly(whole, grouped, rewritten);
        assertThat(listVersion(tableId, 2)).containsExactly(withRemovedRowGroups(grouped, 1), rewritten);
        assertThat(listVersion(tableId, 3)).containsExactly(withRemovedRowGroups(grouped, 1), survivors);

        // removing the row groups a file has left removes the file
        CommitResult emptied = commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(),
                new FileRemovals(3, List.of(), List.of(), Map.of(grouped.fileId(), List.of(2, 0)))));
        assertThat(emptied.removed()).isEqualTo(new RemovalCounts(1, 0, 0, 12));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(survivors);
        assertThat(listVersion(tableId, 3)).containsExactly(withRemovedRowGroups(grouped, 1), survivors);
        TableEntry after = tables.getTable(LINEITEM).orElseThrow();
        assertThat(after.rowCount()).isEqualTo(3);
        assertThat(after.fileCount()).isEqualTo(1);
        assertThat(after.sizeBytes()).isEqualTo(survivors.sizeBytes());
    }

    @Test
    void testDeleteThatFindsItsFilesChangedChangesNothing()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(10, "node-a");
        FileEntry grouped = fileOfRowGroups(List.of("node-a"), 4, 4);
        allocate(first, grouped);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, grouped), OptionalLong.empty())).tableId();

        // an INSERT lands after both DELETEs read version 1: it neither conflicts nor loses its rows
        FileEntry inserted = file(3, "node-b");
        allocate(inserted);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(inserted), OptionalLong.empty()));
        commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(1, List.of(first.fileId()), List.of(), Map.of(grouped.fileId(), List.of(0)))));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(withRemovedRowGroups(grouped, 0), inserted);

        // a second DELETE that read version 1 too finds the files it removes or rewrites changed
        FileEntry survivors = file(2, "node-a");
        allocate(survivors);
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(1, List.of(first.fileId()), List.of(), Map.of()))),
                ABORTED, "File %s of table tpch.lineitem was removed by a commit at version 3, after version 1 that the statement read; nothing was committed".formatted(first.fileId()));
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(survivors), new FileRemovals(1, List.of(), List.of(grouped.fileId()), Map.of()))),
                ABORTED, "Row group 0 of file %s of table tpch.lineitem was removed by a commit at version 3, after version 1 that the statement read; nothing was committed".formatted(grouped.fileId()));
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(2, List.of(), List.of(), Map.of(grouped.fileId(), List.of(1))))),
                ABORTED, "Row group 0 of file %s of table tpch.lineitem was removed by a commit at version 3, after version 2 that the statement read; nothing was committed".formatted(grouped.fileId()));
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(3);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(withRemovedRowGroups(grouped, 0), inserted);
        // the refused rewrite's new file was not committed: its allocation is still open
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(survivors.fileId());

        // a DELETE that began on a table since dropped and created again under its name
        tables.truncateTable(LINEITEM, OptionalLong.empty());
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(3, List.of(inserted.fileId()), List.of(), Map.of()))),
                ABORTED, "Table tpch.lineitem was dropped and created again while the write ran; nothing was committed");
    }

    @Test
    void testUpdateCommitsRemovalsSurvivorsAndInsertedRowsAtOnce()
    {
        tables.createSchema("tpch", false);
        FileEntry whole = file(10, "node-a");
        FileEntry rewritten = file(4, "node-a");
        allocate(whole, rewritten);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(whole, rewritten), OptionalLong.empty())).tableId();

        // every row of one file and one row of another changed: 11 new rows, 3 survivors
        FileEntry survivors = file(3, "node-a");
        FileEntry inserted = file(11, "node-b");
        FileEntry stray = file(1, "node-b");
        allocate(survivors, inserted, stray);
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(survivors, inserted),
                        new FileRemovals(1, List.of(whole.fileId()), List.of(rewritten.fileId()), Map.of(), Set.of(stray.fileId())))),
                INVALID_ARGUMENT, "File %s is named as holding inserted rows, but the commit does not add it".formatted(stray.fileId()));
        // without naming the inserted file, its rows would count as survivors: more than the rewritten file held
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(survivors, inserted),
                        new FileRemovals(1, List.of(whole.fileId()), List.of(rewritten.fileId()), Map.of()))),
                INVALID_ARGUMENT, "The commit adds 14 surviving rows, more than the 4 rows its rewritten files held");
        // inserted rows alone do not make a rewrite: a rewritten file needs its survivors' file
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(inserted),
                        new FileRemovals(1, List.of(), List.of(rewritten.fileId()), Map.of(), Set.of(inserted.fileId())))),
                INVALID_ARGUMENT, "The commit rewrites 1 files but adds none");

        CommitResult result = commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(survivors, inserted),
                new FileRemovals(1, List.of(whole.fileId()), List.of(rewritten.fileId()), Map.of(), Set.of(inserted.fileId()))));
        // the rows removed are those that left: 10 and 1, whatever was inserted in their place
        assertThat(result.removed()).isEqualTo(new RemovalCounts(1, 1, 0, 11));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactlyInAnyOrder(survivors, inserted);
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(2);
    }

    @Test
    void testOptimizeReplacesFilesWithTheSameRows()
    {
        tables.createSchema("tpch", false);
        FileEntry first = file(3, "node-a");
        FileEntry second = file(4, "node-a");
        FileEntry kept = file(100, "node-b");
        allocate(first, second, kept);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first, second, kept), OptionalLong.empty())).tableId();

        // a compaction that lost a row, or removes or inserts anything, never becomes the table
        FileEntry short1 = file(6, "node-a");
        FileEntry compacted = file(7, "node-b");
        allocate(short1, compacted);
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(short1),
                        FileRemovals.optimize(1, List.of(first.fileId(), second.fileId())))),
                INVALID_ARGUMENT, "The OPTIMIZE adds 6 rows, but the 2 files it rewrites held 7");
        assertStatus(() -> commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(compacted),
                        new FileRemovals(1, List.of(kept.fileId()), List.of(first.fileId(), second.fileId()), Map.of(), Set.of(), true))),
                INVALID_ARGUMENT, "An OPTIMIZE only rewrites files, but the commit removes 1 files and row groups of 0, and names 0 files of inserted rows");

        CommitResult result = commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(compacted),
                FileRemovals.optimize(1, List.of(first.fileId(), second.fileId()))));
        assertThat(result.removed()).isEqualTo(new RemovalCounts(0, 2, 0, 0));
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactlyInAnyOrder(kept, compacted);
        assertThat(history.listVersions(LINEITEM))
                .extracting(TableVersion::version, version -> version.operation().orElseThrow())
                .containsExactly(tuple(1L, "CREATE TABLE AS"), tuple(2L, "OPTIMIZE"));
        // the version before keeps its files
        assertThat(listVersion(tableId, 1)).containsExactlyInAnyOrder(first, second, kept);
    }

    @Test
    void testRefreshCommitsTheFilesAndTheViewInOneTransaction()
    {
        tables.createSchema("tpch", false);
        ViewCatalog views = new ViewCatalog(database, clock);
        long tableId = tables.createTable(STORAGE_TABLE, LINEITEM_COLUMNS, Map.of(), false).table().tableId();
        ViewEntry created = views.createView(MATERIALIZED_VIEW, "{\"refreshed\":0}", Optional.of("totals"), false, true);

        // the first refresh adds files to the empty storage table
        FileEntry first = file(10, "node-a");
        allocate(first);
        CommitResult result = commits.commit(CommitRequest.insert(STORAGE_TABLE, LINEITEM_COLUMNS, tableId, List.of(first))
                .withViewRefresh(new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.of("totals"), created.version())));
        assertThat(result.version()).isEqualTo(2);
        assertThat(result.view()).contains(new ViewEntry(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.of("totals"), 2, created.createdMillis(), true));

        // the next replaces them
        FileEntry second = file(12, "node-b");
        allocate(second);
        result = commits.commit(refreshOf(tableId, 2, List.of(first), List.of(second), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":2}", Optional.empty(), 2)));
        ViewEntry refreshed = new ViewEntry(MATERIALIZED_VIEW, "{\"refreshed\":2}", Optional.empty(), 3, created.createdMillis(), true);
        assertThat(result.version()).isEqualTo(3);
        assertThat(result.view()).contains(refreshed);
        assertThat(views.getView(MATERIALIZED_VIEW, true)).contains(refreshed);
        assertThat(tables.getTable(STORAGE_TABLE).orElseThrow().version()).isEqualTo(3);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(second);
        assertThat(listVersion(tableId, 2)).containsExactly(first);
    }

    @Test
    void testRefreshRefusedForItsViewCommitsNoFile()
    {
        tables.createSchema("tpch", false);
        ViewCatalog views = new ViewCatalog(database, clock);
        FileEntry old = file(10, "node-a");
        allocate(old);
        long tableId = commits.commit(commit(STORAGE_TABLE, LINEITEM_COLUMNS, true, List.of(old), OptionalLong.empty())).tableId();
        views.createView(MATERIALIZED_VIEW, "{\"refreshed\":0}", Optional.empty(), false, true);
        // COMMENT ON COLUMN while the refresh ran
        ViewEntry commented = views.updateView(MATERIALIZED_VIEW, "{\"refreshed\":0,\"comment\":1}", Optional.empty(), 1, true);

        FileEntry refreshed = file(12, "node-b");
        allocate(refreshed);
        // the view is checked after the files were written in the transaction: all of it rolls back
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.empty(), 1))),
                ABORTED, "View tpch.totals is at version 2, but the change expects version 1: it was changed meanwhile; nothing was changed");
        views.createView(new SchemaTableName("tpch", "plain"), "{}", Optional.empty(), false);
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(new SchemaTableName("tpch", "plain"), "{\"refreshed\":1}", Optional.empty(), 1))),
                NOT_FOUND, "Materialized view tpch.plain does not exist");
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(new SchemaTableName("tpch", "missing"), "{\"refreshed\":1}", Optional.empty(), 1))),
                NOT_FOUND, "Materialized view tpch.missing does not exist");

        // neither the data nor the view's record
        assertThat(tables.getTable(STORAGE_TABLE).orElseThrow().version()).isEqualTo(1);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(old);
        assertThat(history.listVersions(STORAGE_TABLE)).hasSize(1);
        assertThat(countRows("SELECT count(*) FROM files")).isEqualTo(1);
        assertThat(views.getView(MATERIALIZED_VIEW, true)).contains(commented);

        // the file's allocation is still open: the refresh derived from the view as it is now commits it
        CommitResult result = commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.empty(), commented.version())));
        assertThat(result.view().orElseThrow().version()).isEqualTo(3);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(refreshed);
    }

    @Test
    void testRefreshRefusedForItsFilesLeavesTheViewAsItWas()
    {
        tables.createSchema("tpch", false);
        ViewCatalog views = new ViewCatalog(database, clock);
        FileEntry old = file(10, "node-a");
        allocate(old);
        long tableId = commits.commit(commit(STORAGE_TABLE, LINEITEM_COLUMNS, true, List.of(old), OptionalLong.empty())).tableId();
        ViewEntry view = views.createView(MATERIALIZED_VIEW, "{\"refreshed\":0}", Optional.empty(), false, true);

        // two refreshes read version 1; the first commits, and so does a DELETE on the storage table
        FileEntry first = file(12, "node-b");
        FileEntry second = file(12, "node-a");
        allocate(first, second);
        view = commits.commit(refreshOf(tableId, 1, List.of(old), List.of(first), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.empty(), view.version()))).view().orElseThrow();
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(second), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":2}", Optional.empty(), 1))),
                ABORTED, "File %s of table tpch.%s was removed by a commit at version 2, after version 1 that the statement read; nothing was committed".formatted(old.fileId(), STORAGE_TABLE.tableName()));
        commits.commit(CommitRequest.delete(STORAGE_TABLE, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(2, List.of(first.fileId()), List.of(), Map.of())));
        // even expecting the view's current version, a refresh whose files are gone changes nothing
        long viewVersion = view.version();
        assertStatus(() -> commits.commit(refreshOf(tableId, 2, List.of(first), List.of(second), new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":2}", Optional.empty(), viewVersion))),
                ABORTED, "File %s of table tpch.%s was removed by a commit at version 3, after version 2 that the statement read; nothing was committed".formatted(first.fileId(), STORAGE_TABLE.tableName()));

        assertThat(views.getView(MATERIALIZED_VIEW, true)).contains(view);
        assertThat(tables.getTable(STORAGE_TABLE).orElseThrow().version()).isEqualTo(3);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).isEmpty();
    }

    @Test
    void testRefreshChecks()
    {
        tables.createSchema("tpch", false);
        tables.createSchema("other", false);
        ViewCatalog views = new ViewCatalog(database, clock);
        FileEntry old = file(10, "node-a");
        allocate(old);
        long tableId = commits.commit(commit(STORAGE_TABLE, LINEITEM_COLUMNS, true, List.of(old), OptionalLong.empty())).tableId();
        ViewEntry view = views.createView(MATERIALIZED_VIEW, "{\"refreshed\":0}", Optional.empty(), false, true);
        FileEntry refreshed = file(12, "node-b");
        allocate(refreshed);

        ViewRefresh refresh = new ViewRefresh(MATERIALIZED_VIEW, "{\"refreshed\":1}", Optional.empty(), 1);
        assertStatus(() -> commits.commit(commit(STORAGE_TABLE, LINEITEM_COLUMNS, true, List.of(refreshed), OptionalLong.empty()).withViewRefresh(refresh)),
                INVALID_ARGUMENT, "A commit that refreshes a materialized view cannot create or replace its table");
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(new SchemaTableName("other", "totals"), "{}", Optional.empty(), 1))),
                INVALID_ARGUMENT, "The materialized view other.totals is not in the schema of table tpch.%s".formatted(STORAGE_TABLE.tableName()));
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(MATERIALIZED_VIEW, "", Optional.empty(), 1))),
                INVALID_ARGUMENT, "A view needs a definition");
        assertStatus(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(MATERIALIZED_VIEW, "{}", Optional.of("c".repeat(65_537)), 1))),
                INVALID_ARGUMENT, "A comment is longer than 65536 characters");
        assertStatusContains(() -> commits.commit(refreshOf(tableId, 1, List.of(old), List.of(refreshed), new ViewRefresh(new SchemaTableName("tpch", "Bad"), "{}", Optional.empty(), 1))),
                INVALID_ARGUMENT, "Invalid view name 'Bad'");

        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(old);
        assertThat(views.getView(MATERIALIZED_VIEW, true)).contains(view);
    }

    @Test
    void testDeleteChecks()
    {
        tables.createSchema("tpch", false);
        FileEntry first = fileOfRowGroups(List.of("node-a"), 4, 4);
        FileEntry later = file(5, "node-a");
        FileEntry elsewhere = file(5, "node-a");
        allocate(first, later, elsewhere);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(first), OptionalLong.empty())).tableId();
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(later), OptionalLong.empty()));
        commits.commit(commit(new SchemaTableName("tpch", "other"), LINEITEM_COLUMNS, true, List.of(elsewhere), OptionalLong.empty()));
        commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(2, List.of(), List.of(), Map.of(first.fileId(), List.of(0)))));
        FileEntry survivors = file(4, "node-a");
        FileEntry tooMany = file(5, "node-a");
        allocate(survivors, tooMany);

        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(4, List.of(first.fileId()), List.of(), Map.of()))),
                INVALID_ARGUMENT, "The statement read version 4 of table tpch.lineitem, which is at version 3");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(0, List.of(first.fileId()), List.of(), Map.of()))),
                INVALID_ARGUMENT, "The removals read version 0: tables start at version 1");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(), List.of(), Map.of()))),
                INVALID_ARGUMENT, "The commit's removals name no file");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(elsewhere.fileId()), List.of(), Map.of()))),
                INVALID_ARGUMENT, "File %s is not a file of version 3 of table tpch.lineitem".formatted(elsewhere.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(1, List.of(later.fileId()), List.of(), Map.of()))),
                INVALID_ARGUMENT, "File %s was committed to table tpch.lineitem at version 2, after version 1 that the statement read".formatted(later.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(), List.of(), Map.of(first.fileId(), List.of(2))))),
                INVALID_ARGUMENT, "File %s has 2 row groups: there is no row group 2 to remove".formatted(first.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(), List.of(), Map.of(first.fileId(), List.of(0))))),
                INVALID_ARGUMENT, "Row group 0 of file %s was removed at version 3, so version 3 that the statement read had none of its rows".formatted(first.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(), List.of(), Map.of(first.fileId(), List.of(1, 1))))),
                INVALID_ARGUMENT, "The removal of row groups of file %s names a row group twice: [1, 1]".formatted(first.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(later.fileId()), List.of(), Map.of(later.fileId(), List.of(0))))),
                INVALID_ARGUMENT, "File %s is named twice in the commit's removals".formatted(later.fileId()));
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(), List.of(later.fileId()), Map.of()))),
                INVALID_ARGUMENT, "The commit rewrites 1 files but adds none");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(survivors), new FileRemovals(3, List.of(later.fileId()), List.of(), Map.of()))),
                INVALID_ARGUMENT, "The commit removes files and adds 1 files, but rewrites none");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(tooMany), new FileRemovals(3, List.of(), List.of(first.fileId()), Map.of()))),
                INVALID_ARGUMENT, "The commit adds 5 surviving rows, more than the 4 rows its rewritten files held");
        assertStatus(() -> commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of("../x"), List.of(), Map.of()))),
                INVALID_ARGUMENT, "Invalid file id '../x': file ids are 32 lower-case hex characters issued by AllocateFiles");
        assertStatus(() -> commits.commit(new CommitRequest(LINEITEM, LINEITEM_COLUMNS, true, List.of(), OptionalLong.empty(), Map.of(), false, OptionalLong.empty(), Optional.empty(), false,
                        Optional.of(new FileRemovals(3, List.of(later.fileId()), List.of(), Map.of())), Optional.empty())),
                INVALID_ARGUMENT, "A commit that removes files cannot create or replace its table");
        assertStatus(() -> commits.commit(CommitRequest.delete(new SchemaTableName("tpch", "nope"), LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(1, List.of(later.fileId()), List.of(), Map.of()))),
                ABORTED, "Table tpch.nope was dropped while the write ran; nothing was committed");
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(3);
        assertThat(tables.getTableFiles(tableId).orElseThrow().files()).containsExactly(withRemovedRowGroups(first, 0), later);

        // a column change since the DELETE began concerns only a rewrite, whose files have the old columns
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("l_comment", "varchar")), Optional.empty());
        assertStatusContains(() -> commits.commit(deleteOf(tableId, List.of(survivors), new FileRemovals(3, List.of(), List.of(first.fileId()), Map.of()))),
                FAILED_PRECONDITION, "Columns of table tpch.lineitem");
        assertThat(commits.commit(deleteOf(tableId, List.of(), new FileRemovals(3, List.of(later.fileId()), List.of(), Map.of()))).removed())
                .isEqualTo(new RemovalCounts(1, 0, 0, 5));
    }

    @Test
    void testRemovedFilesAreKeptForTheRetention()
    {
        tables.createSchema("tpch", false);
        FileEntry removed = file(10, "node-a");
        FileEntry grouped = fileOfRowGroups(List.of("node-b"), 4, 4);
        FileEntry kept = file(5, "node-b");
        allocate(removed, grouped, kept);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(removed, grouped, kept), OptionalLong.empty())).tableId();
        commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(1, List.of(removed.fileId()), List.of(), Map.of(grouped.fileId(), List.of(1)))));

        // a query that planned version 1 reads it on: the removed file stays listed, and on its nodes
        clock.advance(59, MINUTES);
        assertThat(listVersion(tableId, 1)).containsExactly(removed, grouped, kept);
        assertThat(allocations.findOrphans("node-a", List.of(removed.fileId()))).isEmpty();
        assertThat(allocations.findOrphans("node-b", List.of(removed.fileId()))).as("on any node while a query may read it").isEmpty();

        // the retention after the DELETE's commit: version 1 is gone, and with it the removed file
        clock.advance(1, MINUTES);
        assertStatusContains(() -> listVersion(tableId, 1), FAILED_PRECONDITION, "Version 1 of table with id %s is no longer retained".formatted(tableId));
        assertThat(allocations.findOrphans("node-a", List.of(removed.fileId()))).containsExactly(removed.fileId());
        assertThat(countRows("SELECT count(*) FROM removed_files")).isZero();
        assertThat(countRows("SELECT count(*) FROM removed_file_replicas")).isZero();
        // the file that lost a row group is the table's still, its removed row group with it
        assertThat(listVersion(tableId, 2)).containsExactly(withRemovedRowGroups(grouped, 1), kept);
        assertThat(allocations.findOrphans("node-b", List.of(grouped.fileId(), kept.fileId()))).isEmpty();
    }

    @Test
    void testDroppedTableKeepsTheFilesItsDeletesRemoved()
    {
        tables.createSchema("tpch", false);
        FileEntry removed = file(10, "node-a");
        FileEntry grouped = fileOfRowGroups(List.of("node-b"), 4, 4);
        allocate(removed, grouped);
        long tableId = commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(removed, grouped), OptionalLong.empty())).tableId();
        commits.commit(CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, List.of(), new FileRemovals(1, List.of(removed.fileId()), List.of(), Map.of(grouped.fileId(), List.of(0)))));
        clock.advance(10, MINUTES);
        assertThat(tables.dropTable(LINEITEM, false)).contains(new DroppedTable(tableId, 1));

        // each version of the dropped table lists its own files until the drop's retention passes
        assertThat(listVersion(tableId, 1)).containsExactly(removed, grouped);
        assertThat(listVersion(tableId, 2)).containsExactly(withRemovedRowGroups(grouped, 0));
        assertThat(allocations.findOrphans("node-a", List.of(removed.fileId()))).isEmpty();
        clock.advance(1, HOURS);
        assertThat(allocations.findOrphans("node-a", List.of(removed.fileId(), grouped.fileId()))).containsExactlyInAnyOrder(removed.fileId(), grouped.fileId());
        for (String table : List.of("dropped_files", "dropped_file_replicas", "removed_files", "removed_row_groups")) {
            assertThat(countRows("SELECT count(*) FROM " + table)).as(table).isZero();
        }
    }

    @Test
    void testTimeTravelResolvesVersionsAndTimes()
    {
        tables.createSchema("tpch", false);
        long created = clock.millis();
        tables.createTable(LINEITEM, LINEITEM_COLUMNS, PROPERTIES, false);
        clock.advance(1, MINUTES);
        FileEntry first = file(10, "node-a");
        allocate(first);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(first), OptionalLong.of(1)));
        long inserted = clock.millis();
        clock.advance(1, MINUTES);
        TableColumn comment = new TableColumn("l_comment", "varchar");
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Add(comment), Optional.empty());
        clock.advance(1, MINUTES);
        tables.alterColumn(LINEITEM, OptionalLong.empty(), new ColumnChange.Drop("l_quantity"), Optional.empty());
        clock.advance(1, MINUTES);

        // each version with the columns it had: l_comment came at 3, l_quantity went at 4
        TableColumn quantityDropped = new TableColumn("l_quantity", "double", Optional.empty(), true);
        TableColumn commentNotYet = new TableColumn("l_comment", "varchar", Optional.empty(), true);
        assertThat(history.tableAtVersion(LINEITEM, 1).columns()).containsExactly(LINEITEM_COLUMNS.get(0), LINEITEM_COLUMNS.get(1), LINEITEM_COLUMNS.get(2), LINEITEM_COLUMNS.get(3), commentNotYet);
        assertThat(history.tableAtVersion(LINEITEM, 3).columns()).containsExactly(LINEITEM_COLUMNS.get(0), LINEITEM_COLUMNS.get(1), LINEITEM_COLUMNS.get(2), LINEITEM_COLUMNS.get(3), comment);
        assertThat(history.tableAtVersion(LINEITEM, 4).columns()).containsExactly(LINEITEM_COLUMNS.get(0), LINEITEM_COLUMNS.get(1), quantityDropped, LINEITEM_COLUMNS.get(3), comment);
        assertThat(history.tableAtVersion(LINEITEM, 4)).isEqualTo(tables.getTable(LINEITEM).orElseThrow());
        TableEntry second = history.tableAtVersion(LINEITEM, 2);
        assertThat(second.version()).isEqualTo(2);
        assertThat(second.rowCount()).isEqualTo(10);
        assertThat(second.fileCount()).isEqualTo(1);
        assertThat(history.tableAtVersion(LINEITEM, 1).rowCount()).isZero();

        // a time resolves to the version current then; a commit's own millisecond is its version's
        assertThat(history.tableAsOf(LINEITEM, created).version()).isEqualTo(1);
        assertThat(history.tableAsOf(LINEITEM, inserted - 1).version()).isEqualTo(1);
        assertThat(history.tableAsOf(LINEITEM, inserted).version()).isEqualTo(2);
        assertThat(history.tableAsOf(LINEITEM, clock.millis()).version()).isEqualTo(4);

        assertStatus(() -> history.tableAtVersion(LINEITEM, 5), OUT_OF_RANGE, "Table tpch.lineitem is at version 4: version 5 does not exist");
        assertStatus(() -> history.tableAtVersion(LINEITEM, 0), INVALID_ARGUMENT, "Table versions start at 1, got 0");
        assertStatus(() -> history.tableAtVersion(new SchemaTableName("tpch", "nope"), 1), NOT_FOUND, "Table tpch.nope does not exist");
        assertStatusContains(() -> history.tableAsOf(LINEITEM, created - 1), OUT_OF_RANGE, "Table tpch.lineitem has no version as of");
        assertStatusContains(() -> history.tableAsOf(LINEITEM, clock.millis() + 1), INVALID_ARGUMENT, "that is in the future");

        assertThat(history.listVersions(LINEITEM))
                .extracting(TableVersion::version, version -> version.operation().orElseThrow(), version -> version.rowCount().orElseThrow(), TableVersion::current)
                .containsExactly(
                        tuple(1L, "CREATE TABLE", 0L, false),
                        tuple(2L, "INSERT", 10L, false),
                        tuple(3L, "ADD COLUMN", 10L, false),
                        tuple(4L, "DROP COLUMN", 10L, true));
        assertThat(history.listVersions(LINEITEM).getFirst().expiresMillis()).hasValue(inserted + HOURS.toMillis(1));

        // the retention after version 2 replaced version 1: version 1 is gone, by number and by time
        clock.advance(inserted + HOURS.toMillis(1) - clock.millis(), MILLISECONDS);
        assertStatus(() -> history.tableAtVersion(LINEITEM, 1), FAILED_PRECONDITION,
                "Version 1 of table tpch.lineitem is no longer kept: versions are kept for 1h after a later one replaced them (metadata.table-version-retention)");
        assertStatusContains(() -> history.tableAsOf(LINEITEM, created), FAILED_PRECONDITION, "Version 1 of table tpch.lineitem is no longer kept");
        assertThat(history.listVersions(LINEITEM)).extracting(TableVersion::version).containsExactly(2L, 3L, 4L);
        // a commit forgets the time of version 1, and time travel to then still names the version
        FileEntry later = file(1, "node-b");
        allocate(later);
        commits.commit(CommitRequest.append(LINEITEM, tables.getTable(LINEITEM).orElseThrow().columns(), List.of(later)).withExpectedVersion(4));
        assertThat(countRows("SELECT count(*) FROM table_versions WHERE version = 1")).isZero();
        assertStatusContains(() -> history.tableAsOf(LINEITEM, created), FAILED_PRECONDITION, "Version 1 of table tpch.lineitem is no longer kept");
        assertThat(history.listVersions(LINEITEM)).extracting(TableVersion::version).containsExactly(2L, 3L, 4L, 5L);
    }

    @Test
    void testTableVersionRetentionProperty()
    {
        tables.createSchema("tpch", false);
        SchemaTableName kept = new SchemaTableName("tpch", "kept");
        tables.createTable(kept, LINEITEM_COLUMNS, Map.of("version_retention", "2.00d"), false);
        tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false);
        for (SchemaTableName name : List.of(kept, LINEITEM)) {
            tables.alterColumn(name, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("l_comment", "varchar")), Optional.empty());
        }
        clock.advance(1, DAYS);
        assertThat(history.tableAtVersion(kept, 1).version()).isEqualTo(1);
        assertStatus(() -> history.tableAtVersion(LINEITEM, 1), FAILED_PRECONDITION,
                "Version 1 of table tpch.lineitem is no longer kept: versions are kept for 1h after a later one replaced them (metadata.table-version-retention)");
        clock.advance(1, DAYS);
        assertStatus(() -> history.tableAtVersion(kept, 1), FAILED_PRECONDITION,
                "Version 1 of table tpch.kept is no longer kept: versions are kept for 2d after a later one replaced them (the table's version_retention)");

        // a dropped table's files are kept for its own retention
        FileEntry file = file(3, "node-a");
        allocate(file);
        long keptId = commits.commit(CommitRequest.append(kept, tables.getTable(kept).orElseThrow().columns(), List.of(file))).tableId();
        tables.dropTable(kept, false);
        clock.advance(1, DAYS);
        assertThat(allocations.findOrphans("node-a", List.of(file.fileId()))).isEmpty();
        assertThat(listVersion(keptId, 3)).containsExactly(file);
        clock.advance(1, DAYS);
        assertThat(allocations.findOrphans("node-a", List.of(file.fileId()))).containsExactly(file.fileId());

        // a retention set later applies to the versions kept now
        SchemaTableName later = new SchemaTableName("tpch", "later");
        tables.createTable(later, LINEITEM_COLUMNS, Map.of(), false);
        tables.alterColumn(later, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("l_comment", "varchar")), Optional.empty());
        clock.advance(30, MINUTES);
        tables.setProperties(later, OptionalLong.empty(), Map.of("version_retention", "3h"));
        clock.advance(2, HOURS);
        assertThat(history.tableAtVersion(later, 1).version()).isEqualTo(1);
        assertThat(tables.getTable(later).orElseThrow().version()).isEqualTo(2);
        assertStatus(() -> tables.setProperties(later, OptionalLong.of(12345), Map.of()), ABORTED,
                "Table tpch.later was dropped and created again since the statement began; no property was changed");
        assertStatus(() -> tables.setProperties(later, OptionalLong.empty(), Map.of("version_retention", "-1h")), INVALID_ARGUMENT,
                "Table property version_retention must be a duration such as '7d' or '12h', not '-1h'");
        assertThat(tables.getTable(later).orElseThrow().properties()).containsExactly(Map.entry("version_retention", "3h"));

        assertStatus(() -> tables.createTable(new SchemaTableName("tpch", "bad"), LINEITEM_COLUMNS, Map.of("version_retention", "soon"), false),
                INVALID_ARGUMENT, "Table property version_retention must be a duration such as '7d' or '12h', not 'soon'");
        assertStatus(() -> tables.createTable(new SchemaTableName("tpch", "bad"), LINEITEM_COLUMNS, Map.of("version_retention", "3651d"), false),
                INVALID_ARGUMENT, "Table property version_retention is 3651d, more than the longest allowed, 3650d");
    }

    @Test
    void testDropSchema()
    {
        assertStatus(() -> tables.dropSchema("tpch", false), NOT_FOUND, "Schema tpch does not exist");
        assertStatus(() -> tables.dropSchema("Bad Name", false), NOT_FOUND, "Schema Bad Name does not exist");
        assertThat(tables.dropSchema("tpch", true)).isFalse();

        tables.createSchema("tpch", false);
        tables.createSchema("other", false);
        tables.createTable(LINEITEM, LINEITEM_COLUMNS, Map.of(), false);
        assertStatus(() -> tables.dropSchema("tpch", false), FAILED_PRECONDITION, "Schema tpch is not empty");
        assertStatus(() -> tables.dropSchema("tpch", true), FAILED_PRECONDITION, "Schema tpch is not empty");
        assertThat(tables.listSchemas()).containsExactly("other", "tpch");

        tables.dropTable(LINEITEM, false);
        assertThat(tables.dropSchema("tpch", false)).isTrue();
        assertThat(tables.listSchemas()).containsExactly("other");
        assertStatus(() -> tables.listTables(Optional.of("tpch")), NOT_FOUND, "Schema tpch does not exist");
        assertThat(tables.createSchema("tpch", false)).isTrue();
    }

    @Test
    void testAllocationExpiry()
    {
        tables.createSchema("tpch", false);
        FileEntry onTime = file(10, "node-a");
        FileEntry late = file(10, "node-a");
        allocate(onTime, late);

        // exactly the timeout after allocation is still in time
        clock.advance(1, HOURS);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(onTime), OptionalLong.empty()));
        clock.advance(1, MILLISECONDS);
        assertStatus(
                () -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(late), OptionalLong.empty())),
                FAILED_PRECONDITION,
                "Cannot commit: file id %s was allocated too long ago (allocation timeout 1h)".formatted(late.fileId()));
        assertThat(tables.getTable(LINEITEM).orElseThrow().version()).isEqualTo(1);
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(late.fileId());
    }

    @Test
    void testFindOrphans()
    {
        tables.createSchema("tpch", false);
        FileEntry committed = file(10, "node-a");
        FileEntry dropped = file(10, "node-b");
        FileEntry expired = file(10, "node-a");
        allocate(committed, dropped, expired);
        commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(committed), OptionalLong.empty()));
        commits.commit(commit(new SchemaTableName("tpch", "gone"), LINEITEM_COLUMNS, true, List.of(dropped), OptionalLong.empty()));
        tables.dropTable(new SchemaTableName("tpch", "gone"), false);
        clock.advance(2, HOURS);
        FileEntry open = file(10, "node-a");
        allocate(open);
        String unknown = "ffffffffffffffffffffffffffffffff";

        List<String> asked = List.of(committed.fileId(), dropped.fileId(), expired.fileId(), open.fileId(), unknown, unknown);
        assertThat(allocations.findOrphans("node-a", asked)).containsExactlyInAnyOrder(dropped.fileId(), expired.fileId(), unknown);
        assertThat(allocations.findOrphans("node-a", List.of())).isEmpty();
        // a committed file is claimed only where the catalog places a replica: node-b's copy is one too many
        assertThat(allocations.findOrphans("node-b", List.of(committed.fileId()))).containsExactly(committed.fileId());
        // ... but a committed file that lost every replica row keeps whatever copy a node still has
        ReplicaCatalog replicas = new ReplicaCatalog(database, TestingCatalog.DEFAULT_REPLICATION);
        assertThat(replicas.removeReplica(committed.fileId(), "node-a")).isTrue();
        assertThat(allocations.findOrphans("node-b", List.of(committed.fileId()))).isEmpty();
        assertThat(replicas.addReplica(committed.fileId(), "node-a")).isTrue();
        assertThat(replicas.addReplica(committed.fileId(), "node-a")).isFalse();
        assertThat(replicas.addReplica(dropped.fileId(), "node-a")).as("a file of a dropped table").isFalse();

        // once reported, an expired allocation stays dead even if the wall clock steps back
        clock.advance(-2, HOURS);
        assertStatusContains(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, false, List.of(expired), OptionalLong.empty())), FAILED_PRECONDITION,
                "file id %s was allocated too long ago".formatted(expired.fileId()));
        assertThat(allocations.findOrphans("node-a", List.of(expired.fileId(), open.fileId()))).containsExactly(expired.fileId());

        // the open allocation expires in its turn
        clock.advance(4, HOURS);
        assertThat(allocations.findOrphans("node-a", List.of(open.fileId(), committed.fileId()))).containsExactly(open.fileId());

        assertStatus(() -> allocations.findOrphans("node-a", List.of("../x")), INVALID_ARGUMENT, "Invalid file id '../x': file ids are 32 lower-case hex characters");
        List<String> tooMany = IntStream.range(0, 10_001).mapToObj("f%031x"::formatted).toList();
        assertStatus(() -> allocations.findOrphans("node-a", tooMany), INVALID_ARGUMENT, "At most 10000 file ids per orphan check, got 10001");
        assertThat(allocations.findOrphans("node-a", tooMany.subList(1, 10_001))).hasSize(10_000);
    }

    @Test
    void testClusterId()
            throws Exception
    {
        String clusterId = cluster.clusterId();
        assertThat(clusterId).matches(UUID_PATTERN);
        assertThat(cluster.clusterId()).isEqualTo(clusterId);

        // kept across restarts
        database.close();
        use(reopenDatabase());
        assertThat(cluster.clusterId()).isEqualTo(clusterId);

        // another database is another cluster
        try (CatalogDatabase other = newOtherDatabase()) {
            assertThat(new ClusterCatalog(other).clusterId()).matches(UUID_PATTERN).isNotEqualTo(clusterId);
        }

        // one id, forever: the table takes no second row
        assertThatThrownBy(() -> database.inTransaction(handle -> handle.execute("INSERT INTO cluster (cluster_id) VALUES ('another')")))
                .isInstanceOf(CatalogDatabaseException.class);
        assertThat(cluster.clusterId()).isEqualTo(clusterId);
    }

    @Test
    void testHeartbeatsOfManyNodesInOneTransaction()
    {
        ReplicaCatalog replicas = new ReplicaCatalog(database, TestingCatalog.DEFAULT_REPLICATION);
        assertThat(replicas.setDraining("node-b", true)).isTrue();
        assertThat(nodes.recordHeartbeats(List.of())).isEmpty();

        Set<String> unknown = nodes.recordHeartbeats(List.of(
                new NodeHeartbeat("node-a", 500, 3, 42),
                new NodeHeartbeat("node-z", 1, 1, 42),
                new NodeHeartbeat("node-b", 0, 7, 43)));
        assertThat(unknown).containsExactly("node-z");
        assertThat(nodes.nodes()).containsExactly(
                new CatalogNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 500, 3, 42), false),
                new CatalogNode(new NodeEntry("node-b", "127.0.0.1:7002", 1000, 0, 7, 43), true));
        assertThat(countRows("SELECT count(*) FROM nodes WHERE node_id = 'node-z'")).isZero();
    }

    @Test
    void testAbandonedAllocationsArePurged()
    {
        tables.createSchema("tpch", false);
        List<FileEntry> abandoned = IntStream.range(0, 5).mapToObj(_ -> file(10, "node-a")).toList();
        allocate(abandoned.toArray(FileEntry[]::new));
        clock.advance(30, MINUTES);
        FileEntry expired = file(10, "node-a");
        allocate(expired);
        clock.advance(60, MINUTES);
        FileEntry open = file(10, "node-a");
        allocate(open);

        // the first allocations are exactly twice the timeout old: not yet past the grace
        clock.advance(30, MINUTES);
        assertThat(allocations.purgeAbandoned(2)).isZero();
        clock.advance(1, MILLISECONDS);
        AllocationPurger purger = new AllocationPurger(allocations, new Duration(1, MINUTES));
        assertThat(allocations.purgeAbandoned(2)).isEqualTo(5);
        assertThat(purger.purge()).isZero();
        assertThat(purger.getPurgedAllocations()).isZero();
        assertThat(allocations.listAllocations()).extracting(Allocation::fileId).containsExactly(expired.fileId(), open.fileId());

        // a purged id can never be committed, and is an orphan wherever it is
        FileEntry purged = abandoned.getFirst();
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(purged), OptionalLong.empty())), FAILED_PRECONDITION,
                "File %s has no open allocation: its id was not issued by AllocateFiles, or its allocation expired and was purged".formatted(purged.fileId()));
        assertThat(allocations.findOrphans("node-a", List.of(purged.fileId(), expired.fileId(), open.fileId()))).containsExactlyInAnyOrder(purged.fileId(), expired.fileId());
        // within the grace, a late commit learns why it failed
        assertStatus(() -> commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(expired), OptionalLong.empty())), FAILED_PRECONDITION,
                "Cannot commit: file id %s was allocated too long ago (allocation timeout 1h)".formatted(expired.fileId()));
        assertNothingCommitted();
        // an open allocation is untouched
        assertThat(commits.commit(commit(LINEITEM, LINEITEM_COLUMNS, true, List.of(open), OptionalLong.empty())).version()).isEqualTo(1);

        clock.advance(30, MINUTES);
        assertThat(purger.purge()).isEqualTo(1);
        assertThat(purger.getPurgedAllocations()).isEqualTo(1);
        assertThat(allocations.listAllocations()).isEmpty();
        assertThat(tables.getTable(LINEITEM).orElseThrow().fileCount()).isEqualTo(1);
    }

    @Test
    void testGrantSecretIsCreatedOnce()
    {
        byte[] first = {1, 2, 3, 4};
        assertThat(cluster.grantSecret(() -> first)).isEqualTo(first);
        assertThat(cluster.grantSecret(() -> {
            throw new AssertionError("a stored secret is not replaced");
        })).isEqualTo(first);
        // another service over the same database gets the same secret
        assertThat(new ClusterCatalog(database).grantSecret(() -> new byte[] {5, 6})).isEqualTo(first);

        database.close();
        use(reopenDatabase());
        assertThat(cluster.grantSecret(() -> new byte[] {9})).isEqualTo(first);
        try (CatalogDatabase other = newOtherDatabase()) {
            assertThatThrownBy(() -> new ClusterCatalog(other).grantSecret(() -> new byte[0]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("The grant secret is empty");
            assertThat(new ClusterCatalog(other).grantSecret(() -> new byte[] {9})).isEqualTo(new byte[] {9});
        }
    }

    protected void use(CatalogDatabase database)
    {
        this.database = database;
        TestingCatalog catalog = TestingCatalog.create(database, clock, ALLOCATION_TIMEOUT, TableVersionRetention.DEFAULT_RETENTION);
        cluster = catalog.cluster();
        tables = catalog.tables();
        history = catalog.history();
        commits = catalog.commits();
        allocations = catalog.allocations();
        nodes = catalog.nodes();
    }

    protected long countRows(String sql)
    {
        return countRows(database, sql);
    }

    protected static long countRows(CatalogDatabase database, String sql)
    {
        return database.inTransaction(handle -> handle.createQuery(sql).mapTo(Long.class).one());
    }

    protected void assertNothingCommitted()
    {
        assertThat(tables.listTables(Optional.empty())).isEmpty();
    }

    protected void allocate(FileEntry... files)
    {
        allocations.addAllocations(List.of(files).stream()
                .map(file -> new Allocation(file.fileId(), clock.millis(), file.replicaNodeIds()))
                .toList());
    }

    /** A file whose row groups hold these many rows each. */
    protected FileEntry fileOfRowGroups(List<String> replicas, long... rowGroupRows)
    {
        String fileId = "%032x".formatted(++nextFileId);
        long rows = LongStream.of(rowGroupRows).sum();
        return new FileEntry(fileId, 1000 + rows, rows, 0xCAFE0000 + nextFileId, compactStatsOfRowGroups(rowGroupRows), replicas);
    }

    protected static FileEntry withRemovedRowGroups(FileEntry file, Integer... rowGroups)
    {
        return new FileEntry(file.fileId(), file.sizeBytes(), file.rowCount(), file.crc32c(), file.compactStats(), file.replicaNodeIds(), file.columnSketches(), List.of(rowGroups));
    }

    protected List<FileEntry> listVersion(long tableId, long version)
    {
        return tables.getTableFilesPage(new TableFilesPageRequest(tableId, version, FilePosition.START, 1000, Long.MAX_VALUE, true)).orElseThrow().files();
    }

    /** A refresh's commit into the storage table: every file of the version it read leaves, its files enter, and its view records it. */
    protected static CommitRequest refreshOf(long tableId, long readVersion, List<FileEntry> oldFiles, List<FileEntry> newFiles, ViewRefresh refresh)
    {
        FileRemovals removals = new FileRemovals(readVersion, oldFiles.stream().map(FileEntry::fileId).toList(), List.of(), Map.of(), newFiles.stream().map(FileEntry::fileId).collect(toImmutableSet()));
        return CommitRequest.delete(STORAGE_TABLE, LINEITEM_COLUMNS, tableId, newFiles, removals).withViewRefresh(refresh);
    }

    protected static CommitRequest deleteOf(long tableId, List<FileEntry> files, FileRemovals removals)
    {
        return CommitRequest.delete(LINEITEM, LINEITEM_COLUMNS, tableId, files, removals);
    }

    /** An append, creating the table (with no properties) if {@code createTable}, at the expected version if one is given. */
    protected static CommitRequest commit(SchemaTableName table, List<TableColumn> columns, boolean createTable, List<FileEntry> files, OptionalLong expectedVersion)
    {
        CommitRequest request = createTable ? CommitRequest.createOrAppend(table, columns, files, Map.of()) : CommitRequest.append(table, columns, files);
        return expectedVersion.isPresent() ? request.withExpectedVersion(expectedVersion.getAsLong()) : request;
    }

    protected FileEntry file(long rowCount, String... replicas)
    {
        String fileId = "%032x".formatted(++nextFileId);
        // every other file carries column sketches: stored and returned as they came, or absent
        ByteString sketches = nextFileId % 2 == 0 ? ByteString.copyFromUtf8("sketches of " + fileId) : ByteString.EMPTY;
        return new FileEntry(fileId, 1000 + rowCount, rowCount, 0xCAFE0000 + nextFileId, compactStats(rowCount), List.of(replicas), sketches);
    }
}
