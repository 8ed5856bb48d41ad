package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.protocol.predicate.RowGroupMatch;
import io.nsc.protocol.predicate.RowGroupPruner;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Classifies every row group of some files of a table version (a batch of them, or all) against
 * the predicate and packs the survivors of each file into splits of about the target size. Pure
 * computation over compact stats, so it is tested without a cluster.
 */
public final class RowGroupPlanner
{
    public static final String ROW_GROUPS_TOTAL = "row_groups_total";
    public static final String ROW_GROUPS_PRUNED_BY_STATS = "row_groups_pruned_by_stats";
    public static final String ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER = "row_groups_pruned_by_dynamic_filter";
    // by Bloom filters, for the query's predicate or the dynamic filter, among those min/max kept
    public static final String ROW_GROUPS_PRUNED_BY_FILTER = "row_groups_pruned_by_filter";
    public static final String ROW_GROUPS_FULLY_MATCHING = "row_groups_fully_matching";
    public static final String ROW_GROUPS_ANSWERED_FROM_STATS = "row_groups_answered_from_stats";
    public static final String ROW_GROUPS_PRUNED_BY_TOP_N = "row_groups_pruned_by_top_n";
    public static final String SPLITS = "splits";
    public static final String SPLITS_RAW = "splits_raw";
    public static final String SPLITS_FILTER = "splits_filter";
    // how the split source read the table's files (NscSplitSource)
    public static final String FILE_BATCHES = "file_batches";
    public static final String FILES_LISTED = "files_listed";
    public static final String FILES_HELD_PEAK = "files_held_peak";

    private final long targetSplitBytes;

    public RowGroupPlanner(long targetSplitBytes)
    {
        this.targetSplitBytes = targetSplitBytes;
    }

    /**
     * @param statsAnswer the part of a pushed-down aggregation the compact stats answered (its row groups are in no split)
     */
    public record Plan(List<NscSplit> splits, long rowGroupsTotal, long rowGroupsPruned, long rowGroupsPrunedByDynamicFilter, long rowGroupsPrunedByFilter, long rowGroupsFullyMatching, Optional<StatsAnswer> statsAnswer, long rowGroupsPrunedByTopN)
    {
        public Plan
        {
            splits = ImmutableList.copyOf(requireNonNull(splits, "splits is null"));
            requireNonNull(statsAnswer, "statsAnswer is null");
        }

        public Plan withSplits(List<NscSplit> newSplits)
        {
            return new Plan(newSplits, rowGroupsTotal, rowGroupsPruned, rowGroupsPrunedByDynamicFilter, rowGroupsPrunedByFilter, rowGroupsFullyMatching, statsAnswer, rowGroupsPrunedByTopN);
        }

        public Plan withTopNPruning(List<NscSplit> newSplits, long prunedByTopN)
        {
            return new Plan(newSplits, rowGroupsTotal, rowGroupsPruned, rowGroupsPrunedByDynamicFilter, rowGroupsPrunedByFilter, rowGroupsFullyMatching, statsAnswer, prunedByTopN);
        }

        public Plan withStatsAnswer(List<NscSplit> newSplits, Optional<StatsAnswer> answer)
        {
            return new Plan(newSplits, rowGroupsTotal, rowGroupsPruned, rowGroupsPrunedByDynamicFilter, rowGroupsPrunedByFilter, rowGroupsFullyMatching, answer, rowGroupsPrunedByTopN);
        }

        public Metrics metrics()
        {
            return new Metrics(ImmutableMap.<String, Metric<?>>builder()
                    .put(ROW_GROUPS_TOTAL, new LongCount(rowGroupsTotal))
                    .put(ROW_GROUPS_PRUNED_BY_STATS, new LongCount(rowGroupsPruned))
                    .put(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER, new LongCount(rowGroupsPrunedByDynamicFilter))
                    .put(ROW_GROUPS_PRUNED_BY_FILTER, new LongCount(rowGroupsPrunedByFilter))
                    .put(ROW_GROUPS_FULLY_MATCHING, new LongCount(rowGroupsFullyMatching))
                    .put(ROW_GROUPS_PRUNED_BY_TOP_N, new LongCount(rowGroupsPrunedByTopN))
                    .put(ROW_GROUPS_ANSWERED_FROM_STATS, new LongCount(statsAnswer.map(StatsAnswer::rowGroups).orElse(0L)))
                    .put(SPLITS, new LongCount(splits.size()))
                    .put(SPLITS_RAW, new LongCount(splits.stream().filter(split -> split.mode() == ScanMode.RAW).count()))
                    .put(SPLITS_FILTER, new LongCount(splits.stream().filter(split -> split.mode() == ScanMode.FILTER).count()))
                    .buildOrThrow());
        }
    }

