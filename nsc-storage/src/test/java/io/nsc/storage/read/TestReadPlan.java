package io.nsc.storage.read;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.proto.ByteRange;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

final class TestReadPlan
{
    private static final long FILE_SIZE = 10_000;

    @Test
    void testCoalescing()
    {
        // sorted: [0,100) [100,200) adjacent, [150,250) overlapping, [255,300) gap 5 < 10, [400,500) gap 100
        ReadPlan plan = plan(10, 1000, 400, 100, 0, 100, 100, 100, 150, 100, 255, 45);
        assertThat(plan.segments()).containsExactly(new FileRange(0, 300), new FileRange(400, 100));

        // every range is read from inside its segment, which fits the buffer: one read per segment
        assertThat(plan.readFor(0, 400)).isEqualTo(new FileRange(400, 100));
        assertThat(plan.readFor(1, 0)).isEqualTo(new FileRange(0, 300));
        assertThat(plan.readFor(4, 260)).isEqualTo(new FileRange(0, 300));
    }

    @Test
    void testGapAtLimitSplits()
    {
        assertThat(plan(10, 1000, 0, 100, 110, 10).segments()).containsExactly(new FileRange(0, 100), new FileRange(110, 10));
        assertThat(plan(11, 1000, 0, 100, 110, 10).segments()).containsExactly(new FileRange(0, 120));
        // a zero gap setting still merges touching ranges
        assertThat(plan(0, 1000, 0, 100, 100, 10).segments()).containsExactly(new FileRange(0, 110));
    }

    @Test
    void testLargeSegmentIsReadPiecewiseInRequestOrder()
    {
        // three ranges in file order, close together, 300 bytes in all, buffer of 100
        ReadPlan plan = plan(50, 100, 0, 90, 100, 90, 200, 100);
        assertThat(plan.segments()).containsExactly(new FileRange(0, 300));
        assertThat(plan.readFor(0, 0)).isEqualTo(new FileRange(0, 100));
        assertThat(plan.readFor(0, 50)).isEqualTo(new FileRange(50, 100));
        assertThat(plan.readFor(1, 150)).isEqualTo(new FileRange(150, 100));
        assertThat(plan.readFor(2, 250)).isEqualTo(new FileRange(250, 50));

        // reversed request order: no read-ahead past the range being sent, since what follows comes earlier in the file
        ReadPlan reversed = plan(50, 100, 200, 100, 100, 90, 0, 90);
        assertThat(reversed.readFor(0, 200)).isEqualTo(new FileRange(200, 100));
        assertThat(reversed.readFor(1, 100)).isEqualTo(new FileRange(100, 90));
        assertThat(reversed.readFor(2, 0)).isEqualTo(new FileRange(0, 90));
    }

    @Test
    void testEmptyRequest()
    {
        ReadPlan plan = plan(10, 100);
        assertThat(plan.rangeCount()).isZero();
        assertThat(plan.segments()).isEmpty();
    }

    @Test
    void testOutOfRange()
    {
        assertOutOfRange(-1, 10, "Range 0 (offset -1, length 10) is negative");
        assertOutOfRange(0, -10, "Range 0 (offset 0, length -10) is negative");
        assertOutOfRange(FILE_SIZE - 9, 10, "Range 0 (offset 9991, length 10) ends past the end of the file (10000 bytes)");
        assertOutOfRange(FILE_SIZE + 1, 0, "Range 0 (offset 10001, length 0) ends past the end of the file (10000 bytes)");
        assertOutOfRange(Long.MAX_VALUE, Long.MAX_VALUE, "Range 0 (offset 9223372036854775807, length 9223372036854775807) ends past the end of the file (10000 bytes)");

        assertThat(plan(10, 100, FILE_SIZE - 10, 10, FILE_SIZE, 0).rangeCount()).isEqualTo(2);
    }

    private static void assertOutOfRange(long offset, long length, String message)
    {
        assertThatThrownBy(() -> plan(10, 100, 0, 1, offset, length))
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.OUT_OF_RANGE))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).isEqualTo(message.replace("Range 0", "Range 1")));
    }

    private static ReadPlan plan(long gap, long maxRead, long... offsetsAndLengths)
    {
        List<ByteRange> ranges = Arrays.stream(toPairs(offsetsAndLengths)).toList();
        return ReadPlan.create(ranges, FILE_SIZE, gap, maxRead);
    }

    private static ByteRange[] toPairs(long[] offsetsAndLengths)
    {
        ByteRange[] ranges = new ByteRange[offsetsAndLengths.length / 2];
        for (int i = 0; i < ranges.length; i++) {
            ranges[i] = ByteRange.newBuilder().setOffset(offsetsAndLengths[2 * i]).setLength(offsetsAndLengths[2 * i + 1]).build();
        }
        return ranges;
    }
}
