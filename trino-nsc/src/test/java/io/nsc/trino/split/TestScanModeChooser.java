package io.nsc.trino.split;

import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.protocol.stats.StatsKeys;
import io.nsc.trino.client.StorageNodeLoad.Load;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

final class TestScanModeChooser
{
    private static final Load IDLE = new Load(0, 0, 16, false);
    private static final Load SATURATED = new Load(16, 0, 16, false);
    // one processor in four busy, but scans already waiting for the node's memory
    private static final Load MEMORY_FULL = new Load(4, 2, 16, false);

    @Test
    void testChoosesTheModeThatSendsFewerBytesAndNeverMoreWhenTheNodeIsSaturated()
    {
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 100), IDLE)).isEqualTo(ScanMode.FILTER);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 1000), IDLE)).isEqualTo(ScanMode.FILTER);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 1001), IDLE)).isEqualTo(ScanMode.RAW);
        // saturated: only a clear saving is worth the wait
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 400), SATURATED)).isEqualTo(ScanMode.FILTER);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 900), SATURATED)).isEqualTo(ScanMode.RAW);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 900), Load.UNKNOWN)).isEqualTo(ScanMode.RAW);
        // scans waiting for the node's memory pool: as saturated, whatever its processors do
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 900), MEMORY_FULL)).isEqualTo(ScanMode.RAW);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 400), MEMORY_FULL)).isEqualTo(ScanMode.FILTER);
        assertThat(ScanModeChooser.choose(new ScanModeChooser.Estimate(1000, 900), new Load(4, 0, 16, false))).isEqualTo(ScanMode.FILTER);
    }

    @Test
    void testEstimatesFromStats()
    {
        // one row group of 1000 rows: column 0 holds 0..999 (exact keys), column 1 is 9000 compressed bytes
        CompactFileStats stats = CompactFileStats.builder(List.of(KeyKind.EXACT, KeyKind.LOSSY))
                .addRowGroup(1000, 4)
                .addColumnChunk(1000, OptionalLong.of(0), OptionalLong.of(999), 0)
                .addColumnChunk(9000, OptionalLong.empty(), OptionalLong.empty(), 0)
                .build();
        List<ColumnPredicate> tenPercent = List.of(new ColumnPredicate(0, List.of(KeyRange.lessThan(100)), false));
        assertThat(ScanModeChooser.selectivity(stats, 0, tenPercent)).isCloseTo(0.1, within(0.01));

        ScanModeChooser.Estimate estimate = ScanModeChooser.estimate(stats, List.of(0), List.of(0, 1), List.of(1), tenPercent, true, OptionalLong.empty(), 0);
        assertThat(estimate.rawBytes()).isEqualTo(10_000);
        assertThat(estimate.scanBytes()).isBetween(1_300L, 1_700L);
        // no predicate: a scan would send more than the compressed chunks
        ScanModeChooser.Estimate everything = ScanModeChooser.estimate(stats, List.of(0), List.of(1), List.of(1), List.of(), true, OptionalLong.empty(), 0);
        assertThat(ScanModeChooser.choose(everything, IDLE)).isEqualTo(ScanMode.RAW);
        // a limit of 10 rows bounds what a scan sends
        ScanModeChooser.Estimate limited = ScanModeChooser.estimate(stats, List.of(0), List.of(1), List.of(1), List.of(), true, OptionalLong.of(10), 0);
        assertThat(ScanModeChooser.choose(limited, IDLE)).isEqualTo(ScanMode.FILTER);
        // a request carrying 9,000 bytes of a join's keys costs more than the 8,500 bytes the filter saves
        assertThat(ScanModeChooser.choose(estimate, IDLE)).isEqualTo(ScanMode.FILTER);
        ScanModeChooser.Estimate heavyRequest = ScanModeChooser.estimate(stats, List.of(0), List.of(0, 1), List.of(1), tenPercent, true, OptionalLong.empty(), 9_000);
        assertThat(heavyRequest.scanBytes()).isEqualTo(estimate.scanBytes() + 9_000);
        assertThat(ScanModeChooser.choose(heavyRequest, IDLE)).isEqualTo(ScanMode.RAW);
    }

    @Test
    void testSharesOfFloatingPointColumnsAreMeasuredBetweenValuesNotKeys()
    {
        // one row group of 1000 rows: a double column from -10.0 to 10.0; its keys are order-preserving bit patterns, far from linear
        CompactFileStats stats = CompactFileStats.builder(List.of(KeyKind.FLOATING))
                .addRowGroup(1000, 4)
                .addColumnChunk(1000, OptionalLong.of(StatsKeys.ofDouble(-10.0)), OptionalLong.of(StatsKeys.ofDouble(10.0)), 0)
                .build();
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.lessThan(StatsKeys.ofDouble(-5.0))), false))))
                .isCloseTo(0.25, within(0.01));
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.range(StatsKeys.ofDouble(0.0), true, StatsKeys.ofDouble(2.0), true)), false))))
                .isCloseTo(0.1, within(0.01));
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.greaterThan(StatsKeys.ofDouble(20.0))), false))))
                .isZero();
        // an equality: no width to weigh
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.equal(StatsKeys.ofDouble(1.0))), false))))
                .isEqualTo(ScanModeChooser.UNKNOWN_SELECTIVITY);
    }

    @Test
    void testRowGroupOfOneValueMatchesAllOrNothing()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(KeyKind.EXACT))
                .addRowGroup(1000, 4)
                .addColumnChunk(1000, OptionalLong.of(7), OptionalLong.of(7), 0)
                .build();
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.equal(7)), false)))).isEqualTo(1.0);
        assertThat(ScanModeChooser.selectivity(stats, 0, List.of(new ColumnPredicate(0, List.of(KeyRange.equal(8)), false)))).isZero();
    }
}
