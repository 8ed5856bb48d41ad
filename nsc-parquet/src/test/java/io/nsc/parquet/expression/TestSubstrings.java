package io.nsc.parquet.expression;

import org.junit.jupiter.api.Test;

import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.parquet.expression.Substrings.substring;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trino's substring edge cases (TestNscExpressionPushdown checks the same kinds against Trino
 * itself): start 0, starts before and past the value, negative starts, lengths of zero, below
 * zero and past the end, the extreme longs, and characters of 2, 3 and 4 UTF-8 bytes.
 */
final class TestSubstrings
{
    @Test
    void testPositionsCountFromOne()
    {
        assertSubstring("abc", 1, 2, "ab");
        assertSubstring("abc", 3, 1, "c");
        assertSubstring("abc", 2, 100, "bc");
        assertSubstring("abc", 0, 2, "");
        assertSubstring("abc", 4, 1, "");
        assertSubstring("abc", 1, 0, "");
        assertSubstring("abc", 1, -1, "");
        assertSubstring("", 1, 1, "");
        assertThat(substring(utf8Slice("abc"), 2).toStringUtf8()).isEqualTo("bc");
        assertThat(substring(utf8Slice("abc"), 4).toStringUtf8()).isEmpty();
        assertThat(substring(utf8Slice("abc"), 0).toStringUtf8()).isEmpty();
    }

    @Test
    void testNegativeStartsCountFromTheEnd()
    {
        assertSubstring("abc", -1, 5, "c");
        assertSubstring("abc", -3, 2, "ab");
        assertSubstring("abc", -4, 2, "");
        assertThat(substring(utf8Slice("abc"), -2).toStringUtf8()).isEqualTo("bc");
        assertThat(substring(utf8Slice("abc"), -3).toStringUtf8()).isEqualTo("abc");
        assertThat(substring(utf8Slice("abc"), -4).toStringUtf8()).isEmpty();
    }

    @Test
    void testExtremeArguments()
    {
        assertSubstring("abc", Long.MAX_VALUE, 1, "");
        assertSubstring("abc", Long.MIN_VALUE, 1, "");
        assertSubstring("abc", 2, Long.MAX_VALUE, "bc");
        assertSubstring("abc", -2, Long.MAX_VALUE, "bc");
        assertSubstring("abc", 1, Long.MIN_VALUE, "");
    }

    @Test
    void testCodePointsNotBytes()
    {
        String value = "\u00e3b\u00e7\u20ac\ud83d\ude00d";
        assertSubstring(value, 2, 3, "b\u00e7\u20ac");
        assertSubstring(value, 5, 1, "\ud83d\ude00");
        assertSubstring(value, -2, 1, "\ud83d\ude00");
        assertSubstring(value, 1, 1, "\u00e3");
        assertSubstring(value, 6, 1, "d");
        assertSubstring(value, 7, 1, "");
    }

    private static void assertSubstring(String value, long start, long length, String expected)
    {
        assertThat(substring(utf8Slice(value), start, length).toStringUtf8())
                .as("substring('%s', %s, %s)", value, start, length)
                .isEqualTo(expected);
    }
}
