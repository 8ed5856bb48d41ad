package io.nsc.parquet.memory;

import io.airlift.slice.Slice;

/**
 * Estimates of what boxed native values and the collections around them retain on the heap,
 * for the reservations of group maps and top-N heaps. Compressed references and 16-byte object
 * headers; close enough for a budget, which needs proportion, not precision.
 */
public final class RetainedSizes
{
    /** A hash map entry with its table slot, or a list or heap slot with its array share. */
    public static final long MAP_ENTRY = 64;
    public static final long OBJECT_HEADER = 16;

    private RetainedSizes() {}

    /** A native value as Trino's {@code readNativeValue} returns it: Long, Double, Boolean, Slice, Int128, LongTimestamp... */
    public static long value(Object value)
    {
        return switch (value) {
            case null -> 0;
            case Slice slice -> 48 + slice.length();
            case Long _, Double _, Boolean _ -> 16;
            default -> 32;
        };
    }

    /** An array of references and the values it holds. */
    public static long values(Object[] values)
    {
        long size = OBJECT_HEADER + 4L * values.length;
        for (Object value : values) {
            size += value(value);
        }
        return size;
    }
}
