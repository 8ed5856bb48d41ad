package io.nsc.protocol.predicate;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What one column's values must satisfy for a row to match.
 *
 * @param column the column's index in the file's {@link io.nsc.protocol.stats.CompactFileStats}
 * @param ranges the accepted non-null values as key ranges, sorted and disjoint in value order
 * (so each range starts at or after the key where the previous one ends; neighbours may share
 * a key when keys are lossy). Empty: no non-null value matches. A single {@link KeyRange#all()}:
 * every non-null value matches, NaN included. Ranges never contain NaN otherwise.
 * @param nullAllowed whether NULL matches
 */
public record ColumnPredicate(int column, List<KeyRange> ranges, boolean nullAllowed)
{
    public ColumnPredicate
    {
        if (column < 0) {
            throw new IllegalArgumentException("column must not be negative: " + column);
        }
        ranges = List.copyOf(requireNonNull(ranges, "ranges is null"));
        checkSorted(ranges);
    }

    /**
     * {@code column IS NULL}
     */
    public static ColumnPredicate isNull(int column)
    {
        return new ColumnPredicate(column, List.of(), true);
    }

    /**
     * {@code column IS NOT NULL}
     */
    public static ColumnPredicate isNotNull(int column)
    {
        return new ColumnPredicate(column, List.of(KeyRange.all()), false);
    }

    private static void checkSorted(List<KeyRange> ranges)
    {
        for (int i = 1; i < ranges.size(); i++) {
            KeyRange previous = ranges.get(i - 1);
            KeyRange current = ranges.get(i);
            // the pruner binary-searches on these keys, so their order is part of the contract
            if (previous.highUnbounded() || current.lowUnbounded() || current.low() < previous.high()) {
                throw new IllegalArgumentException("ranges must be sorted and disjoint, but %s is followed by %s".formatted(previous, current));
            }
        }
    }
}
