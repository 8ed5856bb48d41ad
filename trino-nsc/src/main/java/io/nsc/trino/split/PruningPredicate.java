package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.RowGroupMatch;
import io.nsc.protocol.predicate.RowGroupPruner;
import io.nsc.protocol.stats.CompactFileStats;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What the coordinator prunes with. When part of the query's predicate has no stats keys (char,
 * uuid, ...), that part is left out: pruning stays correct, but a row group can then no longer be
 * called fully matching.
 */
public record PruningPredicate(List<ColumnPredicate> columns, boolean fullyTranslated)
{
    public PruningPredicate
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
    }

    /**
     * Whether every row of the row group matches the predicate (none: every row matches). A
     * predicate not fully translated into key ranges can never say so.
     */
    public static boolean matchesEntirely(Optional<PruningPredicate> predicate, CompactFileStats stats, int rowGroup)
    {
        if (predicate.isEmpty()) {
            return true;
        }
        if (!predicate.get().fullyTranslated()) {
            return false;
        }
        return predicate.get().columns().isEmpty() || RowGroupPruner.classify(stats, rowGroup, predicate.get().columns()) == RowGroupMatch.ALL;
    }
}
