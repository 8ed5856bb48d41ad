package io.nsc.protocol.predicate;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.protocol.stats.StatsKeys;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Random;

import static io.nsc.protocol.predicate.RowGroupMatch.ALL;
import static io.nsc.protocol.predicate.RowGroupMatch.NONE;
import static io.nsc.protocol.predicate.RowGroupMatch.SOME;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Random row groups and predicates, checked against the predicate evaluated on the raw values:
 * the pruner must never say NONE when some row matches, nor ALL when some row fails.
 */
final class TestRowGroupPrunerRandomized
{
    private static final int TRIALS = 40_000;

    @Test
    void testNeverWrong()
    {
        List<Domain<?>> domains = List.of(new LongDomain(), new DoubleDomain(), new StringDomain(), new NanosDomain(), new LongDecimalDomain());
        Map<RowGroupMatch, Integer> outcomes = new EnumMap<>(RowGroupMatch.class);
        Random random = new Random(20240601);
        for (int trial = 0; trial < TRIALS; trial++) {
            long seed = random.nextLong();
            RowGroupMatch match = runTrial(domains, new Random(seed), seed);
            outcomes.merge(match, 1, Integer::sum);
        }
        // the check is only worth something if every outcome occurs often
        assertThat(outcomes.getOrDefault(NONE, 0)).isGreaterThan(TRIALS / 20);
        assertThat(outcomes.getOrDefault(SOME, 0)).isGreaterThan(TRIALS / 20);
        assertThat(outcomes.getOrDefault(ALL, 0)).isGreaterThan(TRIALS / 20);
    }

    private static RowGroupMatch runTrial(List<Domain<?>> domains, Random random, long seed)
    {
        int columnCount = 1 + random.nextInt(3);
        int rowCount = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(8);
        List<Column<?>> columns = new ArrayList<>();
        for (int column = 0; column < columnCount; column++) {
            columns.add(Column.random(domains.get(random.nextInt(domains.size())), column, rowCount, random));
        }

        CompactFileStats.Builder builder = CompactFileStats.builder(columns.stream().map(Column::kind).toList());
        builder.addRowGroup(rowCount, 4);
        for (Column<?> column : columns) {
            column.addStats(builder, random);
        }
        CompactFileStats stats = builder.build();

        List<ColumnPredicate> predicates = new ArrayList<>();
        List<Column<?>> constrained = new ArrayList<>();
        for (Column<?> column : columns) {
            if (random.nextInt(4) != 0) {
                predicates.add(column.randomPredicate(random));
                constrained.add(column);
            }
        }

        RowGroupMatch match = RowGroupPruner.classify(stats, 0, predicates);
        int matching = 0;
        for (int row = 0; row < rowCount; row++) {
            boolean matches = true;
            for (int i = 0; i < predicates.size(); i++) {
                matches &= constrained.get(i).matches(row, predicates.get(i));
            }
            matching += matches ? 1 : 0;
        }
        if ((match == NONE && matching > 0) || (match == ALL && matching < rowCount)) {
            fail("seed %s: classified %s but %s of %s rows match%ncolumns: %s%npredicates: %s", seed, match, matching, rowCount, columns, predicates);
        }
        return match;
    }

    private static final class Column<T>
    {
        private final Domain<T> domain;
        private final int index;
        private final List<T> values;
        private final KeyKind kind;
        private final List<T> boundaries = new ArrayList<>();
        // the value ranges behind the last predicate, to evaluate it on raw values
        private List<ValueRange<T>> currentValueRanges = List.of();

        private Column(Domain<T> domain, int index, List<T> values, KeyKind kind)
        {
            this.domain = domain;
            this.index = index;
            this.values = values;
            this.kind = kind;
        }

        static <T> Column<T> random(Domain<T> domain, int index, int rowCount, Random random)
        {
            double nullProbability = switch (random.nextInt(4)) {
                case 0 -> 0;
                case 1 -> 1;
                default -> 0.3;
            };
            List<T> values = new ArrayList<>();
            for (int row = 0; row < rowCount; row++) {
                values.add(random.nextDouble() < nullProbability ? null : domain.randomValue(random));
            }
            // sometimes a column whose type keeps no min/max at all
            return new Column<>(domain, index, values, random.nextInt(8) == 0 ? KeyKind.NONE : domain.kind());
        }

        KeyKind kind()
        {
            return kind;
        }

