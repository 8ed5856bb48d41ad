package io.nsc.protocol.predicate;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;

import java.util.List;

import static io.nsc.protocol.predicate.RowGroupMatch.ALL;
import static io.nsc.protocol.predicate.RowGroupMatch.NONE;
import static io.nsc.protocol.predicate.RowGroupMatch.SOME;
import static java.util.Objects.requireNonNull;

/**
 * Classifies a row group against a conjunction of column predicates using only its compact
 * stats. Both the coordinator (split pruning) and storage (scan planning) call it, so it must
 * be conservative: it says NONE only when no row can match and ALL only when every row does.
 */
public final class RowGroupPruner
{
    private RowGroupPruner() {}

    /**
     * The AND of all column predicates. Never NONE unless no row can match; never ALL unless
     * every row matches. An empty predicate list matches every row.
     */
    public static RowGroupMatch classify(CompactFileStats stats, int rowGroup, List<ColumnPredicate> predicates)
    {
        requireNonNull(stats, "stats is null");
        requireNonNull(predicates, "predicates is null");
        long rowCount = stats.rowGroupRowCount(rowGroup);
        if (rowCount == 0) {
            return NONE;
        }
        RowGroupMatch result = ALL;
        for (ColumnPredicate predicate : predicates) {
            RowGroupMatch match = classifyColumn(stats, rowGroup, rowCount, predicate);
            if (match == NONE) {
                return NONE;
            }
            if (match == SOME) {
                result = SOME;
            }
        }
        return result;
    }

    private static RowGroupMatch classifyColumn(CompactFileStats stats, int rowGroup, long rowCount, ColumnPredicate predicate)
    {
        int column = predicate.column();
        long nullCount = stats.nullCount(rowGroup, column);
        if (nullCount == rowCount) {
            // only nulls: whatever min/max claim, the values part is irrelevant
            return predicate.nullAllowed() ? ALL : NONE;
        }
        RowGroupMatch values = classifyValues(stats, rowGroup, column, predicate.ranges());
        if (nullCount == 0) {
            return values;
        }
        // nulls present or possibly present (unknown count)
        if (predicate.nullAllowed()) {
            return values == ALL ? ALL : SOME;
        }
        return values == NONE ? NONE : SOME;
    }

    /**
     * How many of the non-null values fall into the ranges.
     */
    private static RowGroupMatch classifyValues(CompactFileStats stats, int rowGroup, int column, List<KeyRange> ranges)
    {
        if (ranges.isEmpty()) {
            return NONE;
        }
        if (ranges.size() == 1 && ranges.getFirst().isAll()) {
            return ALL;
        }
        KeyKind kind = stats.keyKind(column);
        if (kind == KeyKind.NONE || !stats.hasMinMax(rowGroup, column)) {
            return SOME;
        }
        long min = stats.min(rowGroup, column);
        long max = stats.max(rowGroup, column);

        boolean overlaps = false;
        // Ranges are sorted with non-decreasing keys, so only ranges from the first one ending at
        // or after min up to the last one starting at or before max can touch [min, max].
        for (int i = firstEndingAtOrAfter(ranges, min); i < ranges.size(); i++) {
            KeyRange range = ranges.get(i);
            if (!range.lowUnbounded() && range.low() > max) {
                break;
            }
            if (contains(kind, range, min, max)) {
                // NaN rows sit outside every range but never show in min/max
                return kind == KeyKind.FLOATING ? SOME : ALL;
            }
            overlaps |= overlaps(kind, range, min, max);
        }
        return overlaps ? SOME : NONE;
    }

    private static int firstEndingAtOrAfter(List<KeyRange> ranges, long key)
    {
        int low = 0;
        int high = ranges.size();
        while (low < high) {
            int middle = (low + high) >>> 1;
            KeyRange range = ranges.get(middle);
            if (!range.highUnbounded() && range.high() < key) {
                low = middle + 1;
            }
            else {
                high = middle;
            }
        }
        return low;
    }

    private static boolean overlaps(KeyKind kind, KeyRange range, long min, long max)
    {
        if (kind == KeyKind.LOSSY) {
            // A value beyond an exclusive bound may still share the bound's key: treat bounds as inclusive.
            return (range.lowUnbounded() || range.low() <= max) && (range.highUnbounded() || min <= range.high());
        }
        if (isEmptyOverExactKeys(range)) {
            return false;
        }
        return effectiveLow(range) <= max && min <= effectiveHigh(range);
    }

    private static boolean contains(KeyKind kind, KeyRange range, long min, long max)
    {
        if (kind == KeyKind.LOSSY) {
            // Keys equal to a bound's key may belong to values on either side of the bound: only
            // keys strictly inside prove the values are.
            return (range.lowUnbounded() || range.low() < min) && (range.highUnbounded() || max < range.high());
        }
        if (isEmptyOverExactKeys(range)) {
            return false;
        }
        return effectiveLow(range) <= min && max <= effectiveHigh(range);
    }

    /**
     * Over exact keys an exclusive bound at the extreme key, or (k, k), admits no key at all.
     */
    private static boolean isEmptyOverExactKeys(KeyRange range)
    {
        if (!range.lowUnbounded() && !range.lowInclusive() && range.low() == Long.MAX_VALUE) {
            return true;
        }
        if (!range.highUnbounded() && !range.highInclusive() && range.high() == Long.MIN_VALUE) {
            return true;
        }
        return effectiveLow(range) > effectiveHigh(range);
    }

    /**
     * The smallest key in the range over exact (integral) keys; callers rule out an exclusive bound at Long.MAX_VALUE first.
     */
    private static long effectiveLow(KeyRange range)
    {
        if (range.lowUnbounded()) {
            return Long.MIN_VALUE;
        }
        return range.lowInclusive() ? range.low() : range.low() + 1;
    }

    /**
     * The largest key in the range over exact (integral) keys; callers rule out an exclusive bound at Long.MIN_VALUE first.
     */
    private static long effectiveHigh(KeyRange range)
    {
        if (range.highUnbounded()) {
            return Long.MAX_VALUE;
        }
        return range.highInclusive() ? range.high() : range.high() - 1;
    }
}
