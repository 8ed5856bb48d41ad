package io.nsc.trino.split;

import io.airlift.units.DataSize;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.HostAddress;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.function.Supplier;

import static io.trino.spi.type.BigintType.BIGINT;

/**
 * Coordinator-side pruning of a synthetic table of many column chunks (default 10,000 files of
 * 100 row groups and 10 columns: 10 million chunks), as the split planner does it once the
 * compact stats are in memory: the time to classify every row group for a selective predicate on
 * the sorted column c0 (one row group in a million matches), on an unsorted column c1 (a point
 * lookup, which min/max cannot narrow), and with no predicate; and the memory per column chunk
 * the coordinator holds (the compact stats' encoded bytes, and the whole file entries). Listing
 * the files from the metadata service is not included: benchmarks/split-generation measures it.
 * Not a test: run it with {@code benchmarks/pruning-at-scale/run.sh}.
 */
public final class BenchmarkPruningAtScale
{
    private static final List<HostAddress> REPLICAS = List.of(HostAddress.fromParts("10.0.0.1", 7081), HostAddress.fromParts("10.0.0.2", 7081));
    // rows and bytes of one row group: 128MB row groups of a dense-HDD node's files
    private static final long ROW_GROUP_ROWS = 1_000_000;
    private static final long ROW_GROUP_BYTES = 128L << 20;

    private BenchmarkPruningAtScale() {}

    public static void main(String[] args)
    {
        int fileCount = Integer.parseInt(option(args, "--files", "10000"));
        int rowGroups = Integer.parseInt(option(args, "--row-groups", "100"));
        int columns = Integer.parseInt(option(args, "--columns", "10"));
        int rounds = Integer.parseInt(option(args, "--rounds", "5"));
        PrintStream out = System.out;

        long started = System.nanoTime();
        List<FileEntry> files = table(fileCount, rowGroups, columns);
        long chunks = (long) fileCount * rowGroups * columns;
        out.printf("table: %,d files x %d row groups x %d columns = %,d column chunks, built in %.1f s%n", fileCount, rowGroups, columns, chunks, (System.nanoTime() - started) / 1e9);

        long encoded = files.stream().mapToLong(file -> file.stats().sizeInBytes()).sum();
        long entries = files.stream().mapToLong(FileEntry::retainedSizeInBytes).sum();
        out.printf("memory: compact stats %,d bytes (%.2f bytes per column chunk); file entries with ids and replicas %,d bytes (%.2f bytes per column chunk)%n",
                encoded, (double) encoded / chunks, entries, (double) entries / chunks);

        RowGroupPlanner planner = new RowGroupPlanner(DataSize.of(256, DataSize.Unit.MEGABYTE).toBytes());
        NscColumnHandle sorted = new NscColumnHandle("c0", BIGINT, 0);
        NscColumnHandle unsorted = new NscColumnHandle("c1", BIGINT, 1);
        long target = (long) (fileCount / 2) * rowGroups + rowGroups / 2;
        // c0 of row group g (counted over the whole table) holds g * 1000 to g * 1000 + 999
        measure(out, "c0 BETWEEN (sorted, 1 row group)", rounds, () -> planner.plan(files, Optional.of(predicate(sorted, target * 1000 + 10, target * 1000 + 20))));
        measure(out, "c1 = 424242 (unsorted point lookup)", rounds, () -> planner.plan(files, Optional.of(predicate(unsorted, 424_242, 424_242))));
        measure(out, "no predicate", rounds, () -> planner.plan(files, Optional.empty()));
    }

    private static void measure(PrintStream out, String name, int rounds, Supplier<RowGroupPlanner.Plan> plan)
    {
        // one warm-up round: class loading and JIT are not what is measured
        RowGroupPlanner.Plan result = plan.get();
        double[] millis = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            Object _ = plan.get();
            millis[round] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(millis);
        out.printf("%s: %,d of %,d row groups pruned, %,d splits; %.1f ms median of %d (min %.1f, max %.1f)%n",
                name, result.rowGroupsPruned(), result.rowGroupsTotal(), result.splits().size(), millis[rounds / 2], rounds, millis[0], millis[rounds - 1]);
    }

    private static PruningPredicate predicate(NscColumnHandle column, long low, long high)
    {
        Domain domain = Domain.create(ValueSet.ofRanges(Range.range(BIGINT, low, true, high, true)), false);
        return StatsPredicates.toPruningPredicate(TupleDomain.withColumnDomains(Map.of(column, domain)));
    }

    /** Files whose c0 ascends across the table (a date a writer sorted by) and whose other columns and chunk sizes are random. */
    private static List<FileEntry> table(int fileCount, int rowGroups, int columns)
    {
        Random random = new Random(1);
        // chunk sizes vary as real ones do (the packed stats would store equal sizes in 0 bytes);
        // their own generator keeps the values, and so what is pruned, as before
        Random sizes = new Random(2);
        long chunkBytes = ROW_GROUP_BYTES / columns;
        List<FileEntry> files = new ArrayList<>(fileCount);
        for (int file = 0; file < fileCount; file++) {
            CompactFileStats.Builder stats = CompactFileStats.builder(Collections.nCopies(columns, KeyKind.EXACT));
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                stats.addRowGroup(ROW_GROUP_ROWS, 4 + rowGroup * ROW_GROUP_BYTES);
                long first = ((long) file * rowGroups + rowGroup) * 1000;
                stats.addColumnChunk(chunkBytes / 2 + sizes.nextLong(chunkBytes), OptionalLong.of(first), OptionalLong.of(first + 999), 0);
                for (int column = 1; column < columns; column++) {
                    long min = random.nextInt(1_000_000);
                    stats.addColumnChunk(chunkBytes / 2 + sizes.nextLong(chunkBytes), OptionalLong.of(min), OptionalLong.of(min + random.nextInt(1_000_000)), 0);
                }
            }
            long footer = 4 + rowGroups * ROW_GROUP_BYTES;
            files.add(new FileEntry("%032x".formatted(file), footer + 100_000, ROW_GROUP_ROWS * rowGroups, REPLICAS, stats.footer(footer, 100_000).build()));
        }
        return files;
    }

    private static String option(String[] args, String name, String defaultValue)
    {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return defaultValue;
    }
}