    /**
     * @param predicate empty: keep every non-empty row group (pruning disabled)
     */
    public Plan plan(List<FileEntry> files, Optional<PruningPredicate> predicate)
    {
        return plan(files, predicate, Optional.empty());
    }

    /**
     * @param predicate empty: keep every non-empty row group (pruning disabled)
     * @param dynamicFilter the join's dynamic filter, tried on the row groups the predicate kept
     */
    public Plan plan(List<FileEntry> files, Optional<PruningPredicate> predicate, Optional<PruningPredicate> dynamicFilter)
    {
        List<NscSplit> splits = new ArrayList<>();
        long total = 0;
        long pruned = 0;
        long prunedByDynamicFilter = 0;
        long prunedByFilter = 0;
        long fullyMatching = 0;
        for (FileEntry file : files) {
            CompactFileStats stats = file.stats();
            SplitPacker packer = new SplitPacker(file, splits::add);
            for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                if (file.isRemoved(rowGroup)) {
                    // a DELETE took its rows out of the table: no scan, no answer from its stats
                    continue;
                }
                total++;
                RowGroupMatch match = classify(stats, rowGroup, predicate);
                if (match == RowGroupMatch.NONE) {
                    pruned++;
                    continue;
                }
                if (predicate.isPresent() && !predicate.get().mayMatchFilters(stats, rowGroup)) {
                    prunedByFilter++;
                    continue;
                }
                if (dynamicFilter.isPresent() && RowGroupPruner.classify(stats, rowGroup, dynamicFilter.get().columns()) == RowGroupMatch.NONE) {
                    prunedByDynamicFilter++;
                    continue;
                }
                if (dynamicFilter.isPresent() && !dynamicFilter.get().mayMatchFilters(stats, rowGroup)) {
                    prunedByFilter++;
                    continue;
                }
                if (match == RowGroupMatch.ALL) {
                    fullyMatching++;
                }
                packer.add(rowGroup, stats.rowGroupRowCount(rowGroup), stats.rowGroupCompressedSize(rowGroup));
            }
            packer.flush();
        }
        return new Plan(splits, total, pruned, prunedByDynamicFilter, prunedByFilter, fullyMatching, Optional.empty(), 0);
    }

    private static RowGroupMatch classify(CompactFileStats stats, int rowGroup, Optional<PruningPredicate> predicate)
    {
        if (predicate.isEmpty()) {
            // without pruning only truly empty row groups are skipped: they hold nothing to read
            return stats.rowGroupRowCount(rowGroup) == 0 ? RowGroupMatch.NONE : RowGroupMatch.SOME;
        }
        RowGroupMatch match = RowGroupPruner.classify(stats, rowGroup, predicate.get().columns());
        // "fully matching" speaks of the predicate the connector was given: with none, or with
        // part of it left untranslated, no row group can be said to match it entirely
        if (match == RowGroupMatch.ALL && (predicate.get().columns().isEmpty() || !predicate.get().fullyTranslated())) {
            return RowGroupMatch.SOME;
        }
        return match;
    }

    private final class SplitPacker
    {
        private final FileEntry file;
        private final Consumer<NscSplit> sink;
        private final List<Integer> rowGroups = new ArrayList<>();
        private long rows;
        private long bytes;

        private SplitPacker(FileEntry file, Consumer<NscSplit> sink)
        {
            this.file = file;
            this.sink = sink;
        }

        void add(int rowGroup, long rowGroupRows, long rowGroupBytes)
        {
            if (!rowGroups.isEmpty() && bytes + rowGroupBytes > targetSplitBytes) {
                flush();
            }
            rowGroups.add(rowGroup);
            rows += rowGroupRows;
            bytes += rowGroupBytes;
        }

        void flush()
        {
            if (rowGroups.isEmpty()) {
                return;
            }
            sink.accept(new NscSplit(file.fileId(), file.sizeBytes(), rowGroups, rows, bytes, file.replicas(), ScanMode.RAW));
            rowGroups.clear();
            rows = 0;
            bytes = 0;
        }
    }
}
