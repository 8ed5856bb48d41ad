package io.nsc.protocol.stats;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * Turns column values into the signed 64-bit keys that {@link CompactFileStats} keeps as min/max.
 * Storage uses it on Parquet statistics and the connector on predicate values, so both sides
 * must go through these methods to agree on the key space.
 */
public final class StatsKeys
{
    private static final int PREFIX_BYTES = Long.BYTES;
    private static final long NANOS_PER_MICRO = 1_000;

    private StatsKeys() {}

    /**
     * Integers, dates (days), short decimals (unscaled), time (picos of day), timestamps (epoch micros).
     */
    public static long ofLong(long value)
    {
        return value;
    }

    public static long ofBoolean(boolean value)
    {
        return value ? 1 : 0;
    }

    /**
     * An order-preserving key over non-NaN doubles: keys compare like the values, and -0.0 shares
     * the key of 0.0 (they are equal in Trino).
     *
     * @throws IllegalArgumentException for NaN, which has no place in the order
     */
    public static long ofDouble(double value)
    {
        if (Double.isNaN(value)) {
            throw new IllegalArgumentException("NaN has no stats key");
        }
        if (value == 0.0) {
            // also catches -0.0
            value = 0.0;
        }
        long bits = Double.doubleToRawLongBits(value);
        // Non-negative doubles already order like their bits. Negative ones order in reverse, so
        // flip every bit except the sign to turn their magnitude order around.
        return bits < 0 ? bits ^ Long.MAX_VALUE : bits;
    }

    /**
     * Same rules as {@link #ofDouble}; widening is exact, so real and double share one key space.
     */
    public static long ofReal(float value)
    {
        return ofDouble(value);
    }

    /**
     * The first 8 bytes big-endian, zero padded, with unsigned byte order mapped onto signed long
     * order. Non-decreasing in the unsigned lexicographic order of byte strings (how Trino orders
     * varchar and varbinary), but many values share a key.
     */
    public static long ofBinaryPrefix(byte[] bytes, int offset, int length)
    {
        requireNonNull(bytes, "bytes is null");
        checkFromIndexSize(offset, length, bytes.length);
        long prefix = 0;
        int used = Math.min(length, PREFIX_BYTES);
        for (int i = 0; i < used; i++) {
            prefix |= (bytes[offset + i] & 0xFFL) << (8 * (PREFIX_BYTES - 1 - i));
        }
        return prefix ^ Long.MIN_VALUE;
    }

    /**
     * A signed 128-bit two's complement value (a long decimal's unscaled value), saturated to the
     * long range: exact inside it, monotone everywhere.
     */
    public static long ofDecimal128(long high, long low)
    {
        if (high == (low >> 63)) {
            // the high half is only the sign extension of the low half: the value fits a long
            return low;
        }
        return high < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }

    /**
     * Epoch nanoseconds floored to epoch microseconds, the key space of every timestamp type.
     */
    public static long ofEpochNanosFloorMicros(long epochNanos)
    {
        return Math.floorDiv(epochNanos, NANOS_PER_MICRO);
    }

    /**
     * The double whose {@link #ofDouble} key this is (0.0 for the key both zeros share); used to
     * report value ranges in table statistics.
     */
    public static double toDouble(long key)
    {
        // the flip in ofDouble is its own inverse, and it keeps the sign bit
        return Double.longBitsToDouble(key < 0 ? key ^ Long.MAX_VALUE : key);
    }
}
