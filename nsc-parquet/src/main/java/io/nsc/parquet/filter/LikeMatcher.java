package io.nsc.parquet.filter;

import io.airlift.slice.Slice;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.UTF_8;
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
    // the same segments as UTF-8, when the pattern can be matched on a value's bytes (see matches(byte[], int, int))
    private final Optional<byte[][]> utf8Segments;
    private final boolean anchoredAtBothEnds;

    private LikeMatcher(List<int[]> segments, boolean hasPercent)
    {
        this.segments = segments.toArray(int[][]::new);
        this.anchoredAtBothEnds = !hasPercent;
        this.utf8Segments = matchesOnBytes(this.segments)
                ? Optional.of(segments.stream().map(LikeMatcher::utf8).toArray(byte[][]::new))
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

    private static byte[] utf8(int[] segment)
    {
        return new String(segment, 0, segment.length).getBytes(UTF_8);
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
        return matches(value.byteArray(), value.byteArrayOffset(), value.length());
    }

    /**
     * Whether the UTF-8 value in {@code bytes[offset..offset + length)}, read as code points (an
     * invalid sequence as U+FFFD), matches the whole pattern. Taking the bytes where they lie (a
     * block's raw slice) spares a scan a slice object per row.
     */
    public boolean matches(byte[] bytes, int offset, int length)
    {
        if (utf8Segments.isEmpty()) {
            return matches(new String(bytes, offset, length, UTF_8).codePoints().toArray());
        }
        byte[][] segments = utf8Segments.get();
        if (anchoredAtBothEnds) {
            return length == segments[0].length && startsWith(bytes, offset, segments[0]);
        }
        byte[] first = segments[0];
        byte[] last = segments[segments.length - 1];
        // the last segment owns the end of the value; nothing else may use it
        int end = offset + length - last.length;
        if (end < offset + first.length || !startsWith(bytes, offset, first) || !startsWith(bytes, end, last)) {
            return false;
        }
        int position = offset + first.length;
        for (int segment = 1; segment < segments.length - 1; segment++) {
            int found = indexOf(bytes, position, end, segments[segment]);
            if (found < 0) {
                return false;
            }
            position = found + segments[segment].length;
        }
        return true;
    }

    // segments are a few bytes: a plain loop beats Arrays.equals' range checks and vector set-up
    private static boolean startsWith(byte[] bytes, int offset, byte[] segment)
    {
        for (int i = 0; i < segment.length; i++) {
            if (bytes[offset + i] != segment[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first place in {@code bytes[from..to)} that holds the whole segment, or -1; an empty
     * segment is found at once. Byte by byte: values are short (a search eight bytes at a time
     * measured slower on TPC-H comments, whose letters restart it often).
     */
    private static int indexOf(byte[] bytes, int from, int to, byte[] segment)
    {
        if (segment.length == 0) {
            return from;
        }
        byte lead = segment[0];
        int last = to - segment.length;
        for (int start = from; start <= last; start++) {
            if (bytes[start] == lead && startsWith(bytes, start, segment)) {
                return start;
            }
        }
        return -1;
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
