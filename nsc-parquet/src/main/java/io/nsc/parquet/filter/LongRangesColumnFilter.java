package io.nsc.parquet.filter;

import io.nsc.parquet.types.NativeValues;
import io.trino.spi.block.Block;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.List;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * Types whose values are Java longs ordered as signed longs (integers, date, short decimal,
 * short timestamp, time): the domain's ranges become closed long intervals searched without
 * boxing a value per row; many single values in a small span (an IN list, a dynamic filter)
 * become a bitmap. Blocks without nulls of the arrays trino-parquet decodes into are read in
 * type-specialised loops, with no call through the type per value. Types whose long is not ordered that way (real's int bits, the packed
 * timestamp with time zone) never come here.
 */
final class LongRangesColumnFilter
        implements ColumnFilter
{
    private static final int MIN_BITMAP_VALUES = 16;
    // 2^24 values: a bitmap of 2 MB at most
    private static final long MAX_BITMAP_SPAN = 1L << 24;

    private final Type type;
    private final boolean nullAllowed;
    // closed intervals [lows[i], highs[i]], ascending and disjoint
    private final long[] lows;
    private final long[] highs;

    // set for many single values in a small span: bit (value - bitmapBase) of it
    private final long[] bitmap;
    private final long bitmapBase;
    private final long bitmapSpan;

    private LongRangesColumnFilter(Type type, boolean nullAllowed, long[] lows, long[] highs)
    {
        this.type = requireNonNull(type, "type is null");
        this.nullAllowed = nullAllowed;
        this.lows = lows;
        this.highs = highs;
        this.bitmap = bitmap(lows, highs);
        this.bitmapBase = lows.length == 0 ? 0 : lows[0];
        this.bitmapSpan = bitmap == null ? 0 : (long) bitmap.length * 64;
    }

    static boolean supports(Type type)
    {
        return NativeValues.isSignedLongOrdered(type);
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
        boolean mayHaveNull = block.mayHaveNull();
        // type-specialised loops over the arrays trino-parquet decodes into; anything else asks the type
        return switch (block) {
            case LongArrayBlock longs when !mayHaveNull -> filterLongs(longs, positions, count);
            case IntArrayBlock ints when !mayHaveNull -> filterInts(ints, positions, count);
            default -> filterAny(block, positions, count);
        };
    }

    private int filterLongs(LongArrayBlock block, int[] positions, int count)
    {
        int passed = 0;
        if (bitmap != null) {
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                positions[passed] = position;
                passed += inBitmap(block.getLong(position)) ? 1 : 0;
            }
            return passed;
        }
        if (lows.length == 1) {
            long low = lows[0];
            long high = highs[0];
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                long value = block.getLong(position);
                positions[passed] = position;
                passed += value >= low && value <= high ? 1 : 0;
            }
            return passed;
        }
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            positions[passed] = position;
            passed += contains(block.getLong(position)) ? 1 : 0;
        }
        return passed;
    }

    private int filterInts(IntArrayBlock block, int[] positions, int count)
    {
        int passed = 0;
        if (lows.length == 1 && bitmap == null) {
            long low = lows[0];
            long high = highs[0];
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                long value = block.getInt(position);
                positions[passed] = position;
                passed += value >= low && value <= high ? 1 : 0;
            }
            return passed;
        }
        for (int i = 0; i < count; i++) {
            int position = positions[i];
            positions[passed] = position;
            passed += contains(block.getInt(position)) ? 1 : 0;
        }
        return passed;
    }

    private int filterAny(Block block, int[] positions, int count)
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
        if (bitmap != null) {
            return inBitmap(value);
        }
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

    private boolean inBitmap(long value)
    {
        // unsigned: values below the base wrap to offsets past the bitmap's end
        long offset = value - bitmapBase;
        return Long.compareUnsigned(offset, bitmapSpan) < 0 && (bitmap[(int) (offset >>> 6)] & (1L << offset)) != 0;
    }

    /**
     * A set of single values (an IN list, a dynamic filter) within a span of at most
     * {@link #MAX_BITMAP_SPAN}: one bit per value of the span, tested in one load instead of a
     * binary search over the values.
     */
    private static long[] bitmap(long[] lows, long[] highs)
    {
        if (lows.length < MIN_BITMAP_VALUES) {
            return null;
        }
        for (int i = 0; i < lows.length; i++) {
            if (lows[i] != highs[i]) {
                return null;
            }
        }
        long span = highs[highs.length - 1] - lows[0] + 1;
        if (span <= 0 || span > MAX_BITMAP_SPAN) {
            return null;
        }
        long[] bitmap = new long[toIntExact((span + 63) >>> 6)];
        for (long value : lows) {
            long offset = value - lows[0];
            bitmap[(int) (offset >>> 6)] |= 1L << offset;
        }
        return bitmap;
    }
}
