package io.nsc.parquet.filter;

import io.airlift.slice.Slice;
import io.airlift.slice.Slices;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A SQL LIKE pattern, matched without backtracking. The pattern is cut at each {@code %} into
 * segments of fixed length (literal code points and {@code _}); the first segment must match at
 * the start, the last at the end, and each one between at its leftmost place after the one
 * before: taking the leftmost place never loses a match, because it leaves the most room to the
 * segments that follow. Matching takes time proportional to the value's length times the
 * pattern's, whatever the pattern, where a regular expression engine could take exponential
 * time on patterns like {@code %a%a%a%b}.
 */
public final class LikeMatcher
{
    // a pattern position that matches any one code point
    private static final int ANY = -1;
    private static final int REPLACEMENT_CHARACTER = 0xFFFD;

    // the code points of each segment, ANY for '_'
    private final int[][] segments;
    // the same segments as UTF-8, when the pattern can be matched on a value's bytes (see matches(Slice))
    private final Optional<Slice[]> utf8Segments;
    private final boolean anchoredAtBothEnds;

    private LikeMatcher(List<int[]> segments, boolean hasPercent)
    {
        this.segments = segments.toArray(int[][]::new);
        this.anchoredAtBothEnds = !hasPercent;
        this.utf8Segments = matchesOnBytes(this.segments)
                ? Optional.of(segments.stream().map(LikeMatcher::utf8).toArray(Slice[]::new))
                : Optional.empty();
    }

    /**
     * A pattern of literal code points between {@code %}s matches a UTF-8 value exactly where its
     * UTF-8 bytes occur in the value's bytes: an encoded code point starts with a byte no other
     * code point's encoding holds inside it, so a match of the bytes is a match of whole code
     * points, also after an invalid sequence (which never takes a following lead byte). Only a
     * {@code _}, which needs code point boundaries, and U+FFFD, which stands for any invalid
     * sequence of the value, need the value's code points.
     */
    private static boolean matchesOnBytes(int[][] segments)
    {
        for (int[] segment : segments) {
            for (int codePoint : segment) {
                // a lone surrogate has no UTF-8 encoding of its own either
                if (codePoint == ANY || codePoint == REPLACEMENT_CHARACTER || (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static Slice utf8(int[] segment)
    {
        return Slices.utf8Slice(new String(segment, 0, segment.length));
    }

    /**
     * @throws IllegalArgumentException when the escape character is followed by anything but
     * {@code %}, {@code _} or itself, or ends the pattern
     */
    public static LikeMatcher compile(String pattern, Optional<Character> escape)
    {
        requireNonNull(pattern, "pattern is null");
        requireNonNull(escape, "escape is null");
        List<int[]> segments = new ArrayList<>();
        int[] segment = new int[pattern.length()];
        int length = 0;
        boolean hasPercent = false;
        boolean escaping = false;
        for (int offset = 0; offset < pattern.length(); ) {
            int codePoint = pattern.codePointAt(offset);
            offset += Character.charCount(codePoint);
            if (escaping) {
                checkArgument(codePoint == '%' || codePoint == '_' || (escape.isPresent() && codePoint == escape.get()),
                        "Escape character must be followed by '%%', '_' or the escape character itself");
                segment[length++] = codePoint;
                escaping = false;
            }
            else if (escape.isPresent() && codePoint == escape.get()) {
                escaping = true;
            }
            else if (codePoint == '%') {
                segments.add(Arrays.copyOf(segment, length));
                length = 0;
                hasPercent = true;
            }
            else {
                segment[length++] = codePoint == '_' ? ANY : codePoint;
            }
        }
        checkArgument(!escaping, "LIKE pattern must not end with escape character");
        segments.add(Arrays.copyOf(segment, length));
        return new LikeMatcher(segments, hasPercent);
    }

    /** Whether the UTF-8 value, read as code points (an invalid sequence as U+FFFD), matches the whole pattern. */
    public boolean matches(Slice value)
    {
        if (utf8Segments.isEmpty()) {
            return matches(value.toStringUtf8().codePoints().toArray());
        }
        Slice[] bytes = utf8Segments.get();
        if (anchoredAtBothEnds) {
            return value.equals(bytes[0]);
        }
        Slice first = bytes[0];
        Slice last = bytes[bytes.length - 1];
        int end = value.length() - last.length();
        if (end < first.length() || !startsWith(value, 0, first) || !startsWith(value, end, last)) {
            return false;
        }
        int position = first.length();
        for (int segment = 1; segment < bytes.length - 1; segment++) {
            if (bytes[segment].length() == 0) {
                // '%%': nothing to find (and Slice.indexOf finds no empty slice)
                continue;
            }
            int found = value.indexOf(bytes[segment], position);
            if (found < 0 || found + bytes[segment].length() > end) {
                return false;
            }
            position = found + bytes[segment].length();
        }
        return true;
    }

    private static boolean startsWith(Slice value, int offset, Slice segment)
    {
        return value.equals(offset, segment.length(), segment, 0, segment.length());
    }

    /** Whether the value, as code points, matches the whole pattern. */
    public boolean matches(int[] value)
    {
        if (anchoredAtBothEnds) {
            return value.length == segments[0].length && matchesAt(segments[0], value, 0);
        }
        int[] first = segments[0];
        int[] last = segments[segments.length - 1];
        // the last segment owns the end of the value; nothing else may use it
        int end = value.length - last.length;
        if (end < first.length || !matchesAt(first, value, 0) || !matchesAt(last, value, end)) {
            return false;
        }
        int position = first.length;
        for (int segment = 1; segment < segments.length - 1; segment++) {
            int found = leftmost(segments[segment], value, position, end);
            if (found < 0) {
                return false;
            }
            position = found + segments[segment].length;
        }
        return true;
    }

    /** The first place in {@code value[from..to)} where the segment matches in full, or -1. */
    private static int leftmost(int[] segment, int[] value, int from, int to)
    {
        for (int start = from; start + segment.length <= to; start++) {
            if (matchesAt(segment, value, start)) {
                return start;
            }
        }
        return -1;
    }

    private static boolean matchesAt(int[] segment, int[] value, int start)
    {
        for (int i = 0; i < segment.length; i++) {
            if (segment[i] != ANY && segment[i] != value[start + i]) {
                return false;
            }
        }
        return true;
    }
}
