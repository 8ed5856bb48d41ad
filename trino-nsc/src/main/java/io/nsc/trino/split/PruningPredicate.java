package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.MembershipPredicate;
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
 *
 * @param memberships the equalities and INs of the predicate, for the row groups' Bloom filters
 */
public record PruningPredicate(List<ColumnPredicate> columns, boolean fullyTranslated, List<MembershipPredicate> memberships)
{
    public PruningPredicate
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        memberships = ImmutableList.copyOf(requireNonNull(memberships, "memberships is null"));
    }

    /**
     * False only when a Bloom filter of the row group proves that one of the equalities matches
     * no row in it.
     */
    public boolean mayMatchFilters(CompactFileStats stats, int rowGroup)
    {
        for (MembershipPredicate membership : memberships) {
            if (!membership.mayMatch(stats, rowGroup)) {
                return false;
            }
        }
        return true;
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
