package io.nsc.trino.read;

import com.google.common.base.Ticker;
import io.nsc.trino.read.AdaptiveScanModes.Choice;
import io.nsc.trino.read.AdaptiveScanModes.ScanShape;
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
    private static final ScanShape LINEITEM = new ScanShape("lineitem", List.of("l_orderkey"));

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
            started.add(modes.start("q1", LINEITEM, FILTER, true).mode());
        }
        // both explored, nothing measured yet: the coordinator's choice holds
        assertThat(started).containsExactly(FILTER, RAW, FILTER, RAW, FILTER, FILTER, FILTER);
    }

    @Test
    void testNoScanIsTriedOnSharedCpusWhereTheCoordinatorSawNoSaving()
    {
        for (int split = 0; split < 8; split++) {
            assertThat(modes.start("q1", LINEITEM, RAW, true).mode()).isEqualTo(RAW);
        }
        // storage nodes with CPUs of their own: offloading may pay even without saving bytes
        assertThat(List.of(modes.start("q2", LINEITEM, RAW, false).mode(), modes.start("q2", LINEITEM, RAW, false).mode()))
                .containsExactly(RAW, FILTER);
    }

    @Test
    void testTheCheaperModeWinsOnceBothAreMeasured()
    {
        // raw reads take 1 ms per 1,000 rows, storage scans 5 ms: pushdown does not pay here
        explore("q1", FILTER, 5_000_000, 1_000_000);
        List<Choice> next = new ArrayList<>();
        for (int split = 0; split < REEXPLORE_EVERY; split++) {
            next.add(modes.start("q1", LINEITEM, FILTER, true));
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
        explore("q1", RAW, 1_000_000, 8_000_000);
        assertThat(modes.start("q1", LINEITEM, RAW, false).mode()).isEqualTo(FILTER);
        assertThat(modes.start("q1", LINEITEM, FILTER, false).mode()).isEqualTo(FILTER);
    }

    @Test
    void testTheSameScanAskedAgainStartsFromWhatTheLastQueryMeasured()
    {
        explore("q1", FILTER, 5_000_000, 1_000_000);
        assertThat(modes.start("q2", LINEITEM, FILTER, true).mode()).isEqualTo(RAW);
        // another scan explores on its own
        ScanShape orders = new ScanShape("orders", List.of("o_orderkey"));
        assertThat(List.of(modes.start("q2", orders, FILTER, true).mode(), modes.start("q2", orders, FILTER, true).mode()))
                .containsExactly(FILTER, RAW);
    }

    @Test
    void testAQuerysOwnMeasuresOutweighTheHistory()
    {
        // earlier queries found raw reads cheaper ...
        explore("q1", FILTER, 5_000_000, 1_000_000);
        // ... in this one storage scans are (the link got slower): the re-measured scans turn it
        List<ScanMode> chosen = new ArrayList<>();
        for (int split = 0; split < 3 * REEXPLORE_EVERY; split++) {
            Choice choice = modes.start("q2", LINEITEM, FILTER, true);
            chosen.add(choice.mode());
            finish(choice, choice.mode() == FILTER ? 200_000 : 1_000_000);
        }
        assertThat(chosen.getFirst()).isEqualTo(RAW);
        assertThat(chosen.subList(2 * REEXPLORE_EVERY + 1, 3 * REEXPLORE_EVERY - 1)).containsOnly(FILTER);
    }

    @Test
    void testAScanOnSharedCpusCountsTheCpuItTookFromTrino()
    {
        // a storage scan ends sooner (the node's thread ran beside Trino's) but took 3 ms of CPU on shared cores
        for (int split = 0; split < 2 * EXPLORED_SPLITS; split++) {
            Choice choice = modes.start("q1", LINEITEM, FILTER, true);
            long start = now.get();
            now.addAndGet(choice.mode() == FILTER ? 500_000 : 2_000_000);
            choice.finished(1000, choice.mode() == FILTER ? 3_000_000 : 0);
            now.set(start);
        }
        assertThat(modes.start("q1", LINEITEM, FILTER, true).mode()).isEqualTo(RAW);
    }

    @Test
    void testAnAbandonedSplitMeasuresNothingAndASplitCountsOnce()
    {
        Choice abandoned = modes.start("q1", LINEITEM, FILTER, true);
        Choice other = modes.start("q1", LINEITEM, FILTER, true);
        now.addAndGet(1_000_000_000);
        other.finished(1000, 0);
        other.finished(1000, 0);
        // one raw split measured, the filter split never finished: still exploring
        Choice third = modes.start("q1", LINEITEM, FILTER, true);
        Choice fourth = modes.start("q1", LINEITEM, FILTER, true);
        assertThat(List.of(abandoned.mode(), third.mode(), fourth.mode())).containsExactly(FILTER, FILTER, RAW);
        assertThatThrownBy(() -> modes.start("q1", LINEITEM, null, true)).isInstanceOf(NullPointerException.class);
    }

    /** Explores both modes of {@link #LINEITEM} in a query, each split 1,000 rows taking the given time. */
    private void explore(String queryId, ScanMode planned, long filterNanos, long rawNanos)
    {
        for (int split = 0; split < 2 * EXPLORED_SPLITS; split++) {
            Choice choice = modes.start(queryId, LINEITEM, planned, false);
            finish(choice, choice.mode() == FILTER ? filterNanos : rawNanos);
        }
    }

    private void finish(Choice choice, long nanos)
    {
        long start = now.get();
        now.addAndGet(nanos);
        choice.finished(1000, 0);
        now.set(start);
    }
}
