package io.nsc.storage.read;

import com.google.common.collect.ImmutableList;
import io.grpc.Status;
import io.nsc.protocol.proto.ByteRange;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.lang.Math.max;
import static java.lang.Math.min;

/**
 * Decides which disk reads serve a request's ranges. Ranges are sorted by offset and those
 * closer than the coalesce gap (or touching, or overlapping) are merged into segments: a small
 * segment is one disk read. Responses go out in request order and a node holds at most one read
 * buffer per call, so a segment larger than that buffer is read piecewise, following the request
 * order: from the range being sent, forward through the ranges that come next in the request
 * and continue the same stretch of the file (the usual case: column chunks asked for in file
 * order, so the segment is still read front to back, once).
 */
public final class ReadPlan
{
    private final List<FileRange> ranges;
    private final long maxReadBytes;
    private final long[] segmentStart;
    private final long[] segmentEnd;
    // per range in request order: its segment, and how far a read starting inside it may go
    private final int[] segmentOfRange;
    private final long[] readAheadEnd;

    private ReadPlan(List<FileRange> ranges, long coalesceGap, long maxReadBytes)
    {
        this.ranges = ImmutableList.copyOf(ranges);
        this.maxReadBytes = maxReadBytes;
        int count = ranges.size();
        int[] byOffset = IntStream.range(0, count).boxed()
                .sorted(Comparator.comparingLong(index -> ranges.get(index).offset()))
                .mapToInt(Integer::intValue)
                .toArray();

        long[] starts = new long[count];
        long[] ends = new long[count];
        segmentOfRange = new int[count];
        int segments = 0;
        for (int index : byOffset) {
            FileRange range = ranges.get(index);
            if (segments > 0 && closeEnough(ends[segments - 1], range.offset(), coalesceGap)) {
                ends[segments - 1] = max(ends[segments - 1], range.end());
            }
            else {
                starts[segments] = range.offset();
                ends[segments] = range.end();
                segments++;
            }
            segmentOfRange[index] = segments - 1;
        }
        segmentStart = Arrays.copyOf(starts, segments);
        segmentEnd = Arrays.copyOf(ends, segments);

        readAheadEnd = new long[count];
        for (int index = count - 1; index >= 0; index--) {
            FileRange range = ranges.get(index);
            readAheadEnd[index] = range.end();
            if (index + 1 < count) {
                FileRange next = ranges.get(index + 1);
                if (next.offset() >= range.offset() && closeEnough(range.end(), next.offset(), coalesceGap)) {
                    readAheadEnd[index] = max(range.end(), readAheadEnd[index + 1]);
                }
            }
        }
    }

    /**
     * Validates the requested ranges against the file size.
     *
     * @param maxReadBytes the largest single disk read (the per-call buffer)
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE for a negative range or one that ends
     * past the end of the file
     */
    public static ReadPlan create(List<ByteRange> requested, long fileSize, long coalesceGap, long maxReadBytes)
    {
        checkArgument(maxReadBytes > 0, "maxReadBytes must be positive");
        ImmutableList.Builder<FileRange> ranges = ImmutableList.builderWithExpectedSize(requested.size());
        for (int index = 0; index < requested.size(); index++) {
            ByteRange range = requested.get(index);
            if (range.getOffset() < 0 || range.getLength() < 0) {
                throw outOfRange("Range %s (offset %s, length %s) is negative".formatted(index, range.getOffset(), range.getLength()));
            }
            if (range.getOffset() > fileSize - range.getLength()) {
                throw outOfRange("Range %s (offset %s, length %s) ends past the end of the file (%s bytes)".formatted(index, range.getOffset(), range.getLength(), fileSize));
            }
            ranges.add(new FileRange(range.getOffset(), range.getLength()));
        }
        return new ReadPlan(ranges.build(), coalesceGap, maxReadBytes);
    }

    public int rangeCount()
    {
        return ranges.size();
    }

    public FileRange range(int index)
    {
        return ranges.get(index);
    }

    /** The coalesced segments, by offset. */
    public List<FileRange> segments()
    {
        return IntStream.range(0, segmentStart.length)
                .mapToObj(segment -> new FileRange(segmentStart[segment], segmentEnd[segment] - segmentStart[segment]))
                .collect(toImmutableList());
    }

    /**
     * The disk read to issue when byte {@code position} of range {@code rangeIndex} is needed and
     * not buffered: the whole segment when it fits the buffer, else a buffer's worth from
     * {@code position} onward, no further than the ranges that follow in request order need.
     */
    public FileRange readFor(int rangeIndex, long position)
    {
        FileRange range = ranges.get(rangeIndex);
        checkArgument(position >= range.offset() && position < range.end(), "position %s outside range %s", position, rangeIndex);
        int segment = segmentOfRange[rangeIndex];
        if (segmentEnd[segment] - segmentStart[segment] <= maxReadBytes) {
            return new FileRange(segmentStart[segment], segmentEnd[segment] - segmentStart[segment]);
        }
        long end = min(readAheadEnd[rangeIndex], position + maxReadBytes);
        return new FileRange(position, end - position);
    }

    // adjacent and overlapping ranges always merge; separate ones when the gap is below the limit
    private static boolean closeEnough(long previousEnd, long nextOffset, long coalesceGap)
    {
        long gap = nextOffset - previousEnd;
        return gap <= 0 || gap < coalesceGap;
    }

    private static RuntimeException outOfRange(String message)
    {
        return Status.OUT_OF_RANGE.withDescription(message).asRuntimeException();
    }
}
