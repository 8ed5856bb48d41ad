package io.nsc.parquet.filter;

import io.airlift.slice.Slice;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Float.floatToRawIntBits;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The row filter, after its predicate crossed the wire, keeps exactly the rows whose values the
 * domain contains (Trino's own definition), over random domains and values drawn from a small
 * pool with the edge cases in it: nulls, type bounds, NaN, -0.0, min == max, trailing spaces.
 */
final class TestRowFilter
{
    private static final int TRIALS = 3000;

    @Test
    void testFilterMatchesDomainSemantics()
    {
        Random random = new Random(42);
        List<Type> types = List.of(BIGINT, INTEGER, TINYINT, DATE, createDecimalType(10, 2), TIMESTAMP_MICROS, DOUBLE, REAL, VARCHAR, createCharType(3), createDecimalType(30, 5));
        for (int trial = 0; trial < TRIALS; trial++) {
            Type type = types.get(random.nextInt(types.size()));
            List<Object> pool = pool(type);
            Domain domain = randomDomain(type, pool, random);
            Block block = randomBlock(type, pool, random, 50);

            TupleDomain<Integer> predicate = TupleDomain.withColumnDomains(Map.of(0, domain));
            TupleDomain<Integer> received = TupleDomainCodec.decode(TupleDomainCodec.encode(predicate, List.of(type)), List.of(type));
            assertThat(received).isEqualTo(predicate);

            RowFilter filter = RowFilter.create(received, List.of(type));
            int[] positions = new int[block.getPositionCount()];
            int count = filter.select(SourcePage.create(new Page(block)), positions);
            List<Integer> expected = new ArrayList<>();
            for (int position = 0; position < block.getPositionCount(); position++) {
                if (domain.includesNullableValue(readNativeValue(type, block, position))) {
                    expected.add(position);
                }
            }
            List<Integer> actual = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                actual.add(positions[i]);
            }
            assertThat(actual).as("%s on %s", domain, type).isEqualTo(expected);
        }
    }

    /**
     * The type-specialised loops (blocks without nulls, a bitmap for many single values, byte
     * comparison of varchar, a hash set for long IN lists) and the generic ones for blocks of
     * other shapes (dictionary, run-length) give the domain's answer.
     */
    @Test
    void testSpecialisedFiltersMatchDomainSemantics()
    {
        Random random = new Random(7);
        List<Type> types = List.of(BIGINT, INTEGER, DATE, TINYINT, DOUBLE, REAL, VARCHAR);
        for (int trial = 0; trial < TRIALS; trial++) {
            Type type = types.get(random.nextInt(types.size()));
            List<Object> pool = type == BIGINT || type == INTEGER || type == DATE ? smallIntegers(random) : type == VARCHAR ? strings() : pool(type);
            Domain domain = random.nextInt(3) == 0
                    ? randomDomain(type, pool, random)
                    : Domain.create(ValueSet.copyOf(type, distinct(type, pool, random, 1 + random.nextInt(pool.size()))), random.nextBoolean());
            int nullEvery = random.nextBoolean() ? 0 : 1 + random.nextInt(8);
            Block values = block(type, pool, random, 200, nullEvery);
            Block block = switch (random.nextInt(4)) {
                case 0 -> DictionaryBlock.create(300, values, random.ints(300, 0, 200).toArray());
                case 1 -> RunLengthEncodedBlock.create(values.getSingleValueBlock(random.nextInt(200)), 300);
                default -> values;
            };
            RowFilter filter = RowFilter.create(TupleDomain.withColumnDomains(Map.of(0, domain)), List.of(type));
            assertFiltered(filter, domain, type, block);
            if (block instanceof DictionaryBlock) {
                // the next page of the row group: other ids into the same dictionary, whose answers the filter kept
                assertFiltered(filter, domain, type, DictionaryBlock.create(100, values, random.ints(100, 0, 200).toArray()));
            }
        }
    }

    private static void assertFiltered(RowFilter filter, Domain domain, Type type, Block block)
    {
        int[] positions = new int[block.getPositionCount()];
        int count = filter.select(SourcePage.create(new Page(block)), positions);
        List<Integer> expected = new ArrayList<>();
        for (int position = 0; position < block.getPositionCount(); position++) {
            if (domain.includesNullableValue(readNativeValue(type, block, position))) {
                expected.add(position);
            }
        }
        List<Integer> actual = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            actual.add(positions[i]);
        }
        assertThat(actual).as("%s on %s", domain, type).isEqualTo(expected);
    }

    // many values in a small span (a bitmap), with the edges of the span and values just past them
    private static List<Object> smallIntegers(Random random)
    {
        long base = random.nextBoolean() ? 0 : -1000 + random.nextInt(2000);
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            values.add(base + random.nextInt(5000));
        }
        values.add(base - 1);
        values.add(base + 70_000);
        return values;
    }

    private static List<Object> strings()
    {
        List<Object> values = new ArrayList<>(pool(VARCHAR));
        for (String value : List.of("AIR", "AIR REG", "MAIL", "RAIL", "SHIP", "TRUCK", "FOB", "DELIVER IN PERSON", "NONE", "TAKE BACK RETURN", "COLLECT COD")) {
            values.add(utf8Slice(value));
        }
        return values;
    }

    private static List<Object> distinct(Type type, List<Object> pool, Random random, int count)
    {
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            values.add(nonNaN(type, pool, random));
        }
        return values;
    }

    private static Block block(Type type, List<Object> pool, Random random, int positions, int nullEvery)
    {
        BlockBuilder builder = type.createBlockBuilder(null, positions);
        for (int position = 0; position < positions; position++) {
            boolean isNull = nullEvery > 0 && random.nextInt(nullEvery) == 0;
            writeNativeValue(type, builder, isNull ? null : pool.get(random.nextInt(pool.size())));
        }
        return builder.build();
    }

    @Test
    void testNoneAndAll()
    {
        Page page = new Page(randomBlock(BIGINT, pool(BIGINT), new Random(1), 10));
        int[] positions = new int[10];
        assertThat(RowFilter.create(TupleDomain.none(), List.of(BIGINT)).select(SourcePage.create(page), positions)).isZero();
        assertThat(RowFilter.create(TupleDomain.all(), List.of(BIGINT)).select(SourcePage.create(page), positions)).isEqualTo(10);
        assertThat(RowFilter.create(TupleDomain.withColumnDomains(Map.of(0, Domain.all(BIGINT))), List.of(BIGINT)).isAll()).isTrue();
    }

    private static List<Object> pool(Type type)
    {
        List<Object> values = new ArrayList<>();
        if (type == DOUBLE) {
            values.addAll(List.of(Double.NaN, -0.0, 0.0, 1.5, -1.5, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.MAX_VALUE, -Double.MIN_VALUE));
        }
        else if (type == REAL) {
            for (float value : new float[] {Float.NaN, -0.0f, 0.0f, 1.5f, -1.5f, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY}) {
                values.add((long) floatToRawIntBits(value));
            }
        }
        else if (type == VARCHAR) {
            values.addAll(List.of(utf8Slice(""), utf8Slice("a"), utf8Slice("a "), utf8Slice("ab"), utf8Slice("abcdefghij"), utf8Slice("abcdefghik"), utf8Slice("\u00e9"), utf8Slice("\uD83D\uDE00")));
        }
        else if (type.getJavaType() == Slice.class) {
            // char(3): Trino keeps char values without their trailing spaces
            values.addAll(List.of(utf8Slice(""), utf8Slice("a"), utf8Slice("ab"), utf8Slice("abc"), utf8Slice(" a")));
        }
        else if (type.getJavaType() == long.class) {
            long max = type == TINYINT ? Byte.MAX_VALUE : type == INTEGER ? Integer.MAX_VALUE : type == DATE ? 100_000 : type.equals(createDecimalType(10, 2)) ? 9_999_999_999L : Long.MAX_VALUE;
            long min = type == TINYINT ? Byte.MIN_VALUE : type == INTEGER ? Integer.MIN_VALUE : -max;
            values.addAll(List.of(min, min + 1, -1L, 0L, 1L, 7L, max - 1, max));
        }
        else {
            values.addAll(List.of(Int128.valueOf(-5), Int128.valueOf(0), Int128.valueOf(123456789),
                    Int128.valueOf("99999999999999999999999999999"), Int128.valueOf("-99999999999999999999999999999")));
        }
        return values;
    }

    private static Domain randomDomain(Type type, List<Object> pool, Random random)
    {
        boolean nullAllowed = random.nextBoolean();
        switch (random.nextInt(6)) {
            case 0 -> {
                return Domain.create(ValueSet.all(type), nullAllowed);
            }
            case 1 -> {
                return Domain.create(ValueSet.none(type), nullAllowed);
            }
            case 2 -> {
                List<Object> values = new ArrayList<>();
                for (int i = random.nextInt(4); i >= 0; i--) {
                    values.add(nonNaN(type, pool, random));
                }
                return Domain.create(ValueSet.copyOf(type, values), nullAllowed);
            }
            default -> {
                List<Range> ranges = new ArrayList<>();
                for (int i = random.nextInt(3); i >= 0; i--) {
                    Object low = nonNaN(type, pool, random);
                    Object high = nonNaN(type, pool, random);
                    if (!ordered(type, low, high)) {
                        Object swap = low;
                        low = high;
                        high = swap;
                    }
                    boolean equal = Range.range(type, low, true, high, true).isSingleValue();
                    ranges.add(switch (random.nextInt(4)) {
                        case 0 -> Range.greaterThan(type, low);
                        case 1 -> Range.lessThanOrEqual(type, high);
                        case 2 -> Range.range(type, low, true, high, true);
                        default -> equal ? Range.equal(type, low) : Range.range(type, low, random.nextBoolean(), high, random.nextBoolean());
                    });
                }
                return Domain.create(ValueSet.ofRanges(ranges), nullAllowed);
            }
        }
    }

    private static Object nonNaN(Type type, List<Object> pool, Random random)
    {
        while (true) {
            Object value = pool.get(random.nextInt(pool.size()));
            boolean nan = (type == DOUBLE && Double.isNaN((double) value)) || (type == REAL && Float.isNaN(Float.intBitsToFloat((int) (long) value)));
            if (!nan) {
                return value;
            }
        }
    }

    private static boolean ordered(Type type, Object low, Object high)
    {
        try {
            Range.range(type, low, true, high, true);
            return true;
        }
        catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static Block randomBlock(Type type, List<Object> pool, Random random, int positions)
    {
        BlockBuilder builder = type.createBlockBuilder(null, positions);
        for (int position = 0; position < positions; position++) {
            writeNativeValue(type, builder, random.nextInt(8) == 0 ? null : pool.get(random.nextInt(pool.size())));
        }
        return builder.build();
    }
}
