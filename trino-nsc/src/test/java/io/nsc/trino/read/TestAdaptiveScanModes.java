package io.nsc.trino.read;

import com.google.common.base.Ticker;
import io.nsc.trino.read.AdaptiveScanModes.Choice;
import io.nsc.trino.read.AdaptiveScanModes.ScanKey;
import io.nsc.trino.split.ScanMode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static io.nsc.trino.read.AdaptiveScanModes.EXPLORED_SPLITS;
import static io.nsc.trino.read.AdaptiveScanModes.REEXPLORE_EVERY;
import static io.nsc.trino.split.ScanMode.FILTER;
import static io.nsc.trino.split.ScanMode.RAW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestAdaptiveScanModes
{
    private static final ScanKey SCAN = new ScanKey("query_1", "lineitem", List.of("l_orderkey"));

    private final AtomicLong now = new AtomicLong();
    private final AdaptiveScanModes modes = new AdaptiveScanModes(new Ticker()
    {
        @Override
        public long read()
        {
            return now.get();
        }
    });

    @Test
    void testFirstSplitsAlternateTheCoordinatorsChoiceFirst()
    {
        List<ScanMode> started = new ArrayList<>();
        for (int split = 0; split < 2 * EXPLORED_SPLITS + 3; split++) {
            started.add(modes.start(SCAN, FILTER).mode());
        }
        // both explored, nothing measured yet: the coordinator's choice holds
        assertThat(started).containsExactly(FILTER, RAW, FILTER, RAW, FILTER, FILTER, FILTER);
    }

    @Test
    void testTheCheaperModeWinsOnceBothAreMeasured()
    {
        // raw reads take 1 ms per 1,000 rows, storage scans 5 ms: pushdown does not pay here
        explore(FILTER, 5_000_000, 1_000_000);
        List<Choice> next = new ArrayList<>();
        for (int split = 0; split < REEXPLORE_EVERY; split++) {
            next.add(modes.start(SCAN, FILTER));
        }
        assertThat(next.subList(0, REEXPLORE_EVERY - 1)).allSatisfy(choice -> {
            assertThat(choice.mode()).isEqualTo(RAW);
            assertThat(choice.changed()).isTrue();
        });
        // every so often the other mode is measured again, so a change is seen within the query
        assertThat(next.getLast().mode()).isEqualTo(FILTER);
        assertThat(next.getLast().changed()).isFalse();
    }

    @Test
    void testTheReverse()
    {
        // the coordinator chose raw reads, but storage scans come back faster (a slow link)
        explore(RAW, 1_000_000, 8_000_000);
        assertThat(modes.start(SCAN, RAW).mode()).isEqualTo(FILTER);
        assertThat(modes.start(SCAN, FILTER).mode()).isEqualTo(FILTER);
    }

    @Test
    void testEachScanOfEachQueryLearnsOnItsOwn()
    {
        explore(FILTER, 5_000_000, 1_000_000);
        assertThat(modes.start(SCAN, FILTER).mode()).isEqualTo(RAW);
        assertThat(modes.start(new ScanKey("query_2", "lineitem", List.of("l_orderkey")), FILTER).mode()).isEqualTo(FILTER);
        assertThat(modes.start(new ScanKey("query_1", "orders", List.of("o_orderkey")), FILTER).mode()).isEqualTo(FILTER);
    }

    @Test
    void testAnAbandonedSplitMeasuresNothingAndASplitCountsOnce()
    {
        Choice abandoned = modes.start(SCAN, FILTER);
        Choice other = modes.start(SCAN, FILTER);
        now.addAndGet(1_000_000_000);
        other.finished(1000);
        other.finished(1000);
        // one raw split measured, the filter split never finished: still exploring
        Choice third = modes.start(SCAN, FILTER);
        Choice fourth = modes.start(SCAN, FILTER);
        assertThat(List.of(third.mode(), fourth.mode())).containsExactly(FILTER, RAW);
        assertThat(abandoned.mode()).isEqualTo(FILTER);
        assertThatThrownBy(() -> modes.start(SCAN, null)).isInstanceOf(NullPointerException.class);
    }

    /** Explores both modes of {@link #SCAN}, each split 1,000 rows taking the given time. */
    private void explore(ScanMode planned, long filterNanos, long rawNanos)
    {
        for (int split = 0; split < 2 * EXPLORED_SPLITS; split++) {
            Choice choice = modes.start(SCAN, planned);
            long start = now.get();
            now.addAndGet(choice.mode() == FILTER ? filterNanos : rawNanos);
            choice.finished(1000);
            now.set(start);
        }
    }
}
