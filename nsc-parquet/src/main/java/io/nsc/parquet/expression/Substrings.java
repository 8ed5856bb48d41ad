package io.nsc.parquet.expression;

import io.airlift.slice.Slice;

import static io.airlift.slice.SliceUtf8.countCodePoints;
import static io.airlift.slice.SliceUtf8.offsetOfCodePoint;
import static io.airlift.slice.Slices.EMPTY_SLICE;

/**
 * Trino's {@code substring} on varchar: positions count code points from 1, a negative start
 * counts from the end, and a start or length outside the value gives what lies inside it (an
 * empty string when nothing does), never an error. Code points are counted by their lead bytes,
 * as Trino counts them, so a value that is not valid UTF-8 is cut where Trino cuts it.
 */
public final class Substrings
{
    private Substrings() {}

    /** {@code substring(value, start)}: the rest of the value from {@code start}. */
    public static Slice substring(Slice value, long start)
    {
        return substring(value, start, Long.MAX_VALUE);
    }

    /** {@code substring(value, start, length)}. */
    public static Slice substring(Slice value, long start, long length)
    {
        if (start == 0 || length <= 0 || value.length() == 0) {
            return EMPTY_SLICE;
        }
        int codePoints = countCodePoints(value);
        // the first code point taken, from 0
        long first = start > 0 ? start - 1 : codePoints + start;
        if (first < 0 || first >= codePoints) {
            return EMPTY_SLICE;
        }
        int from = offsetOfCodePoint(value, (int) first);
        if (length >= codePoints - first) {
            return value.slice(from, value.length() - from);
        }
        int to = offsetOfCodePoint(value, from, (int) length);
        return value.slice(from, to - from);
    }
}
