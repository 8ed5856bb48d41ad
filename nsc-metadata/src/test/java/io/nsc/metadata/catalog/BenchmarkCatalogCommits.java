package io.nsc.metadata.catalog;

import io.nsc.metadata.TestingStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.stream.Stream;

import static java.util.Comparator.reverseOrder;

/**
 * Commits per second of the catalog, with each commit forced to disk (what the service does)
 * and without (what it did before): every commit is {@link CommitCatalog#commit} of one file into
 * one table, as an INSERT of one file does, on a database in {@code --dir} (so on that disk).
 * Each mode runs {@code --rounds} times on a fresh database, alternating, after a warm-up.
 * Not a test: run it with {@code benchmarks/catalog-commits/run.sh}.
 */
public final class BenchmarkCatalogCommits
{
    private static final SchemaTableName TABLE = new SchemaTableName("bench", "t");
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("a", "bigint"));

    private BenchmarkCatalogCommits() {}

    public static void main(String[] args)
            throws IOException
    {
        Path parent = Path.of(option(args, "--dir", System.getProperty("java.io.tmpdir")));
        int commits = Integer.parseInt(option(args, "--commits", "2000"));
        int rounds = Integer.parseInt(option(args, "--rounds", "3"));
        Files.createDirectories(parent);
        // one "schema migrated" line per fresh database is noise here
        java.util.logging.Logger.getLogger("io.nsc").setLevel(Level.WARNING);

        // warm-up: class loading and JIT, not measured
        for (int i = 0; i < 3; i++) {
            run(parent, 1000, true);
            run(parent, 1000, false);
        }

        List<Double> forced = new ArrayList<>();
        List<Double> unforced = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            unforced.add(run(parent, commits, false));
            forced.add(run(parent, commits, true));
        }
        System.out.printf("catalog commits (one file each) on %s, %s commits x %s rounds%n", parent.toAbsolutePath(), commits, rounds);
        System.out.printf("%-28s %s commits/s (median %.0f)%n", "not forced (before)", format(unforced), median(unforced));
        System.out.printf("%-28s %s commits/s (median %.0f)%n", "forced to disk (now)", format(forced), median(forced));
    }

    /**
     * @return commits per second
     */
    private static double run(Path parent, int commits, boolean forceCommits)
            throws IOException
    {
        Path dataDir = Files.createTempDirectory(parent, "nsc-catalog-bench");
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir, "file:", forceCommits)) {
            TestingCatalog catalog = TestingCatalog.create(database, Clock.systemUTC());
            catalog.nodes().registerNode(new NodeEntry("node-a", "127.0.0.1:7001", 1L << 40, 1L << 40, 0, System.currentTimeMillis()), List.of());
            catalog.tables().createSchema(TABLE.schemaName(), false);
            List<FileEntry> files = new ArrayList<>();
            List<Allocation> allocations = new ArrayList<>();
            for (int i = 0; i < commits; i++) {
                String fileId = "%032x".formatted(i);
                files.add(new FileEntry(fileId, 1 << 20, 1000, i, TestingStats.compactStats(1000), List.of("node-a")));
                allocations.add(new Allocation(fileId, System.currentTimeMillis(), List.of("node-a")));
            }
            // the allocations are not what is measured: one transaction for all of them
            catalog.allocations().addAllocations(allocations);

            long start = System.nanoTime();
            for (FileEntry file : files) {
                catalog.commits().commit(CommitRequest.createOrAppend(TABLE, COLUMNS, List.of(file), Map.of()));
            }
            return commits / ((System.nanoTime() - start) / 1e9);
        }
        finally {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                for (Path path : paths.sorted(reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    /**
     * Sets these loggers to WARNING and answers them: java.util.logging keeps loggers weakly and a
     * collected one forgets its level, so the caller holds them (in a static field).
     */
    static List<java.util.logging.Logger> quietLoggers(String... names)
    {
        List<java.util.logging.Logger> loggers = Stream.of(names).map(java.util.logging.Logger::getLogger).toList();
        loggers.forEach(logger -> logger.setLevel(Level.WARNING));
        return loggers;
    }

    static String option(String[] args, String name, String defaultValue)
    {
        int index = Arrays.asList(args).indexOf(name);
        if (index < 0) {
            return defaultValue;
        }
        if (index + 1 >= args.length) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        return args[index + 1];
    }

    private static String format(List<Double> values)
    {
        return String.join(" ", values.stream().map(value -> "%.0f".formatted(value)).toList());
    }

    private static double median(List<Double> values)
    {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }
}
