package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.NscTopN;
import io.nsc.trino.metadata.TableFiles.FileEntry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.util.Objects.requireNonNull;

/**
 * Prunes row groups that cannot hold any of a top-N's rows, from the bound the stats give. For
 * {@code ORDER BY x DESC NULLS LAST LIMIT n}: taking row groups whose every row matches the
 * predicate by descending min(x) until they hold n non-null values gives a value L that at
 * least n matching rows reach, so a row group whose max(x) is below L (or whose x is all NULL)
 * holds none of the first n rows. Ascending mirrors it with max and min. Only the first sort
 * key matters (rows below L lose on it whatever follows), only exact keys bound anything, and
 * NULLS FIRST orders are left alone.
 */
public final class TopNBound
{
    public record Result(List<NscSplit> splits, long pruned) {}

    private TopNBound() {}

    /**
     * Finds the bound over all of a table's splits, given a batch of files at a time, keeping only
     * the best candidates that together hold n values (at most n of them).
     */
    public static final class Finder
    {
        private final NscTopN topN;
        private final int column;
        private final Optional<PruningPredicate> predicate;
        private final boolean ascending;
        // worst first: the candidate to drop once the others hold n values without it
        private final PriorityQueue<Candidate> best;
        private long rows;
        private boolean unbounded;

        /**
         * @param predicate the enforced predicate's key ranges; empty when every row matches
         */
        public Finder(NscTopN topN, int column, Optional<PruningPredicate> predicate)
        {
            this.topN = requireNonNull(topN, "topN is null");
            this.column = column;
            this.predicate = requireNonNull(predicate, "predicate is null");
            NscTopN.SortItem first = topN.order().getFirst();
            this.ascending = first.ascending();
            // descending: the best have the highest min; ascending: the lowest max
            this.best = new PriorityQueue<>(ascending
                    ? Comparator.comparingLong(Candidate::key).reversed()
                    : Comparator.comparingLong(Candidate::key));
            this.unbounded = first.nullsFirst() || (predicate.isPresent() && !predicate.get().fullyTranslated());
        }

        /**
         * @param splits the splits planned for {@code files}
         */
        public void add(List<FileEntry> files, List<NscSplit> splits)
        {
            if (unbounded) {
                return;
            }
            Map<String, FileEntry> filesById = byId(files);
            for (NscSplit split : splits) {
                CompactFileStats stats = filesById.get(split.fileId()).stats();
                if (stats.keyKind(column) != KeyKind.EXACT) {
                    unbounded = true;
                    best.clear();
                    return;
                }
                for (int rowGroup : split.rowGroups()) {
                    if (PruningPredicate.matchesEntirely(predicate, stats, rowGroup) && stats.hasMinMax(rowGroup, column) && stats.nullCount(rowGroup, column) >= 0) {
                        offer(stats, rowGroup);
                    }
                }
            }
        }

        private void offer(CompactFileStats stats, int rowGroup)
        {
            long values = stats.rowGroupRowCount(rowGroup) - stats.nullCount(rowGroup, column);
            if (values <= 0) {
                // adds no value: never the one that brings the best to n
                return;
            }
            best.add(new Candidate(ascending ? stats.max(rowGroup, column) : stats.min(rowGroup, column), values));
            rows += values;
            while (rows - best.peek().values() >= topN.count()) {
                rows -= best.poll().values();
            }
        }

        /** Whether more files could still give a bound: not after a file without exact keys, nor for orders and predicates that give none. */
        public boolean canBound()
        {
            return !unbounded;
        }

        /** A value at least n matching rows reach; empty when the stats give none. */
        public Optional<Long> bound()
        {
            if (unbounded || rows < topN.count()) {
                return Optional.empty();
            }
            return Optional.of(best.peek().key());
        }

        /** Candidates kept: what the finder holds, whatever the table's size. */
        public int candidates()
        {
            return best.size();
        }

        private record Candidate(long key, long values) {}
    }

    /**
     * Prunes the row groups of some splits (of a batch of files) that cannot hold any of the
     * first rows, given the bound a {@link Finder} found over the whole table.
     */
    public static Result prune(NscTopN topN, int column, List<FileEntry> files, List<NscSplit> splits, long bound)
    {
        boolean ascending = topN.order().getFirst().ascending();
        Map<String, FileEntry> filesById = byId(files);
        long pruned = 0;
        ImmutableList.Builder<NscSplit> kept = ImmutableList.builder();
        for (NscSplit split : splits) {
            CompactFileStats stats = filesById.get(split.fileId()).stats();
            List<Integer> rowGroups = new ArrayList<>();
            for (int rowGroup : split.rowGroups()) {
                if (cannotContribute(stats, rowGroup, column, ascending, bound)) {
                    pruned++;
                }
                else {
                    rowGroups.add(rowGroup);
                }
            }
            if (rowGroups.size() == split.rowGroups().size()) {
                kept.add(split);
            }
            else if (!rowGroups.isEmpty()) {
                kept.add(split.withRowGroups(rowGroups, stats));
            }
        }
        return new Result(kept.build(), pruned);
    }

    private static Map<String, FileEntry> byId(List<FileEntry> files)
    {
        return files.stream().collect(toImmutableMap(FileEntry::fileId, file -> file));
    }

    private static boolean cannotContribute(CompactFileStats stats, int rowGroup, int column, boolean ascending, long bound)
    {
        long rows = stats.rowGroupRowCount(rowGroup);
        long nulls = stats.nullCount(rowGroup, column);
        if (nulls == rows && rows > 0) {
            // NULLS LAST: every one of at least n non-null matching rows comes first
            return true;
        }
        if (!stats.hasMinMax(rowGroup, column)) {
            return false;
        }
        return ascending ? stats.min(rowGroup, column) > bound : stats.max(rowGroup, column) < bound;
    }
}
