package io.nsc.trino.split;

import io.airlift.slice.Slices;
import io.airlift.slice.XxHash64;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.predicate.MembershipPredicate;
import io.nsc.protocol.stats.FilterValueType;
import io.nsc.protocol.stats.StatsKeys;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;

import static io.trino.spi.predicate.Domain.multipleValues;
import static io.trino.spi.predicate.Domain.singleValue;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampType.TIMESTAMP_MICROS;
import static io.trino.spi.type.TimestampType.TIMESTAMP_NANOS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MICROS;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Float.floatToIntBits;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

final class TestStatsPredicates
{
    @Test
    void testAllNoneAndNulls()
    {
        assertThat(predicate(BIGINT, Domain.all(BIGINT))).isEqualTo(new ColumnPredicate(0, List.of(KeyRange.all()), true));
        assertThat(predicate(BIGINT, Domain.notNull(BIGINT))).isEqualTo(new ColumnPredicate(0, List.of(KeyRange.all()), false));
        assertThat(predicate(BIGINT, Domain.onlyNull(BIGINT))).isEqualTo(new ColumnPredicate(0, List.of(), true));
    }

    @Test
    void testRangesKeepBoundsAndInclusiveness()
    {
        Domain domain = Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, 5L), Range.range(BIGINT, 10L, true, 20L, false)), false);
        assertThat(predicate(BIGINT, domain).ranges()).containsExactly(
                new KeyRange(Long.MIN_VALUE, true, true, 5, false, false),
                new KeyRange(10, true, false, 20, false, false));
    }

    @Test
    void testDiscreteValues()
    {
        assertThat(predicate(BIGINT, multipleValues(BIGINT, List.of(3L, 1L))).ranges())
                .containsExactly(KeyRange.equal(1), KeyRange.equal(3));
    }

    @Test
    void testFloatingPointKeysShareOneSpace()
    {
        long realKey = predicate(REAL, singleValue(REAL, (long) floatToIntBits(1.5f))).ranges().getFirst().low();
        long doubleKey = predicate(DOUBLE, singleValue(DOUBLE, 1.5)).ranges().getFirst().low();
        assertThat(realKey).isEqualTo(doubleKey).isEqualTo(StatsKeys.ofDouble(1.5));
        // -0.0 and 0.0 are equal in SQL and share a key
        assertThat(predicate(DOUBLE, singleValue(DOUBLE, -0.0)).ranges()).containsExactly(KeyRange.equal(StatsKeys.ofDouble(0.0)));
    }

    @Test
    void testDecimals()
    {
        assertThat(predicate(createDecimalType(10, 2), singleValue(createDecimalType(10, 2), 12345L)).ranges())
                .containsExactly(KeyRange.equal(12345));
        Int128 large = Int128.valueOf(BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE));
        assertThat(predicate(createDecimalType(30, 2), singleValue(createDecimalType(30, 2), large)).ranges())
                .containsExactly(KeyRange.equal(Long.MAX_VALUE));
    }

    @Test
    void testTimestampsUseEpochMicros()
    {
        assertThat(predicate(TIMESTAMP_MICROS, singleValue(TIMESTAMP_MICROS, 1_000_001L)).ranges()).containsExactly(KeyRange.equal(1_000_001));
        // nanosecond precision floors to micros
        assertThat(predicate(TIMESTAMP_NANOS, singleValue(TIMESTAMP_NANOS, new LongTimestamp(1_000_001L, 999_000))).ranges())
                .containsExactly(KeyRange.equal(1_000_001));
        assertThat(predicate(TIMESTAMP_TZ_MILLIS, singleValue(TIMESTAMP_TZ_MILLIS, packDateTimeWithZone(1_234L, UTC_KEY))).ranges())
                .containsExactly(KeyRange.equal(1_234_000));
        assertThat(predicate(TIMESTAMP_TZ_MICROS, singleValue(TIMESTAMP_TZ_MICROS, LongTimestampWithTimeZone.fromEpochMillisAndFraction(1_234L, 5_000_000, UTC_KEY))).ranges())
                .containsExactly(KeyRange.equal(1_234_005));
    }

    @Test
    void testStringsUsePrefixes()
    {
        assertThat(predicate(VARCHAR, singleValue(VARCHAR, Slices.utf8Slice("abcdefghXYZ"))).ranges())
                .containsExactly(KeyRange.equal(StatsKeys.ofBinaryPrefix("abcdefgh".getBytes(UTF_8), 0, 8)));
    }

    @Test
    void testTypesWithoutKeysNeverPruneNorMatchAll()
    {
        Type charType = createCharType(3);
        NscColumnHandle charColumn = new NscColumnHandle("c", charType, 0);
        NscColumnHandle bigintColumn = new NscColumnHandle("b", BIGINT, 1);
        PruningPredicate predicate = StatsPredicates.toPruningPredicate(TupleDomain.withColumnDomains(Map.of(
                charColumn, singleValue(charType, Slices.utf8Slice("ab")),
                bigintColumn, singleValue(BIGINT, 7L))));
        assertThat(predicate.columns()).containsExactly(new ColumnPredicate(1, List.of(KeyRange.equal(7)), false));
        assertThat(predicate.fullyTranslated()).isFalse();
        // null checks need no keys
        assertThat(predicate(UUID, Domain.notNull(UUID)).ranges()).containsExactly(KeyRange.all());
    }

    @Test
    void testEqualitiesBecomeMembershipPredicates()
    {
        NscColumnHandle key = new NscColumnHandle("k", BIGINT, 2);
        NscColumnHandle name = new NscColumnHandle("n", VARCHAR, 3);
        NscColumnHandle price = new NscColumnHandle("p", DOUBLE, 4);
        PruningPredicate predicate = StatsPredicates.toPruningPredicate(TupleDomain.withColumnDomains(Map.of(
                key, multipleValues(BIGINT, List.of(7L, 9L)),
                name, singleValue(VARCHAR, Slices.utf8Slice("needle")),
                price, singleValue(DOUBLE, 1.5))));
        assertThat(predicate.memberships()).containsExactlyInAnyOrder(
                new MembershipPredicate(2, FilterValueType.INT64, new long[] {XxHash64.hash(7L), XxHash64.hash(9L)}),
                new MembershipPredicate(3, FilterValueType.BYTE_ARRAY, new long[] {XxHash64.hash(Slices.utf8Slice("needle"))}));

        // what a filter cannot decide: NULL allowed, ranges, too many values
        assertThat(BloomFilterValues.toMembershipPredicate(key, Domain.create(ValueSet.of(BIGINT, 7L), true))).isEmpty();
        assertThat(BloomFilterValues.toMembershipPredicate(key, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 1L, true, 3L, true)), false))).isEmpty();
        assertThat(BloomFilterValues.toMembershipPredicate(key, Domain.notNull(BIGINT))).isEmpty();
        List<Object> many = java.util.stream.LongStream.range(0, BloomFilterValues.MAX_VALUES + 1).boxed().map(Object.class::cast).toList();
        assertThat(BloomFilterValues.toMembershipPredicate(key, multipleValues(BIGINT, many))).isEmpty();
        assertThat(BloomFilterValues.toMembershipPredicate(key, multipleValues(BIGINT, many.subList(0, BloomFilterValues.MAX_VALUES)))).isPresent();
    }

    private static ColumnPredicate predicate(Type type, Domain domain)
    {
        return StatsPredicates.toColumnPredicate(new NscColumnHandle("c", type, 0), domain).orElseThrow();
    }
}
