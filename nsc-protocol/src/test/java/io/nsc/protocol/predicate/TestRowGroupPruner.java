package io.nsc.protocol.predicate;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static io.nsc.protocol.predicate.KeyRange.equal;
import static io.nsc.protocol.predicate.KeyRange.greaterThan;
import static io.nsc.protocol.predicate.KeyRange.greaterThanOrEqual;
import static io.nsc.protocol.predicate.KeyRange.lessThan;
import static io.nsc.protocol.predicate.KeyRange.lessThanOrEqual;
import static io.nsc.protocol.predicate.KeyRange.range;
import static io.nsc.protocol.predicate.RowGroupMatch.ALL;
import static io.nsc.protocol.predicate.RowGroupMatch.NONE;
import static io.nsc.protocol.predicate.RowGroupMatch.SOME;
import static io.nsc.protocol.stats.KeyKind.EXACT;
import static io.nsc.protocol.stats.KeyKind.FLOATING;
import static io.nsc.protocol.stats.KeyKind.LOSSY;
import static io.nsc.protocol.stats.StatsKeys.ofBinaryPrefix;
import static io.nsc.protocol.stats.StatsKeys.ofDecimal128;
import static io.nsc.protocol.stats.StatsKeys.ofDouble;
import static io.nsc.protocol.stats.StatsKeys.ofEpochNanosFloorMicros;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestRowGroupPruner
{
    private static final long MIN = Long.MIN_VALUE;
    private static final long MAX = Long.MAX_VALUE;
    private static final long UNKNOWN = -1;

    @Test
    void testNullsOnly()
    {
        CompactFileStats stats = chunk(EXACT, 10, null, 10);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(ALL);
        assertThat(classify(stats, ColumnPredicate.isNotNull(0))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, equal(5)))).isEqualTo(NONE);
        assertThat(classify(stats, values(true, equal(5)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, KeyRange.all()))).isEqualTo(NONE);
        // inconsistent stats (min/max on an all-null chunk): the null count wins
        CompactFileStats inconsistent = chunk(EXACT, 10, new long[] {1, 10}, 10);
        assertThat(classify(inconsistent, values(false, equal(5)))).isEqualTo(NONE);
        assertThat(classify(inconsistent, ColumnPredicate.isNull(0))).isEqualTo(ALL);
    }

    @Test
    void testNoNulls()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {1, 10}, 0);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(NONE);
        assertThat(classify(stats, ColumnPredicate.isNotNull(0))).isEqualTo(ALL);
        assertThat(classify(stats, values(true, KeyRange.all()))).isEqualTo(ALL);
        assertThat(classify(stats, values(true, equal(11)))).isEqualTo(NONE);
        assertThat(classify(stats, values(true, range(0, true, 10, true)))).isEqualTo(ALL);
    }

    @Test
    void testSomeNulls()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {1, 10}, 3);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(SOME);
        assertThat(classify(stats, ColumnPredicate.isNotNull(0))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, range(0, true, 20, true)))).isEqualTo(SOME);
        assertThat(classify(stats, values(true, range(0, true, 20, true)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, equal(50)))).isEqualTo(NONE);
        // the nulls match even though no value does
        assertThat(classify(stats, values(true, equal(50)))).isEqualTo(SOME);
    }

    @Test
    void testUnknownNullCount()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {1, 10}, UNKNOWN);
        assertThat(classify(stats, values(false, equal(5)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, equal(50)))).isEqualTo(NONE);
        assertThat(classify(stats, values(true, equal(50)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, range(0, true, 20, true)))).isEqualTo(SOME);
        assertThat(classify(stats, values(true, range(0, true, 20, true)))).isEqualTo(ALL);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(SOME);
        assertThat(classify(stats, ColumnPredicate.isNotNull(0))).isEqualTo(SOME);
    }

    @Test
    void testStatsAbsentNeverPrune()
    {
        CompactFileStats stats = chunk(EXACT, 10, null, UNKNOWN);
        assertThat(classify(stats, values(false, equal(5)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, greaterThan(MAX)))).isEqualTo(SOME);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(SOME);
        assertThat(classify(stats, ColumnPredicate.isNotNull(0))).isEqualTo(SOME);
        assertThat(classify(stats, values(true, KeyRange.all()))).isEqualTo(ALL);
        // no value at all can match, whatever the data: x IN ()
        assertThat(classify(stats, values(false))).isEqualTo(NONE);
    }

    @Test
    void testKeyKindNone()
    {
        CompactFileStats stats = chunk(KeyKind.NONE, 10, null, 0);
        assertThat(classify(stats, values(false, equal(5)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, KeyRange.all()))).isEqualTo(ALL);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(NONE);
    }

    @Test
    void testEmptyRowGroupAndEmptyFile()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(EXACT))
                .addRowGroup(0, 4)
                .addColumnChunk(0, OptionalLong.empty(), OptionalLong.empty(), 0)
                .build();
        assertThat(RowGroupPruner.classify(stats, 0, List.of())).isEqualTo(NONE);
        assertThat(classify(stats, ColumnPredicate.isNull(0))).isEqualTo(NONE);
        assertThat(classify(stats, values(true, KeyRange.all()))).isEqualTo(NONE);

        CompactFileStats empty = CompactFileStats.builder(List.of(EXACT)).build();
        assertThat(empty.rowGroupCount()).isZero();
        assertThatThrownBy(() -> RowGroupPruner.classify(empty, 0, List.of())).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void testEmptyPredicateListMatchesEverything()
    {
        assertThat(RowGroupPruner.classify(chunk(EXACT, 10, null, UNKNOWN), 0, List.of())).isEqualTo(ALL);
    }

    @Test
    void testMinEqualsMax()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {5, 5}, 0);
        assertThat(classify(stats, values(false, equal(5)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, lessThan(5), greaterThan(5)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, greaterThan(5)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, greaterThanOrEqual(5)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, lessThan(5)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, range(4, false, 6, false)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, range(5, false, 5, false)))).isEqualTo(NONE);
    }

    @Test
    void testExclusiveBoundsAtMinAndMax()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {10, 20}, 0);
        assertThat(classify(stats, values(false, greaterThan(20)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, greaterThanOrEqual(20)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, lessThan(10)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, lessThanOrEqual(10)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, greaterThan(9)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, lessThan(21)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, range(9, false, 21, false)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, range(10, true, 20, true)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, range(10, false, 20, true)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, range(10, true, 20, false)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, range(20, false, 30, true)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, range(0, true, 10, false)))).isEqualTo(NONE);
    }

    @Test
    void testRangesAtTheExtremes()
    {
        CompactFileStats full = chunk(EXACT, 10, new long[] {MIN, MAX}, 0);
        assertThat(classify(full, values(false, greaterThan(MAX)))).isEqualTo(NONE);
        assertThat(classify(full, values(false, lessThan(MIN)))).isEqualTo(NONE);
        assertThat(classify(full, values(false, greaterThanOrEqual(MIN)))).isEqualTo(ALL);
        assertThat(classify(full, values(false, lessThanOrEqual(MAX)))).isEqualTo(ALL);
        assertThat(classify(full, values(false, range(MIN, true, MAX, true)))).isEqualTo(ALL);
        assertThat(classify(full, values(false, equal(MAX)))).isEqualTo(SOME);
        assertThat(classify(full, values(false, equal(MIN)))).isEqualTo(SOME);

        CompactFileStats top = chunk(EXACT, 10, new long[] {MAX, MAX}, 0);
        assertThat(classify(top, values(false, equal(MAX)))).isEqualTo(ALL);
        assertThat(classify(top, values(false, greaterThanOrEqual(MAX)))).isEqualTo(ALL);
        assertThat(classify(top, values(false, lessThan(MAX)))).isEqualTo(NONE);
        assertThat(classify(top, values(false, range(MAX, false, MAX, false)))).isEqualTo(NONE);

        CompactFileStats bottom = chunk(EXACT, 10, new long[] {MIN, MIN}, 0);
        assertThat(classify(bottom, values(false, lessThanOrEqual(MIN)))).isEqualTo(ALL);
        assertThat(classify(bottom, values(false, greaterThan(MIN)))).isEqualTo(NONE);
        assertThat(classify(bottom, values(false, range(MIN, false, MIN, false)))).isEqualTo(NONE);

        CompactFileStats floating = chunk(FLOATING, 10, new long[] {MIN, MAX}, 0);
        assertThat(classify(floating, values(false, range(MIN, true, MAX, true)))).isEqualTo(SOME);

        // lossy keys at the top are saturated values: a bound there proves nothing
        CompactFileStats saturated = chunk(LOSSY, 10, new long[] {MAX, MAX}, 0);
        assertThat(classify(saturated, values(false, greaterThan(MAX)))).isEqualTo(SOME);
        assertThat(classify(saturated, values(false, lessThan(MAX)))).isEqualTo(SOME);
        assertThat(classify(saturated, values(false, greaterThanOrEqual(MAX)))).isEqualTo(SOME);
        assertThat(classify(saturated, values(false, range(MAX, false, MAX, false)))).isEqualTo(SOME);
        assertThat(classify(saturated, values(false, lessThan(5)))).isEqualTo(NONE);
        assertThat(classify(saturated, values(false, greaterThan(5)))).isEqualTo(ALL);
    }

    @Test
    void testNanInFloatingStats()
    {
        // a chunk whose min or max was NaN keeps no min/max: never prune on values
        CompactFileStats noMinMax = chunk(FLOATING, 10, null, 0);
        assertThat(classify(noMinMax, values(false, greaterThan(ofDouble(1.0))))).isEqualTo(SOME);
        assertThat(classify(noMinMax, values(false, KeyRange.all()))).isEqualTo(ALL);
        assertThat(classify(noMinMax, ColumnPredicate.isNotNull(0))).isEqualTo(ALL);

        // min/max over the non-NaN values: NaN rows may still hide in the chunk
        CompactFileStats stats = chunk(FLOATING, 10, new long[] {ofDouble(1.0), ofDouble(2.0)}, 0);
        assertThat(classify(stats, values(false, greaterThanOrEqual(ofDouble(0.0))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, lessThanOrEqual(ofDouble(Double.POSITIVE_INFINITY))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, greaterThan(ofDouble(2.0))))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, lessThan(ofDouble(1.0))))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, equal(ofDouble(1.5))))).isEqualTo(SOME);
        assertThat(classify(stats, values(true, KeyRange.all()))).isEqualTo(ALL);
    }

    @Test
    void testNegativeZero()
    {
        // a chunk of -0.0 and 0.0: min -0.0 and max 0.0 share one key
        CompactFileStats zeros = chunk(FLOATING, 10, new long[] {ofDouble(-0.0), ofDouble(0.0)}, 0);
        assertThat(zeros.min(0, 0)).isEqualTo(zeros.max(0, 0));
        assertThat(classify(zeros, values(false, equal(ofDouble(-0.0))))).isEqualTo(SOME);
        assertThat(classify(zeros, values(false, equal(ofDouble(0.0))))).isEqualTo(SOME);
        assertThat(classify(zeros, values(false, lessThan(ofDouble(0.0))))).isEqualTo(NONE);
        assertThat(classify(zeros, values(false, lessThan(ofDouble(-0.0))))).isEqualTo(NONE);
        assertThat(classify(zeros, values(false, greaterThan(ofDouble(-0.0))))).isEqualTo(NONE);
        assertThat(classify(zeros, values(false, lessThanOrEqual(ofDouble(-0.0))))).isEqualTo(SOME);
        assertThat(classify(zeros, values(false, greaterThan(ofDouble(-Double.MIN_VALUE))))).isEqualTo(SOME);
        assertThat(classify(zeros, values(false, lessThan(ofDouble(Double.MIN_VALUE))))).isEqualTo(SOME);
    }

    @Test
    void testTruncatedStrings()
    {
        // values "abcdefgh2" .. "abcdefgh3": both keys are the prefix "abcdefgh"
        CompactFileStats stats = chunk(LOSSY, 10, new long[] {string("abcdefgh2"), string("abcdefgh3")}, 0);
        assertThat(stats.min(0, 0)).isEqualTo(stats.max(0, 0));
        // "abcdefgh1" collides with the stats: must stay SOME, never NONE
        assertThat(classify(stats, values(false, equal(string("abcdefgh1"))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, equal(string("abcdefgh2"))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, greaterThan(string("abcdefgh1"))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, lessThan(string("abcdefgh9"))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, greaterThanOrEqual(string("abcdefgh"))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, range(string("abcdefgh1"), false, string("abcdefgh4"), false)))).isEqualTo(SOME);
        // keys strictly around the prefix do prove things
        assertThat(classify(stats, values(false, equal(string("b"))))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, lessThan(string("abcdefg"))))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, lessThan(string("b"))))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, greaterThan(string("abcdefg"))))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, range(string("abcdefg"), false, string("abcdefgi"), false)))).isEqualTo(ALL);
    }

    @Test
    void testShortDecimals()
    {
        // decimal(12,2) between 1.00 and 2.50: unscaled keys, exact
        CompactFileStats stats = chunk(EXACT, 10, new long[] {100, 250}, 0);
        assertThat(classify(stats, values(false, range(100, true, 250, true)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, greaterThan(250)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, equal(199)))).isEqualTo(SOME);
    }

    @Test
    void testLongDecimalsSaturate()
    {
        BigInteger big = BigInteger.TEN.pow(20);
        // values 10^20 .. 10^21: both saturate to MAX
        CompactFileStats stats = chunk(LOSSY, 10, new long[] {decimal(big), decimal(big.multiply(BigInteger.TEN))}, 0);
        assertThat(stats.min(0, 0)).isEqualTo(MAX);
        assertThat(classify(stats, values(false, greaterThan(decimal(BigInteger.TEN.pow(25)))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, lessThan(decimal(BigInteger.TEN.pow(25)))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, equal(decimal(BigInteger.TEN.pow(25)))))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, equal(decimal(BigInteger.valueOf(5)))))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, greaterThan(decimal(BigInteger.valueOf(5)))))).isEqualTo(ALL);

        // between -10^20 and 10^20: saturated at both ends, so only "everything" is ALL
        CompactFileStats wide = chunk(LOSSY, 10, new long[] {decimal(big.negate()), decimal(big)}, 0);
        assertThat(classify(wide, values(false, range(decimal(big.negate().multiply(BigInteger.TEN)), true, decimal(big.multiply(BigInteger.TEN)), true)))).isEqualTo(SOME);
        assertThat(classify(wide, values(false, equal(0)))).isEqualTo(SOME);
    }

    @Test
    void testTimestampsAcrossUnits()
    {
        // timestamp(3): millis 1..3 as micros, exact
        CompactFileStats millis = chunk(EXACT, 10, new long[] {1_000, 3_000}, 0);
        assertThat(classify(millis, values(false, greaterThan(3_000)))).isEqualTo(NONE);
        assertThat(classify(millis, values(false, greaterThanOrEqual(1_000)))).isEqualTo(ALL);
        assertThat(classify(millis, values(false, range(1_000, false, 3_000, false)))).isEqualTo(SOME);

        // timestamp(6): micros, exact
        CompactFileStats micros = chunk(EXACT, 10, new long[] {1, 3}, 0);
        assertThat(classify(micros, values(false, lessThan(1)))).isEqualTo(NONE);
        assertThat(classify(micros, values(false, range(1, true, 3, true)))).isEqualTo(ALL);

        // timestamp(9): nanos 1001..2999 floor to micros 1..2
        CompactFileStats nanos = chunk(LOSSY, 10, new long[] {ofEpochNanosFloorMicros(1_001), ofEpochNanosFloorMicros(2_999)}, 0);
        assertThat(classify(nanos, values(false, greaterThan(ofEpochNanosFloorMicros(2_500))))).isEqualTo(SOME);
        assertThat(classify(nanos, values(false, lessThan(ofEpochNanosFloorMicros(1_000))))).isEqualTo(SOME);
        assertThat(classify(nanos, values(false, greaterThan(ofEpochNanosFloorMicros(3_000))))).isEqualTo(NONE);
        assertThat(classify(nanos, values(false, greaterThanOrEqual(ofEpochNanosFloorMicros(999))))).isEqualTo(ALL);
        assertThat(classify(nanos, values(false, equal(ofEpochNanosFloorMicros(2_000))))).isEqualTo(SOME);
        // negative nanos floor towards minus infinity
        CompactFileStats negative = chunk(LOSSY, 10, new long[] {ofEpochNanosFloorMicros(-999), ofEpochNanosFloorMicros(-1)}, 0);
        assertThat(classify(negative, values(false, lessThan(ofEpochNanosFloorMicros(0))))).isEqualTo(ALL);
        assertThat(classify(negative, values(false, greaterThanOrEqual(ofEpochNanosFloorMicros(0))))).isEqualTo(NONE);
    }

    @Test
    void testInLists()
    {
        CompactFileStats stats = chunk(EXACT, 10, new long[] {10, 20}, 0);
        assertThat(classify(stats, values(false, equal(1), equal(5), equal(25)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, equal(1), equal(15), equal(25)))).isEqualTo(SOME);
        assertThat(classify(stats, values(false, equal(1), range(10, true, 20, true), equal(25)))).isEqualTo(ALL);
        assertThat(classify(stats, values(false, lessThan(10), greaterThan(20)))).isEqualTo(NONE);
        assertThat(classify(stats, values(false, lessThan(10), range(11, true, 19, true), greaterThan(20)))).isEqualTo(SOME);

        List<KeyRange> many = new ArrayList<>();
        for (long key = -50_000; key < 50_000; key += 2) {
            many.add(equal(key * 100 + 1));
        }
        assertThat(classify(stats, new ColumnPredicate(0, many, false))).isEqualTo(NONE);
        many.add(equal(10_000_000));
        assertThat(classify(chunk(EXACT, 10, new long[] {9_000_000, 11_000_000}, 0), new ColumnPredicate(0, many, false))).isEqualTo(SOME);
        assertThat(classify(chunk(EXACT, 10, new long[] {10_000_000, 10_000_000}, 0), new ColumnPredicate(0, many, false))).isEqualTo(ALL);
    }

    @Test
    void testConjunction()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(EXACT, EXACT))
                .addRowGroup(10, 4)
                .addColumnChunk(1, OptionalLong.of(1), OptionalLong.of(10), 0)
                .addColumnChunk(1, OptionalLong.of(100), OptionalLong.of(200), 0)
                .build();
        ColumnPredicate firstAll = new ColumnPredicate(0, List.of(range(0, true, 10, true)), false);
        ColumnPredicate firstSome = new ColumnPredicate(0, List.of(equal(5)), false);
        ColumnPredicate firstNone = new ColumnPredicate(0, List.of(equal(50)), false);
        ColumnPredicate secondAll = new ColumnPredicate(1, List.of(greaterThan(0)), false);
        ColumnPredicate secondSome = new ColumnPredicate(1, List.of(greaterThan(150)), false);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(firstAll, secondAll))).isEqualTo(ALL);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(firstAll, secondSome))).isEqualTo(SOME);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(firstSome, secondAll))).isEqualTo(SOME);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(firstNone, secondAll))).isEqualTo(NONE);
        assertThat(RowGroupPruner.classify(stats, 0, List.of(secondSome, firstNone))).isEqualTo(NONE);
    }

    private static RowGroupMatch classify(CompactFileStats stats, ColumnPredicate predicate)
    {
        return RowGroupPruner.classify(stats, 0, List.of(predicate));
    }

    private static ColumnPredicate values(boolean nullAllowed, KeyRange... ranges)
    {
        return new ColumnPredicate(0, List.of(ranges), nullAllowed);
    }

    /**
     * One row group of one column.
     */
    private static CompactFileStats chunk(KeyKind kind, long rowCount, long[] minMax, long nullCount)
    {
        OptionalLong min = minMax == null ? OptionalLong.empty() : OptionalLong.of(minMax[0]);
        OptionalLong max = minMax == null ? OptionalLong.empty() : OptionalLong.of(minMax[1]);
        return CompactFileStats.builder(List.of(kind))
                .addRowGroup(rowCount, 4)
                .addColumnChunk(100, min, max, nullCount)
                .build();
    }

    private static long string(String value)
    {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return ofBinaryPrefix(bytes, 0, bytes.length);
    }

    private static long decimal(BigInteger value)
    {
        return ofDecimal128(value.shiftRight(64).longValue(), value.longValue());
    }
}