        void addStats(CompactFileStats.Builder builder, Random random)
        {
            long nulls = values.stream().filter(Objects::isNull).count();
            long nullCount = random.nextInt(5) == 0 ? -1 : nulls;
            List<T> ordered = values.stream()
                    .filter(Objects::nonNull)
                    .filter(value -> !domain.isNaN(value))
                    .sorted(domain.comparator())
                    .toList();
            // what writers leave out: NaN in min/max, or any stats at all
            boolean hasNaN = values.stream().anyMatch(value -> value != null && domain.isNaN(value));
            boolean dropMinMax = kind == KeyKind.NONE || ordered.isEmpty() || random.nextInt(6) == 0 || (hasNaN && random.nextBoolean());
            if (dropMinMax) {
                builder.addColumnChunk(10, OptionalLong.empty(), OptionalLong.empty(), nullCount);
                return;
            }
            long min = domain.key(ordered.getFirst());
            long max = domain.key(ordered.getLast());
            if (random.nextInt(5) == 0) {
                // looser bounds, as truncating writers produce, are still bounds
                if (min > Long.MIN_VALUE + 2) {
                    min -= random.nextInt(3);
                }
                if (max < Long.MAX_VALUE - 2) {
                    max += random.nextInt(3);
                }
            }
            builder.addColumnChunk(10, OptionalLong.of(min), OptionalLong.of(max), nullCount);
        }

        ColumnPredicate randomPredicate(Random random)
        {
            boolean nullAllowed = random.nextInt(3) == 0;
            currentValueRanges = List.of();
            return switch (random.nextInt(12)) {
                case 0 -> new ColumnPredicate(index, List.of(), nullAllowed);
                case 1 -> new ColumnPredicate(index, List.of(KeyRange.all()), nullAllowed);
                default -> new ColumnPredicate(index, randomRanges(random), nullAllowed);
            };
        }

        /**
         * Sorted, disjoint value ranges over random boundary values, as Trino's domains are.
         */
        private List<KeyRange> randomRanges(Random random)
        {
            boundaries.clear();
            List<T> candidates = new ArrayList<>();
            int count = 1 + random.nextInt(5);
            for (int i = 0; i < count; i++) {
                // boundaries from the data itself hit min/max exactly
                List<T> present = values.stream().filter(Objects::nonNull).filter(value -> !domain.isNaN(value)).toList();
                T candidate = !present.isEmpty() && random.nextBoolean() ? present.get(random.nextInt(present.size())) : domain.randomValue(random);
                if (!domain.isNaN(candidate)) {
                    candidates.add(candidate);
                }
            }
            candidates.sort(domain.comparator());
            for (T candidate : candidates) {
                if (boundaries.isEmpty() || domain.comparator().compare(boundaries.getLast(), candidate) < 0) {
                    boundaries.add(candidate);
                }
            }

            List<KeyRange> ranges = new ArrayList<>();
            List<ValueRange<T>> valueRanges = new ArrayList<>();
            int i = 0;
            if (!boundaries.isEmpty() && random.nextInt(3) == 0) {
                boolean inclusive = random.nextBoolean();
                valueRanges.add(new ValueRange<>(null, false, boundaries.getFirst(), inclusive));
                i = 1;
            }
            while (i < boundaries.size()) {
                int action = random.nextInt(3);
                if (action == 0) {
                    valueRanges.add(new ValueRange<>(boundaries.get(i), true, boundaries.get(i), true));
                    i++;
                }
                else if (action == 1 && i + 1 < boundaries.size()) {
                    valueRanges.add(new ValueRange<>(boundaries.get(i), random.nextBoolean(), boundaries.get(i + 1), random.nextBoolean()));
                    i += 2;
                }
                else if (action == 2 && i == boundaries.size() - 1 && random.nextBoolean()) {
                    valueRanges.add(new ValueRange<>(boundaries.get(i), random.nextBoolean(), null, false));
                    i++;
                }
                else {
                    i++;
                }
            }
            for (ValueRange<T> range : valueRanges) {
                ranges.add(new KeyRange(
                        range.low() == null ? 0 : domain.key(range.low()), range.lowInclusive(), range.low() == null,
                        range.high() == null ? 0 : domain.key(range.high()), range.highInclusive(), range.high() == null));
            }
            currentValueRanges = valueRanges;
            return ranges;
        }

