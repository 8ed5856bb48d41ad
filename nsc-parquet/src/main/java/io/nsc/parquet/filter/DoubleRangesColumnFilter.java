package io.nsc.parquet.filter;

import io.trino.spi.block.Block;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.Type;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.Double.longBitsToDouble;
import static java.lang.Float.intBitsToFloat;
import static java.util.Objects.requireNonNull;

/**
 * Double and real: the domain's ranges tested with primitive comparisons, no value boxed per row.
 * Exactly the domain's answer: a domain orders doubles with {@code ==} first and then
 * {@code Double.compare} (so -0.0 equals 0.0 and NaN sorts last), which for every value but NaN
 * is what {@code <} and {@code ==} say; and a domain whose values are not all contains no NaN
 * (no range may have a NaN bound). A real widens to the double of the same value, which keeps
 * the order.
 */
final class DoubleRangesColumnFilter
        implements ColumnFilter
{
    private final Type type;
    private final boolean nullAllowed;
    // ascending, disjoint ranges; an unbounded end is the infinity of its side, included
    private final double[] lows;
    private final boolean[] lowsIncluded;
    private final double[] highs;
    private final boolean[] highsIncluded;

    private DoubleRangesColumnFilter(Type type, boolean nullAllowed, double[] lows, boolean[] lowsIncluded, double[] highs, boolean[] highsIncluded)
    {
        this.type = requireNonNull(type, "type is null");
        this.nullAllowed = nullAllowed;
        this.lows = lows;
        this.lowsIncluded = lowsIncluded;
        this.highs = highs;
        this.highsIncluded = highsIncluded;
    }

    static boolean supports(Type type)
    {
        return type instanceof DoubleType || type instanceof RealType;
    }

    /** A domain whose values are not all (those contain NaN, which no range holds). */
    static DoubleRangesColumnFilter create(Domain domain)
    {
        checkArgument(!domain.getValues().isAll(), "all values: NaN included");
        Type type = domain.getType();
        List<Range> ranges = domain.getValues().getRanges().getOrderedRanges();
        int count = ranges.size();
        double[] lows = new double[count];
        boolean[] lowsIncluded = new boolean[count];
        double[] highs = new double[count];
        boolean[] highsIncluded = new boolean[count];
        for (int i = 0; i < count; i++) {
            Range range = ranges.get(i);
            lows[i] = range.isLowUnbounded() ? Double.NEGATIVE_INFINITY : toDouble(type, range.getLowBoundedValue());
            lowsIncluded[i] = range.isLowUnbounded() || range.isLowInclusive();
            highs[i] = range.isHighUnbounded() ? Double.POSITIVE_INFINITY : toDouble(type, range.getHighBoundedValue());
            highsIncluded[i] = range.isHighUnbounded() || range.isHighInclusive();
        }
        return new DoubleRangesColumnFilter(type, domain.isNullAllowed(), lows, lowsIncluded, highs, highsIncluded);
    }

    private static double toDouble(Type type, Object value)
    {
        return type instanceof RealType ? intBitsToFloat((int) (long) value) : (double) value;
    }

    @Override
    public int filter(Block block, int[] positions, int count)
    {
        if (!block.mayHaveNull()) {
            if (block instanceof LongArrayBlock longs && type instanceof DoubleType) {
                return lows.length == 1 ? filterDoublesInOneRange(longs, positions, count) : filterDoubles(longs, positions, count);
            }
            if (block instanceof IntArrayBlock ints && type instanceof RealType) {
                return filterReals(ints, positions, count);
            }
        }
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            boolean matches = block.isNull(position) ? nullAllowed : contains(type instanceof RealType ? intBitsToFloat((int) type.getLong(block, position)) : type.getDouble(block, position));
            if (matches) {
                positions[passed++] = position;
            }
        }
        return passed;
    }

    private int filterDoublesInOneRange(LongArrayBlock block, int[] positions, int count)
    {
        double low = lows[0];
        double high = highs[0];
        boolean lowIncluded = lowsIncluded[0];
        boolean highIncluded = highsIncluded[0];
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            double value = longBitsToDouble(block.getLong(position));
            // NaN fails every comparison
            boolean matches = (value > low || (lowIncluded && value == low)) && (value < high || (highIncluded && value == high));
            positions[passed] = position;
            passed += matches ? 1 : 0;
        }
        return passed;
    }

    private int filterDoubles(LongArrayBlock block, int[] positions, int count)
    {
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            positions[passed] = position;
            passed += contains(longBitsToDouble(block.getLong(position))) ? 1 : 0;
        }
        return passed;
    }

    private int filterReals(IntArrayBlock block, int[] positions, int count)
    {
        int passed = 0;
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            positions[passed] = position;
            passed += contains(intBitsToFloat(block.getInt(position))) ? 1 : 0;
        }
        return passed;
    }

    private boolean contains(double value)
    {
        if (Double.isNaN(value)) {
            return false;
        }
        // the last range whose low end is at or below value is the only one that can hold it
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
        if (candidate < 0) {
            return false;
        }
        if (value == lows[candidate] && !lowsIncluded[candidate]) {
            // (a, b] after [x, a]: the ranges are disjoint, but an excluded end may meet the one before
            return candidate > 0 && value == highs[candidate - 1] && highsIncluded[candidate - 1];
        }
        return value < highs[candidate] || (value == highs[candidate] && highsIncluded[candidate]);
    }
}
