package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.ByteString;
import io.airlift.units.Duration;
import io.nsc.metadata.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

import static io.grpc.Status.Code.FAILED_PRECONDITION;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.OUT_OF_RANGE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static io.nsc.metadata.TestingStats.compactStats;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Paging through a table's files: a synthetic table of 20,000 files committed through the
 * catalog API is listed in bounded pages, every file exactly once, and always of the version the
 * listing began with, even when commits land between its pages or the table is dropped; a
 * version is listed for the table version retention after it stopped being current, and no longer.
 * Each subclass runs these tests on one catalog backend.
 */
abstract class AbstractTestTableFileListing
{
    private static final SchemaTableName TABLE = new SchemaTableName("s", "big");
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("x", "bigint"));
    private static final int COMMITS = 20;
    private static final int FILES_PER_COMMIT = 1000;
    private static final long UNBOUNDED_BYTES = Long.MAX_VALUE;
    private static final Duration RETENTION = new Duration(1, HOURS);

    private final TestingClock clock = new TestingClock(1_750_000_000_000L);
    private CatalogDatabase database;
    private TestingCatalog catalog;
    private int nextFileId;

    /** A new, empty database for one test. */
    protected abstract CatalogDatabase newDatabase();

    @BeforeEach
    void setUp()
    {
        database = newDatabase();
        catalog = TestingCatalog.create(database, clock, new Duration(1, HOURS), RETENTION);
        catalog.nodes().registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 900, 0, 1), List.of());
        catalog.nodes().registerNode(new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 1), List.of());
        catalog.tables().createSchema("s", false);
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testEveryFileOnceInBoundedPagesOfOneVersion()
    {
        List<FileEntry> committed = new ArrayList<>();
        long tableId = 0;
        for (int commit = 0; commit < COMMITS; commit++) {
            List<FileEntry> files = commitFiles(FILES_PER_COMMIT);
            tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
            committed.addAll(files);
        }
        long version = catalog.tables().getTable(TABLE).orElseThrow().version();
        assertThat(version).isEqualTo(COMMITS);

        // pages that do not line up with commits, and a commit landing after the third page
        int pageSize = 1500;
        List<FileEntry> listed = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        FilePosition after = FilePosition.START;
        int pages = 0;
        while (true) {
            TableFilesPage page = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, version, after, pageSize, UNBOUNDED_BYTES, true)).orElseThrow();
            pages++;
            assertThat(page.version()).isEqualTo(version);
            assertThat(page.files()).hasSizeLessThanOrEqualTo(pageSize);
            for (FileEntry file : page.files()) {
                assertThat(seen.add(file.fileId())).as("file %s listed twice", file.fileId()).isTrue();
            }
            listed.addAll(page.files());
            if (pages == 3) {
                commitFiles(FILES_PER_COMMIT);
            }
            if (page.next().isEmpty()) {
                break;
            }
            after = page.next().get();
        }
        assertThat(pages).isEqualTo((COMMITS * FILES_PER_COMMIT + pageSize - 1) / pageSize);
        // exactly version 20's files, in commit order, as they were committed (replicas, stats, sketches)
        assertThat(listed).isEqualTo(committed);

        // a listing that starts now sees the new version
        TableFilesPage current = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, FilePosition.START, 1, UNBOUNDED_BYTES, true)).orElseThrow();
        assertThat(current.version()).isEqualTo(version + 1);
        assertThat(countFiles(tableId, version + 1, 5000)).isEqualTo((COMMITS + 1) * FILES_PER_COMMIT);
        // and an older version is still listed whole
        assertThat(countFiles(tableId, 3, 700)).isEqualTo(3 * FILES_PER_COMMIT);
    }

    @Test
    void testPagesEndAtTheByteBound()
    {
        List<FileEntry> committed = commitFiles(100);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        long maxBytes = 10 * estimatedBytes(committed.getFirst());
        List<TableFilesPage> pages = new ArrayList<>();
        FilePosition after = FilePosition.START;
        do {
            TableFilesPage page = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, after, 1000, maxBytes, true)).orElseThrow();
            pages.add(page);
            after = page.next().orElse(null);
        }
        while (after != null);
        assertThat(pages.stream().flatMap(page -> page.files().stream()).toList()).isEqualTo(committed);
        for (int i = 0; i < pages.size(); i++) {
            long pageBytes = pages.get(i).files().stream().mapToLong(AbstractTestTableFileListing::estimatedBytes).sum();
            assertThat(pageBytes).isLessThanOrEqualTo(maxBytes);
            if (i < pages.size() - 1) {
                // full: the next file would have taken it past the bound
                assertThat(pageBytes + estimatedBytes(pages.get(i + 1).files().getFirst())).isGreaterThan(maxBytes);
            }
        }

        // a file larger than the bound still gets through, one per page
        TableFilesPage tiny = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, FilePosition.START, 1000, 1, true)).orElseThrow();
        assertThat(tiny.files()).containsExactly(committed.getFirst());
        assertThat(tiny.next()).isPresent();
    }

    // what the listing counts for a file: its stats and sketches plus a fixed overhead
    private static long estimatedBytes(FileEntry file)
    {
        return 128 + file.compactStats().size() + file.columnSketches().size();
    }

    @Test
    void testSketchesLeftOutWhenAskedAndMissingReplicasNeverListed()
    {
        List<FileEntry> committed = commitFiles(4);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        // node-b's disk comes back empty: its replicas are missing, not readable
        catalog.nodes().registerNode(new NodeEntry("node-b", "127.0.0.1:7002", 1000, 900, 0, 2), List.of());

        TableFilesPage page = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, FilePosition.START, 3, UNBOUNDED_BYTES, false)).orElseThrow();
        assertThat(page.files()).extracting(FileEntry::fileId).containsExactlyElementsOf(committed.subList(0, 3).stream().map(FileEntry::fileId).toList());
        assertThat(page.files()).allSatisfy(file -> {
            assertThat(file.columnSketches()).isEqualTo(ByteString.EMPTY);
            assertThat(file.replicaNodeIds()).containsExactly("node-a");
        });
        TableFilesPage last = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, page.next().orElseThrow(), 3, UNBOUNDED_BYTES, true)).orElseThrow();
        assertThat(last.files()).extracting(FileEntry::fileId).containsExactly(committed.get(3).fileId());
        assertThat(last.files().getFirst().columnSketches()).isEqualTo(committed.get(3).columnSketches());
        assertThat(last.next()).isEmpty();
    }

    @Test
    void testEmptyMissingDroppedAndFutureTables()
    {
        long tableId = catalog.tables().createTable(TABLE, COLUMNS, Map.of(), false).table().tableId();
        TableFilesPage empty = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, FilePosition.START, 10, UNBOUNDED_BYTES, true)).orElseThrow();
        assertThat(empty.version()).isEqualTo(1);
        assertThat(empty.files()).isEmpty();
        assertThat(empty.next()).isEmpty();

        assertStatus(() -> catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, FilePosition.START, 10, UNBOUNDED_BYTES, true)),
                OUT_OF_RANGE, "Table with id %s is at version 1: version 2 does not exist".formatted(tableId));
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId + 1, 0, FilePosition.START, 10, UNBOUNDED_BYTES, true))).isEmpty();
    }

    @Test
    void testReplacedVersionListedForTheRetentionOnly()
    {
        List<FileEntry> first = commitFiles(3);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        TableFilesPage firstPage = page(tableId, 1, FilePosition.START, 2);
        assertThat(firstPage.files()).isEqualTo(first.subList(0, 2));

        // version 2 replaces version 1: a listing of version 1 goes on for the retention, and only with version 1's files
        commitFiles(2);
        clock.advance(RETENTION.toMillis() - 1, MILLISECONDS);
        TableFilesPage rest = page(tableId, 1, firstPage.next().orElseThrow(), 2);
        assertThat(rest.files()).isEqualTo(first.subList(2, 3));
        assertThat(rest.next()).isEmpty();
        assertThat(countFiles(tableId, 1, 10)).isEqualTo(3);

        // replaced exactly the retention ago: expired, mid-listing as at its start
        clock.advance(1, MILLISECONDS);
        String expired = "Version 1 of table with id %s is no longer retained: version 2 replaced it at least 1h ago (metadata.table-version-retention); rerun the query".formatted(tableId);
        assertStatus(() -> page(tableId, 1, firstPage.next().orElseThrow(), 2), FAILED_PRECONDITION, expired);
        assertStatus(() -> page(tableId, 1, FilePosition.START, 2), FAILED_PRECONDITION, expired);
        // the current version is kept however old; a version never reached is no version at all
        assertThat(countFiles(tableId, 2, 10)).isEqualTo(5);
        assertThat(page(tableId, 0, FilePosition.START, 10).version()).isEqualTo(2);
        assertStatus(() -> page(tableId, 3, FilePosition.START, 10), OUT_OF_RANGE, "Table with id %s is at version 2: version 3 does not exist".formatted(tableId));

        // version 3 lands: version 2 stays listed for the retention from then, and the long-expired version 1 stays expired
        commitFiles(1);
        assertThat(countFiles(tableId, 2, 10)).isEqualTo(5);
        assertStatus(() -> page(tableId, 1, FilePosition.START, 2), FAILED_PRECONDITION, expired);
        clock.advance(RETENTION.toMillis(), MILLISECONDS);
        assertStatusContains(() -> page(tableId, 2, FilePosition.START, 2), FAILED_PRECONDITION, "Version 2 of table with id %s is no longer retained".formatted(tableId));
        assertThat(countFiles(tableId, 3, 10)).isEqualTo(6);
    }

    @Test
    void testNoRetentionKeepsOnlyTheCurrentVersion()
    {
        TestingCatalog unretained = TestingCatalog.create(database, clock, new Duration(1, HOURS), new Duration(0, MILLISECONDS));
        commitFiles(2);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        commitFiles(2);
        // in the very millisecond version 2 was committed
        assertStatusContains(() -> unretained.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 1, FilePosition.START, 10, UNBOUNDED_BYTES, false)),
                FAILED_PRECONDITION, "Version 1 of table with id %s is no longer retained".formatted(tableId));
        assertThat(unretained.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, FilePosition.START, 10, UNBOUNDED_BYTES, false)).orElseThrow().files()).hasSize(4);
    }

    @Test
    void testDroppedTableListedForTheRetentionAndItsFilesKeptUntilThen()
    {
        List<FileEntry> first = commitFiles(3);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        List<FileEntry> second = commitFiles(2);
        TableFilesPage firstPage = page(tableId, 1, FilePosition.START, 2);

        // dropped between two pages: the listing goes on with the version it began, replicas and all
        assertThat(catalog.tables().dropTable(TABLE, false)).contains(new DroppedTable(tableId, 5));
        TableFilesPage rest = page(tableId, 1, firstPage.next().orElseThrow(), 2);
        assertThat(rest.files()).isEqualTo(first.subList(2, 3));
        assertThat(rest.next()).isEmpty();
        List<FileEntry> listed = new ArrayList<>();
        Optional<FilePosition> after = Optional.of(FilePosition.START);
        while (after.isPresent()) {
            TableFilesPage page = page(tableId, 2, after.get(), 2);
            listed.addAll(page.files());
            after = page.next();
        }
        assertThat(listed).isEqualTo(ImmutableList.builder().addAll(first).addAll(second).build());
        // a dropped table has no current version, nor versions after its last
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 0, FilePosition.START, 10, UNBOUNDED_BYTES, true))).isEmpty();
        assertStatus(() -> page(tableId, 3, FilePosition.START, 10), OUT_OF_RANGE, "Table with id %s is at version 2: version 3 does not exist".formatted(tableId));

        // no node may reclaim the files meanwhile, and the name is free for a new table with files of its own
        List<String> fileIds = listed.stream().map(FileEntry::fileId).toList();
        assertThat(catalog.allocations().findOrphans("node-a", fileIds)).isEmpty();
        assertThat(catalog.allocations().findOrphans("node-b", fileIds)).isEmpty();
        List<FileEntry> recreated = commitFiles(1);
        long newTableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        assertThat(newTableId).isNotEqualTo(tableId);
        assertThat(page(newTableId, 0, FilePosition.START, 10).files()).isEqualTo(recreated);
        assertThat(countFiles(tableId, 2, 10)).isEqualTo(5);

        // the retention after the drop: the table is gone, its files orphans
        clock.advance(RETENTION.toMillis(), MILLISECONDS);
        assertStatus(() -> page(tableId, 2, FilePosition.START, 10), NOT_FOUND,
                "Table with id %s was dropped at least 1h ago (metadata.table-version-retention): its files are no longer kept".formatted(tableId));
        assertThat(catalog.allocations().findOrphans("node-a", fileIds)).containsExactlyInAnyOrderElementsOf(fileIds);
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, FilePosition.START, 10, UNBOUNDED_BYTES, true))).isEmpty();
        assertThat(catalog.allocations().findOrphans("node-a", List.of(recreated.getFirst().fileId()))).isEmpty();
    }

    private TableFilesPage page(long tableId, long version, FilePosition after, int pageSize)
    {
        return catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, version, after, pageSize, UNBOUNDED_BYTES, true)).orElseThrow();
    }

    @Test
    void testListingContinuesOnlyAfterAFileOfItsVersion()
    {
        commitFiles(3);
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        commitFiles(2);
        // after the last file of the first commit: the second commit's files
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, new FilePosition(1, 2), 10, UNBOUNDED_BYTES, false)).orElseThrow().files()).hasSize(2);
        // the ordinal past the commit's end, and a commit after the version listed, name no file of it
        assertStatus(() -> catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, new FilePosition(1, 3), 10, UNBOUNDED_BYTES, false)),
                INVALID_ARGUMENT, "Version 2 of table with id %s has no file 3 of commit 1 to continue a listing after".formatted(tableId));
        assertStatus(() -> catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 1, new FilePosition(2, 0), 10, UNBOUNDED_BYTES, false)),
                INVALID_ARGUMENT, "Version 1 of table with id %s has no file 0 of commit 2 to continue a listing after".formatted(tableId));
        // continuing a listing of a version never reached: no such listing began
        assertStatus(() -> catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 3, new FilePosition(1, 0), 10, UNBOUNDED_BYTES, false)),
                INVALID_ARGUMENT, "Table with id %s is at version 2: no listing of version 3 was ever begun to continue".formatted(tableId));
    }

    @Test
    void testPagesOfVersionsBeforeAndAfterADelete()
    {
        List<FileEntry> files = new ArrayList<>(commitFiles(5));
        long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
        files.addAll(commitFiles(5));
        // a DELETE removes every other file: they are kept aside for version 2, in their own catalog table
        List<String> removed = IntStream.range(0, files.size()).filter(i -> i % 2 == 0).mapToObj(i -> files.get(i).fileId()).toList();
        catalog.commits().commit(CommitRequest.delete(TABLE, COLUMNS, tableId, List.of(), new FileRemovals(2, removed, List.of(), Map.of())));
        List<FileEntry> remaining = files.stream().filter(file -> !removed.contains(file.fileId())).toList();

        // pages of either version take their files from both places, in commit order, each once
        for (int pageSize : List.of(1, 2, 3, 100)) {
            assertThat(listInPages(tableId, 2, pageSize)).as("version 2 in pages of %s", pageSize).isEqualTo(files);
            assertThat(listInPages(tableId, 3, pageSize)).as("version 3 in pages of %s", pageSize).isEqualTo(remaining);
        }
        // a listing of version 2 continues after a file version 3 no longer has
        TableFilesPage first = page(tableId, 2, FilePosition.START, 1);
        assertThat(first.files()).containsExactly(files.getFirst());
        assertThat(page(tableId, 2, first.next().orElseThrow(), 1).files()).containsExactly(files.get(1));
        assertStatus(() -> page(tableId, 3, first.next().orElseThrow(), 1), INVALID_ARGUMENT,
                "Version 3 of table with id %s has no file 0 of commit 1 to continue a listing after".formatted(tableId));

        // only the files asked for, of the version asked for
        Set<String> asked = Set.of(files.get(0).fileId(), files.get(7).fileId(), "ffffffffffffffffffffffffffffffff");
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 2, FilePosition.START, 10, UNBOUNDED_BYTES, true, asked)).orElseThrow().files())
                .containsExactly(files.get(0), files.get(7));
        assertThat(catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, 3, FilePosition.START, 10, UNBOUNDED_BYTES, true, asked)).orElseThrow().files())
                .containsExactly(files.get(7));
    }

    private List<FileEntry> listInPages(long tableId, long version, int pageSize)
    {
        List<FileEntry> listed = new ArrayList<>();
        Optional<FilePosition> after = Optional.of(FilePosition.START);
        while (after.isPresent()) {
            TableFilesPage page = page(tableId, version, after.get(), pageSize);
            assertThat(page.files()).hasSizeLessThanOrEqualTo(pageSize);
            listed.addAll(page.files());
            after = page.next();
        }
        return listed;
    }

    private long countFiles(long tableId, long version, int pageSize)
    {
        long count = 0;
        Optional<FilePosition> after = Optional.of(FilePosition.START);
        while (after.isPresent()) {
            TableFilesPage page = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, version, after.get(), pageSize, UNBOUNDED_BYTES, false)).orElseThrow();
            assertThat(page.version()).isEqualTo(version);
            count += page.files().size();
            after = page.next();
        }
        return count;
    }

    /** One commit of {@code count} new files into the table, created by the first. */
    private List<FileEntry> commitFiles(int count)
    {
        List<FileEntry> files = new ArrayList<>();
        List<Allocation> allocations = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String fileId = "%032x".formatted(++nextFileId);
            // every other file carries column sketches, returned as they came
            ByteString sketches = nextFileId % 2 == 0 ? ByteString.copyFromUtf8("sketches of " + fileId) : ByteString.EMPTY;
            List<String> replicas = nextFileId % 3 == 0 ? List.of("node-b", "node-a") : List.of("node-a", "node-b");
            files.add(new FileEntry(fileId, 1000 + i, 1 + i % 7, nextFileId, compactStats(1 + i % 7), replicas, sketches));
            allocations.add(new Allocation(fileId, clock.millis(), replicas));
        }
        catalog.allocations().addAllocations(allocations);
        catalog.commits().commit(CommitRequest.createOrAppend(TABLE, COLUMNS, files, Map.of()));
        return files;
    }
}
