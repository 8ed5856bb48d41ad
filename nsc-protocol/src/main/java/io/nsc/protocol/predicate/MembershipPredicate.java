package io.nsc.protocol.predicate;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.FilterValueType;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * A column must equal one of a few known values, never NULL: what a row group's Bloom filter can
 * rule out. The values come as the hashes a Parquet writer of {@code valueType} would have put
 * into the filter, so the pruner needs neither the values nor their type.
 *
 * @param column the column's index in the file's {@link io.nsc.protocol.stats.CompactFileStats}
 * @param hashes XXH64 of each value's plain encoding, never empty
 */
public record MembershipPredicate(int column, FilterValueType valueType, long[] hashes)
{
    public MembershipPredicate
    {
        if (column < 0) {
            throw new IllegalArgumentException("column must not be negative: " + column);
        }
        requireNonNull(valueType, "valueType is null");
        hashes = requireNonNull(hashes, "hashes is null").clone();
        if (hashes.length == 0) {
            throw new IllegalArgumentException("hashes is empty: a predicate no value satisfies prunes by min/max already");
        }
    }

    @Override
    public long[] hashes()
    {
        return hashes.clone();
    }

    /**
     * False only when the row group's filter for the column proves that none of the values is
     * there. True when the chunk has no filter, or one over another value type.
     */
    public boolean mayMatch(CompactFileStats stats, int rowGroup)
    {
        int filter = stats.filterIndex(rowGroup, column);
        if (filter < 0 || stats.filterValueType(filter) != valueType) {
            return true;
        }
        for (long hash : hashes) {
            if (stats.filterMightContain(filter, hash)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object obj)
    {
        return obj instanceof MembershipPredicate other && column == other.column && valueType == other.valueType && Arrays.equals(hashes, other.hashes);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * column + valueType.hashCode()) + Arrays.hashCode(hashes);
    }

    @Override
    public String toString()
    {
        return "MembershipPredicate{column=%s, valueType=%s, values=%s}".formatted(column, valueType, hashes.length);
    }
}
