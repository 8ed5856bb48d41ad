package io.nsc.metadata.catalog;

import io.nsc.metadata.TestingStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static java.util.Comparator.reverseOrder;

/**
 * The two catalog backends side by side, each as the service runs it (H2 forcing every commit
 * to disk, PostgreSQL with fsync on): commits per second of one file each, from one thread and
 * from four (each into a table of its own, as four concurrent INSERTs), and the latency of
 * listing a table of 10,000 files whole, page by page as GetTableFiles does (median and p99).
 * Not a test: run it with {@code benchmarks/catalog/run.sh}.
 */
public final class BenchmarkCatalogBackends
{
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("a", "bigint"));
    private static final int THREADS = 4;
    private static final int LISTED_FILES = 10_000;
    private static final int FILES_PER_LISTED_COMMIT = 1000;
    private static final int WARM_UP_COMMITS = 1000;
    // held: see BenchmarkCatalogCommits.quietLoggers
    @SuppressWarnings("unused")
    private static final List<java.util.logging.Logger> QUIET_LOGGERS = BenchmarkCatalogCommits.quietLoggers("io.nsc", "com.zaxxer");

    private BenchmarkCatalogBackends() {}

    public static void main(String[] args)
            throws Exception
    {
        Path parent = Path.of(BenchmarkCatalogCommits.option(args, "--dir", System.getProperty("java.io.tmpdir")));
        int commits = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--commits", "2000"));
        int listings = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--listings", "100"));
        Files.createDirectories(parent);

        System.out.printf("catalog backends: %s commits of one file per measurement, %s whole listings of a table of %s files%n", commits, listings, LISTED_FILES);
        System.out.printf("H2 in %s; PostgreSQL %s%n", parent.toAbsolutePath(), "in a fresh durable server under /tmp (fsync on)");
        try (TestingPostgreSqlServer postgreSql = TestingPostgreSqlServer.start(true)) {
            run("h2", () -> openH2(parent), commits, listings);
            run("postgresql", () -> PostgreSqlCatalogDatabase.open(postgreSql.connectionSettings(postgreSql.createDatabase(), 8)), commits, listings);
        }
    }

    private static void run(String backend, Supplier<CatalogDatabase> databases, int commits, int listings)
            throws Exception
    {
        // warm-up: class loading and JIT, not measured
        try (CatalogDatabase database = databases.get()) {
            commitSequentially(database, WARM_UP_COMMITS);
        }
        try (CatalogDatabase database = databases.get()) {
            commitConcurrently(database, WARM_UP_COMMITS);
        }
        try (CatalogDatabase database = databases.get()) {
            System.out.printf("%-11s %-34s %8.0f commits/s%n", backend, "commits, 1 thread", commitSequentially(database, commits));
        }
        try (CatalogDatabase database = databases.get()) {
            System.out.printf("%-11s %-34s %8.0f commits/s%n", backend, "commits, %s threads (own tables)".formatted(THREADS), commitConcurrently(database, commits));
        }
        try (CatalogDatabase database = databases.get()) {
            List<Double> millis = listWholeTable(database, listings);
            System.out.printf("%-11s %-34s median %.1f ms, p99 %.1f ms%n", backend, "GetTableFiles, %s files whole".formatted(LISTED_FILES), percentile(millis, 0.5), percentile(millis, 0.99));
        }
    }

    private static CatalogDatabase openH2(Path parent)
    {
        try {
            Path dataDir = Files.createTempDirectory(parent, "nsc-catalog-bench");
            return new DeletingDatabase(H2CatalogDatabase.open(dataDir), dataDir);
        }
        catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * @return commits per second
     */
    private static double commitSequentially(CatalogDatabase database, int commits)
    {
        TestingCatalog catalog = prepare(database, 1);
        List<FileEntry> files = allocate(catalog, commits, 0);
        long start = System.nanoTime();
        for (FileEntry file : files) {
            catalog.commits().commit(insert(0, file));
        }
        return commits / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * @return commits per second
     */
    private static double commitConcurrently(CatalogDatabase database, int commits)
            throws Exception
    {
        TestingCatalog catalog = prepare(database, THREADS);
        List<FileEntry> files = allocate(catalog, commits, 0);
        AtomicInteger next = new AtomicInteger();
        List<Runnable> writers = new ArrayList<>();
        for (int writer = 0; writer < THREADS; writer++) {
            int table = writer;
            writers.add(() -> {
                for (int index = next.getAndIncrement(); index < files.size(); index = next.getAndIncrement()) {
                    catalog.commits().commit(insert(table, files.get(index)));
                }
            });
        }
        long start = System.nanoTime();
        try (ExecutorService executor = Executors.newFixedThreadPool(THREADS)) {
            List<Future<?>> futures = writers.stream().<Future<?>>map(executor::submit).toList();
            for (Future<?> future : futures) {
                future.get();
            }
        }
        return commits / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * @return the milliseconds of each whole listing
     */
    private static List<Double> listWholeTable(CatalogDatabase database, int listings)
    {
        TestingCatalog catalog = prepare(database, 1);
        for (int commit = 0; commit < LISTED_FILES / FILES_PER_LISTED_COMMIT; commit++) {
            List<FileEntry> files = allocate(catalog, FILES_PER_LISTED_COMMIT, commit * FILES_PER_LISTED_COMMIT);
            catalog.commits().commit(CommitRequest.createOrAppend(table(0), COLUMNS, files, Map.of()));
        }
        long tableId = catalog.tables().getTable(table(0)).orElseThrow().tableId();
        for (int warmUp = 0; warmUp < 10; warmUp++) {
            listWhole(catalog, tableId);
        }
        List<Double> millis = new ArrayList<>();
        for (int listing = 0; listing < listings; listing++) {
            long start = System.nanoTime();
            int files = listWhole(catalog, tableId);
            millis.add((System.nanoTime() - start) / 1e6);
            if (files != LISTED_FILES) {
                throw new IllegalStateException("Listed %s files, not %s".formatted(files, LISTED_FILES));
            }
        }
        return millis;
    }

    /** Pages as the service's defaults cut them: 1000 files or 4 MB, sketches included. */
    private static int listWhole(TestingCatalog catalog, long tableId)
    {
        int files = 0;
        Optional<FilePosition> after = Optional.of(FilePosition.START);
        long version = 0;
        while (after.isPresent()) {
            TableFilesPage page = catalog.tables().getTableFilesPage(new TableFilesPageRequest(tableId, version, after.get(), 1000, 4L << 20, true)).orElseThrow();
            version = page.version();
            files += page.files().size();
            after = page.next();
        }
        return files;
    }

    private static TestingCatalog prepare(CatalogDatabase database, int tables)
    {
        TestingCatalog catalog = TestingCatalog.create(database, Clock.systemUTC());
        catalog.nodes().registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1L << 40, 1L << 40, 0, System.currentTimeMillis()), List.of());
        catalog.tables().createSchema("bench", false);
        for (int table = 0; table < tables; table++) {
            catalog.tables().createTable(table(table), COLUMNS, Map.of(), false);
        }
        return catalog;
    }

    /** Files with ids from {@code first} on, allocated in one transaction (not what is measured). */
    private static List<FileEntry> allocate(TestingCatalog catalog, int count, int first)
    {
        List<FileEntry> files = new ArrayList<>();
        List<Allocation> allocations = new ArrayList<>();
        for (int i = first; i < first + count; i++) {
            String fileId = "%032x".formatted(i);
            files.add(new FileEntry(fileId, 1 << 20, 1000, i, TestingStats.compactStats(1000), List.of("node-a")));
            allocations.add(new Allocation(fileId, System.currentTimeMillis(), List.of("node-a")));
        }
        catalog.allocations().addAllocations(allocations);
        return files;
    }

    private static CommitRequest insert(int table, FileEntry file)
    {
        return CommitRequest.append(table(table), COLUMNS, List.of(file));
    }

    private static SchemaTableName table(int table)
    {
        return new SchemaTableName("bench", "t" + table);
    }

    private static double percentile(List<Double> values, double fraction)
    {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(fraction * sorted.size()) - 1));
    }

    /** An H2 database whose directory goes with it. */
    private record DeletingDatabase(CatalogDatabase database, Path dataDir)
            implements CatalogDatabase
    {
        @Override
        public <T> T inTransaction(Work<T> work)
        {
            return database.inTransaction(work);
        }

        @Override
        public CatalogBackend backend()
        {
            return database.backend();
        }

        @Override
        public void close()
        {
            database.close();
            try (Stream<Path> paths = Files.walk(dataDir)) {
                for (Path path : paths.sorted(reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
            catch (IOException e) {
                throw new RuntimeException(e);
            }
        }
    }
}
