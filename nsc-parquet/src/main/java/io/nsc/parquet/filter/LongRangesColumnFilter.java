package io.nsc.parquet.filter;

import io.trino.spi.block.Block;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Types whose values are Java longs ordered as signed longs (integers, date, short decimal,
 * short timestamp, time): the domain's ranges become closed long intervals searched without
 * boxing a value per row. Types whose long is not ordered that way (real's int bits, the packed
 * timestamp with time zone) never come here.
 */
final class LongRangesColumnFilter
        implements ColumnFilter
{
    private final Type type;
    private final boolean nullAllowed;
    // closed intervals [lows[i], highs[i]], ascending and disjoint
    private final long[] lows;
    private final long[] highs;

    private LongRangesColumnFilter(Type type, boolean nullAllowed, long[] lows, long[] highs)
    {
        this.type = requireNonNull(type, "type is null");
        this.nullAllowed = nullAllowed;
        this.lows = lows;
        this.highs = highs;
    }

    static boolean supports(Type type)
    {
        return type instanceof BigintType
                || type instanceof IntegerType
                || type instanceof SmallintType
                || type instanceof TinyintType
                || type instanceof DateType
                || type instanceof TimeType
                || (type instanceof DecimalType decimal && decimal.isShort())
                || (type instanceof TimestampType timestamp && timestamp.isShort());
    }

    static LongRangesColumnFilter create(Domain domain)
    {
        List<Range> ranges = domain.getValues().getRanges().getOrderedRanges();
        long[] lows = new long[ranges.size()];
        long[] highs = new long[ranges.size()];
        int count = 0;
        for (Range range : ranges) {
            long low = range.isLowUnbounded() ? Long.MIN_VALUE : (long) range.getLowBoundedValue();
            long high = range.isHighUnbounded() ? Long.MAX_VALUE : (long) range.getHighBoundedValue();
            if (!range.isLowUnbounded() && !range.isLowInclusive()) {
                if (low == Long.MAX_VALUE) {
                    continue;
                }
                low++;
            }
            if (!range.isHighUnbounded() && !range.isHighInclusive()) {
                if (high == Long.MIN_VALUE) {
                    continue;
                }
                high--;
            }
            if (low > high) {
                continue;
            }
            lows[count] = low;
            highs[count] = high;
            count++;
        }
        return new LongRangesColumnFilter(domain.getType(), domain.isNullAllowed(), Arrays.copyOf(lows, count), Arrays.copyOf(highs, count));
    }

    @Override
    public int filter(Block block, int[] positions, int count)
    {
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            boolean matches = block.isNull(position) ? nullAllowed : contains(type.getLong(block, position));
            if (matches) {
                positions[passed++] = position;
            }
        }
        return passed;
    }

    private boolean contains(long value)
    {
        // the last interval starting at or below value is the only one that can hold it
        int low = 0;
        int high = lows.length - 1;
        int candidate = -1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            if (lows[middle] <= value) {
                candidate = middle;
                low = middle + 1;
            }
            else {
                high = middle - 1;
            }
        }
        return candidate >= 0 && value <= highs[candidate];
    }
}
