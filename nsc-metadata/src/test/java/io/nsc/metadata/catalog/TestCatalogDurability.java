package io.nsc.metadata.catalog;

import io.nsc.metadata.TestingClock;
import io.nsc.metadata.catalog.SyncTrackingFileSystem.FileState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static io.nsc.metadata.TestingStats.compactStats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What reaches the disk: the catalog runs on a file system that counts the bytes written and not
 * yet forced, which is what a power loss would take back. Every call that changes the catalog
 * must leave none; calls that only read must not pay for an fsync.
 */
final class TestCatalogDurability
{
    private static final SchemaTableName TABLE = new SchemaTableName("s", "t");
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("a", "bigint"));

    @TempDir
    Path dataDir;

    private final TestingClock clock = new TestingClock(1_750_000_000_000L);

    @BeforeAll
    static void registerFileSystem()
    {
        SyncTrackingFileSystem.register();
    }

    @Test
    void testEveryChangeIsForcedBeforeTheCallReturns()
    {
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir, SyncTrackingFileSystem.PREFIX, true)) {
            FileState file = databaseFile();
            // the schema the database was created with is durable too
            assertThat(file.forces()).isPositive();
            assertThat(file.unforcedBytes()).isZero();

            TestingCatalog catalog = TestingCatalog.create(database, clock);
            assertForced(file, () -> catalog.nodes().registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1000, 900, 0, 1), List.of()));
            assertForced(file, () -> catalog.tables().createSchema("s", false));
            FileEntry entry = new FileEntry("0123456789abcdef0123456789abcdef", 1000, 10, 7, compactStats(10), List.of("node-a"));
            assertForced(file, () -> {
                catalog.allocations().addAllocations(List.of(new Allocation(entry.fileId(), clock.millis(), List.of("node-a"))));
                return null;
            });
            assertForced(file, () -> catalog.commits().commit(CommitRequest.createTableAs(TABLE, COLUMNS, List.of(entry), Map.of())));
            assertForced(file, () -> catalog.nodes().updateNodeHeartbeat("node-a", 800, 1, clock.millis()));
            assertForced(file, () -> catalog.tables().dropTable(TABLE, false));

            // reads change nothing and force nothing
            assertNotForced(file, () -> catalog.tables().listSchemas());
            assertNotForced(file, () -> catalog.tables().getTable(TABLE));
            assertNotForced(file, () -> catalog.tables().listTables(Optional.empty()));
            // nor do calls that could have changed something but did not
            assertNotForced(file, () -> catalog.tables().createSchema("s", true));
            assertNotForced(file, () -> catalog.allocations().findOrphans("node-a", List.of("0123456789abcdef0123456789abcdef")));
        }
    }

    @Test
    void testFailedForceStopsTheDatabase()
    {
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir, SyncTrackingFileSystem.PREFIX, true)) {
            TestingCatalog catalog = TestingCatalog.create(database, clock);
            catalog.tables().createSchema("before", false);
            databaseFile().failForces();

            // the commit may or may not be durable: the caller must not be told it is
            assertThatThrownBy(() -> catalog.tables().createSchema("s", false))
                    .isInstanceOf(CatalogDatabaseException.class)
                    .hasMessageContaining("could not force a commit to disk")
                    .hasMessageContaining("restart the metadata service");
            // and nothing after it may pretend all is well, reads included
            assertThatThrownBy(() -> catalog.tables().listSchemas())
                    .isInstanceOf(CatalogDatabaseException.class)
                    .hasMessageContaining("accepts no more work");
        }
    }

    @Test
    void testWithoutForcingCommitsStayInThePageCache()
    {
        // the control: the same commit without forcing leaves bytes a power loss would take back,
        // so the test above would notice if forcing stopped happening
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir, SyncTrackingFileSystem.PREFIX, false)) {
            TestingCatalog catalog = TestingCatalog.create(database, clock);
            FileState file = databaseFile();
            catalog.tables().createSchema("s", false);
            assertThat(file.unforcedBytes()).isPositive();
        }
    }

    private FileState databaseFile()
    {
        return SyncTrackingFileSystem.file(dataDir.toAbsolutePath().resolve(H2CatalogDatabase.DATABASE_FILE).toString());
    }

    private static void assertForced(FileState file, Supplier<?> call)
    {
        long forcesBefore = file.forces();
        Object _ = call.get();
        assertThat(file.unforcedBytes()).as("bytes written and not forced").isZero();
        assertThat(file.forces()).as("forces").isGreaterThan(forcesBefore);
    }

    private static void assertNotForced(FileState file, Supplier<?> call)
    {
        long forcesBefore = file.forces();
        Object _ = call.get();
        assertThat(file.forces()).as("forces").isEqualTo(forcesBefore);
    }
}
