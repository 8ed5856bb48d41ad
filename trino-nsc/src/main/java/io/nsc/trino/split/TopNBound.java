package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.NscTopN;
import io.nsc.trino.metadata.TableFiles;
import io.nsc.trino.metadata.TableFiles.FileEntry;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableMap.toImmutableMap;

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

    private record Candidate(CompactFileStats stats, int rowGroup) {}

    private TopNBound() {}

    /**
     * @param predicate the enforced predicate's key ranges; empty when every row matches
     */
    public static Result prune(NscTopN topN, int column, TableFiles files, List<NscSplit> splits, Optional<PruningPredicate> predicate)
    {
        NscTopN.SortItem first = topN.order().getFirst();
        if (first.nullsFirst() || (predicate.isPresent() && !predicate.get().fullyTranslated())) {
            return new Result(splits, 0);
        }
        Map<String, FileEntry> filesById = files.files().stream().collect(toImmutableMap(FileEntry::fileId, file -> file));
        List<Candidate> full = new ArrayList<>();
        for (NscSplit split : splits) {
            CompactFileStats stats = filesById.get(split.fileId()).stats();
            if (stats.keyKind(column) != KeyKind.EXACT) {
                return new Result(splits, 0);
            }
            for (int rowGroup : split.rowGroups()) {
                if (PruningPredicate.matchesEntirely(predicate, stats, rowGroup) && stats.hasMinMax(rowGroup, column) && stats.nullCount(rowGroup, column) >= 0) {
                    full.add(new Candidate(stats, rowGroup));
                }
            }
        }
        boolean ascending = first.ascending();
        // best first: descending: by min descending; ascending: by max ascending
        Comparator<Candidate> best = ascending
                ? Comparator.comparingLong(candidate -> candidate.stats().max(candidate.rowGroup(), column))
                : Comparator.<Candidate>comparingLong(candidate -> candidate.stats().min(candidate.rowGroup(), column)).reversed();
        full.sort(best);
        long rows = 0;
        Optional<Long> bound = Optional.empty();
        for (Candidate candidate : full) {
            rows += candidate.stats().rowGroupRowCount(candidate.rowGroup()) - candidate.stats().nullCount(candidate.rowGroup(), column);
            if (rows >= topN.count()) {
                bound = Optional.of(ascending ? candidate.stats().max(candidate.rowGroup(), column) : candidate.stats().min(candidate.rowGroup(), column));
                break;
            }
        }
        if (bound.isEmpty()) {
            return new Result(splits, 0);
        }
        long limit = bound.get();
        long pruned = 0;
        ImmutableList.Builder<NscSplit> kept = ImmutableList.builder();
        for (NscSplit split : splits) {
            CompactFileStats stats = filesById.get(split.fileId()).stats();
            List<Integer> rowGroups = new ArrayList<>();
            for (int rowGroup : split.rowGroups()) {
                if (cannotContribute(stats, rowGroup, column, ascending, limit)) {
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