        /**
         * The predicate on the raw value, as Trino evaluates it.
         */
        boolean matches(int row, ColumnPredicate predicate)
        {
            T value = values.get(row);
            if (value == null) {
                return predicate.nullAllowed();
            }
            if (predicate.ranges().size() == 1 && predicate.ranges().getFirst().isAll()) {
                return true;
            }
            if (predicate.ranges().isEmpty() || domain.isNaN(value)) {
                return false;
            }
            Comparator<T> comparator = domain.comparator();
            for (ValueRange<T> range : currentValueRanges) {
                boolean aboveLow = range.low() == null || (range.lowInclusive() ? comparator.compare(value, range.low()) >= 0 : comparator.compare(value, range.low()) > 0);
                boolean belowHigh = range.high() == null || (range.highInclusive() ? comparator.compare(value, range.high()) <= 0 : comparator.compare(value, range.high()) < 0);
                if (aboveLow && belowHigh) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString()
        {
            return "%s %s %s ranges=%s".formatted(domain.getClass().getSimpleName(), kind, values.stream().map(domain::toString).toList(), currentValueRanges);
        }
    }

    private record ValueRange<T>(T low, boolean lowInclusive, T high, boolean highInclusive) {}

    private interface Domain<T>
    {
        KeyKind kind();

        T randomValue(Random random);

        /**
         * Value order over non-NaN values, with values Trino deems equal comparing equal.
         */
        Comparator<T> comparator();

        long key(T value);

        default boolean isNaN(T value)
        {
            return false;
        }

        default String toString(T value)
        {
            return String.valueOf(value);
        }
    }

    private static final class LongDomain
            implements Domain<Long>
    {
        private static final long[] SPECIAL = {Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};

        @Override
        public KeyKind kind()
        {
            return KeyKind.EXACT;
        }

        @Override
        public Long randomValue(Random random)
        {
            return random.nextInt(5) == 0 ? SPECIAL[random.nextInt(SPECIAL.length)] : (long) random.nextInt(9) - 4;
        }

        @Override
        public Comparator<Long> comparator()
        {
            return Long::compare;
        }

        @Override
        public long key(Long value)
        {
            return StatsKeys.ofLong(value);
        }
    }

    private static final class DoubleDomain
            implements Domain<Double>
    {
        private static final double[] VALUES = {
                Double.NaN, Double.NEGATIVE_INFINITY, -Double.MAX_VALUE, -1.5, -Double.MIN_VALUE, -0.0, 0.0,
                Double.MIN_VALUE, 1.5, 2.0, Double.MAX_VALUE, Double.POSITIVE_INFINITY};

        @Override
        public KeyKind kind()
        {
            return KeyKind.FLOATING;
        }

        @Override
        public Double randomValue(Random random)
        {
            return VALUES[random.nextInt(VALUES.length)];
        }

        @Override
        public Comparator<Double> comparator()
        {
            // numeric comparison: -0.0 equals 0.0, as in Trino
            return (a, b) -> a < b ? -1 : a > b ? 1 : 0;
        }

        @Override
        public long key(Double value)
        {
            return StatsKeys.ofDouble(value);
        }

        @Override
        public boolean isNaN(Double value)
        {
            return value.isNaN();
        }
    }

    private static final class StringDomain
            implements Domain<byte[]>
    {
        private static final byte[] ALPHABET = {0, 'a', 'b', (byte) 0x80, (byte) 0xFF};

        @Override
        public KeyKind kind()
        {
            return KeyKind.LOSSY;
        }

        @Override
        public byte[] randomValue(Random random)
        {
            // a shared 7- or 8-byte head makes many values collide on their prefix key
            byte[] head = random.nextBoolean() ? "abcdefgh".getBytes(US_ASCII) : "abcdefg".getBytes(US_ASCII);
            int tail = random.nextInt(4);
            byte[] value = Arrays.copyOf(head, random.nextInt(4) == 0 ? random.nextInt(head.length) + tail : head.length + tail);
            for (int i = Math.max(0, value.length - tail); i < value.length; i++) {
                value[i] = ALPHABET[random.nextInt(ALPHABET.length)];
            }
            return value;
        }

        @Override
        public Comparator<byte[]> comparator()
        {
            return Arrays::compareUnsigned;
        }

        @Override
        public long key(byte[] value)
        {
            return StatsKeys.ofBinaryPrefix(value, 0, value.length);
        }

        @Override
        public String toString(byte[] value)
        {
            return value == null ? "null" : HexFormat.of().formatHex(value);
        }
    }

    /**
     * timestamp(9) as epoch nanos, floored to micros in keys.
     */
    private static final class NanosDomain
            implements Domain<Long>
    {
        @Override
        public KeyKind kind()
        {
            return KeyKind.LOSSY;
        }

        @Override
        public Long randomValue(Random random)
        {
            return (long) random.nextInt(6001) - 3000;
        }

        @Override
        public Comparator<Long> comparator()
        {
            return Long::compare;
        }

        @Override
        public long key(Long value)
        {
            return StatsKeys.ofEpochNanosFloorMicros(value);
        }
    }

    /**
     * Long decimals around the edges of the key range, where keys saturate.
     */
    private static final class LongDecimalDomain
            implements Domain<BigInteger>
    {
        private static final BigInteger[] BASES = {
                BigInteger.ZERO, BigInteger.valueOf(Long.MAX_VALUE), BigInteger.valueOf(Long.MIN_VALUE), BigInteger.TEN.pow(30), BigInteger.TEN.pow(30).negate()};

        @Override
        public KeyKind kind()
        {
            return KeyKind.LOSSY;
        }

        @Override
        public BigInteger randomValue(Random random)
        {
            return BASES[random.nextInt(BASES.length)].add(BigInteger.valueOf(random.nextInt(5) - 2));
        }

        @Override
        public Comparator<BigInteger> comparator()
        {
            return BigInteger::compareTo;
        }

        @Override
        public long key(BigInteger value)
        {
            return StatsKeys.ofDecimal128(value.shiftRight(64).longValue(), value.longValue());
        }
    }
}
