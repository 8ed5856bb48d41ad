package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;

/**
 * What a table of many column chunks costs the metadata service: the heap its catalog holds once
 * the table is committed (the service keeps tables in its database, so this should not grow with
 * the chunks), the bytes on disk per column chunk, and the time to list the whole table page by
 * page as a coordinator's GetTableFiles does when its cache is cold. The table is the one
 * {@code benchmarks/pruning-at-scale} prunes: by default 10,000 files of 100 row groups and 10
 * columns. H2 as the service runs it (every commit forced to disk). Not a test: run it with
 * {@code benchmarks/pruning-at-scale/metadata-service.sh}.
 */
public final class BenchmarkCatalogMemory
{
    private static final int ROW_GROUP_ROWS = 1_000_000;
    private static final long ROW_GROUP_BYTES = 128L << 20;
    private static final int FILES_PER_COMMIT = 1000;
    private static final List<String> NODES = List.of("node-a", "node-b");
    private static final SchemaTableName TABLE = new SchemaTableName("bench", "chunks");
    // held: see BenchmarkCatalogCommits.quietLoggers
    @SuppressWarnings("unused")
    private static final List<java.util.logging.Logger> QUIET_LOGGERS = BenchmarkCatalogCommits.quietLoggers("io.nsc", "org.h2");

    private BenchmarkCatalogMemory() {}

    public static void main(String[] args)
            throws Exception
    {
        Path parent = Path.of(BenchmarkCatalogCommits.option(args, "--dir", System.getProperty("java.io.tmpdir")));
        int fileCount = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--files", "10000"));
        int rowGroups = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--row-groups", "100"));
        int columns = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--columns", "10"));
        int listings = Integer.parseInt(BenchmarkCatalogCommits.option(args, "--listings", "3"));
        long chunks = (long) fileCount * rowGroups * columns;
        System.out.printf("table: %,d files x %,d row groups x %,d columns = %,d column chunks%n", fileCount, rowGroups, columns, chunks);

        Files.createDirectories(parent);
        Path dataDir = Files.createTempDirectory(parent, "nsc-catalog-memory");
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir)) {
            TestingCatalog catalog = TestingCatalog.create(database, Clock.systemUTC());
            for (int node = 0; node < NODES.size(); node++) {
                catalog.nodes().registerNode(new NodeEntry(NODES.get(node), "127.0.0.1:" + (7001 + node), 1L << 50, 1L << 50, 0, System.currentTimeMillis()), List.of());
            }
            catalog.tables().createSchema(TABLE.schemaName(), false);
            List<TableColumn> tableColumns = new ArrayList<>();
            for (int column = 0; column < columns; column++) {
                tableColumns.add(new TableColumn("c" + column, "bigint"));
            }
            catalog.tables().createTable(TABLE, tableColumns, Map.of(), false);
            long heapBefore = usedHeapAfterGc();

            long statsBytes = 0;
            long start = System.nanoTime();
            Random random = new Random(1);
            Random sizes = new Random(2);
            for (int first = 0; first < fileCount; first += FILES_PER_COMMIT) {
                List<FileEntry> files = new ArrayList<>();
                List<Allocation> allocations = new ArrayList<>();
                for (int file = first; file < Math.min(fileCount, first + FILES_PER_COMMIT); file++) {
                    FileEntry entry = file(file, rowGroups, columns, random, sizes);
                    statsBytes += entry.compactStats().size();
                    files.add(entry);
                    allocations.add(new Allocation(entry.fileId(), System.currentTimeMillis(), NODES));
                }
                catalog.allocations().addAllocations(allocations);
                catalog.commits().commit(CommitRequest.append(TABLE, tableColumns, files));
            }
            System.out.printf("committed in %.1f s, %,d files a commit; compact stats %,d bytes (%.2f per column chunk)%n",
                    (System.nanoTime() - start) / 1e9, FILES_PER_COMMIT, statsBytes, (double) statsBytes / chunks);

            long heapAfter = usedHeapAfterGc();
            System.out.printf("heap: %,d bytes used before the table, %,d after (%.2f bytes per column chunk)%n",
                    heapBefore, heapAfter, (double) (heapAfter - heapBefore) / chunks);
            long diskBytes = directoryBytes(dataDir);
            System.out.printf("disk: catalog database %,d bytes (%.2f bytes per column chunk)%n", diskBytes, (double) diskBytes / chunks);

            long tableId = catalog.tables().getTable(TABLE).orElseThrow().tableId();
            for (int listing = 0; listing < listings; listing++) {
                long listingStart = System.nanoTime();
                int listed = listWhole(catalog, tableId);
                if (listed != fileCount) {
                    throw new IllegalStateException("Listed %s files, not %s".formatted(listed, fileCount));
                }
                System.out.printf("whole listing (GetTableFiles pages of at most 1000 files or 4 MB): %.0f ms%n", (System.nanoTime() - listingStart) / 1e6);
            }
        }
        finally {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                for (Path path : paths.sorted(Collections.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    /** The same shape as BenchmarkPruningAtScale's: c0 ascends across the table, the others are random. */
    private static FileEntry file(int file, int rowGroups, int columns, Random random, Random sizes)
    {
        CompactFileStats.Builder stats = CompactFileStats.builder(Collections.nCopies(columns, KeyKind.EXACT));
        for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
            stats.addRowGroup(ROW_GROUP_ROWS, 4 + rowGroup * ROW_GROUP_BYTES);
            long first = ((long) file * rowGroups + rowGroup) * 1000;
            stats.addColumnChunk(chunkBytes(columns, sizes), OptionalLong.of(first), OptionalLong.of(first + 999), 0);
            for (int column = 1; column < columns; column++) {
                long min = random.nextInt(1_000_000);
                stats.addColumnChunk(chunkBytes(columns, sizes), OptionalLong.of(min), OptionalLong.of(min + random.nextInt(1_000_000)), 0);
            }
        }
        long footer = 4 + rowGroups * ROW_GROUP_BYTES;
        ByteString encoded = ByteString.copyFrom(stats.footer(footer, 100_000).build().encoded());
        return new FileEntry("%032x".formatted(file), footer + 100_000, (long) ROW_GROUP_ROWS * rowGroups, file, encoded, NODES);
    }

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

    private static long usedHeapAfterGc()
    {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long directoryBytes(Path directory)
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(directory)) {
            return paths.filter(Files::isRegularFile).mapToLong(path -> {
                try {
                    return Files.size(path);
                }
                catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }).sum();
        }
    }

    /** A column's share of a row group, from half to one and a half of it, as BenchmarkPruningAtScale draws it. */
    private static long chunkBytes(int columns, Random random)
    {
        long share = ROW_GROUP_BYTES / columns;
        return share / 2 + random.nextLong(share);
    }
}
