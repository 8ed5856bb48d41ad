package io.nsc.trino.split;

import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/** A dynamic filter's runs of adjacent keys become ranges; everything else stays as Trino gave it. */
final class TestDynamicFilterDomains
{
    @Test
    void testKeysWithoutGapsBecomeOneRange()
    {
        // all of part's keys at scale 1: what a build side of the whole table sends
        Domain keys = points(BIGINT, LongStream.rangeClosed(1, 200_000));
        Domain merged = DynamicFilterDomains.mergeAdjacentValues(keys);
        assertThat(merged).isEqualTo(Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 1L, true, 200_000L, true)), false));
        assertThat(merged.getValues().getRanges().getRangeCount()).isEqualTo(1);
    }

    @Test
    void testRunsBecomeRangesAndTheSameValuesMatch()
    {
        // three runs and a lone value, on an integer and a date column
        for (Type type : List.of(INTEGER, DATE)) {
            Domain keys = points(type, LongStream.concat(LongStream.concat(LongStream.rangeClosed(-5, 5), LongStream.rangeClosed(20, 40)), LongStream.of(100, 1000, 1001, 1002)));
            Domain merged = DynamicFilterDomains.mergeAdjacentValues(keys);
            assertThat(merged.getValues().getRanges().getRangeCount()).isEqualTo(4);
            for (long value = -10; value <= 1010; value++) {
                assertThat(merged.includesNullableValue(value)).as("%s %s", type, value).isEqualTo(keys.includesNullableValue(value));
            }
        }
    }

    @Test
    void testScatteredKeysStayValues()
    {
        // a join's keys with gaps: as values they travel as deltas and test against a bitmap
        Domain scattered = points(BIGINT, LongStream.iterate(3, value -> value + 7).limit(10_000));
        assertThat(DynamicFilterDomains.mergeAdjacentValues(scattered)).isSameAs(scattered);
        // half in pairs: merging would not halve them
        Domain pairs = points(BIGINT, LongStream.of(1, 2, 10, 20, 30, 31));
        assertThat(DynamicFilterDomains.mergeAdjacentValues(pairs)).isSameAs(pairs);
    }

    @Test
    void testNullsExtremesAndOtherTypesKeepTheirMeaning()
    {
        Domain withNull = Domain.create(points(BIGINT, LongStream.rangeClosed(1, 10)).getValues(), true);
        Domain merged = DynamicFilterDomains.mergeAdjacentValues(withNull);
        assertThat(merged.isNullAllowed()).isTrue();
        assertThat(merged.getValues().getRanges().getRangeCount()).isEqualTo(1);
        // the top of the long range: no value past Long.MAX_VALUE, no wrap into a run with Long.MIN_VALUE
        Domain top = points(BIGINT, LongStream.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MIN_VALUE + 2, Long.MAX_VALUE - 2, Long.MAX_VALUE - 1, Long.MAX_VALUE));
        Domain mergedTop = DynamicFilterDomains.mergeAdjacentValues(top);
        assertThat(mergedTop.getValues().getRanges().getRangeCount()).isEqualTo(2);
        assertThat(mergedTop.includesNullableValue(0L)).isFalse();
        assertThat(mergedTop.includesNullableValue(Long.MAX_VALUE)).isTrue();
        assertThat(mergedTop.includesNullableValue(Long.MIN_VALUE)).isTrue();
        // doubles and strings have values between any two: never merged
        Domain doubles = Domain.multipleValues(DOUBLE, List.of(1.0, 2.0, 3.0, 4.0));
        assertThat(DynamicFilterDomains.mergeAdjacentValues(doubles)).isSameAs(doubles);
        Domain strings = Domain.multipleValues(VARCHAR, List.of(utf8Slice("a"), utf8Slice("b"), utf8Slice("c")));
        assertThat(DynamicFilterDomains.mergeAdjacentValues(strings)).isSameAs(strings);
        // ranges and all stay as they are
        Domain range = Domain.create(ValueSet.ofRanges(Range.greaterThan(BIGINT, 5L)), false);
        assertThat(DynamicFilterDomains.mergeAdjacentValues(range)).isSameAs(range);
        assertThat(DynamicFilterDomains.mergeAdjacentValues(Domain.all(BIGINT))).isEqualTo(Domain.all(BIGINT));
    }

    @Test
    void testOnlyTableColumnsRemain()
    {
        NscColumnHandle key = new NscColumnHandle("key", BIGINT, 0);
        ColumnHandle computed = new ColumnHandle() {};
        TupleDomain<ColumnHandle> filter = TupleDomain.withColumnDomains(Map.of(
                key, points(BIGINT, LongStream.rangeClosed(1, 100)),
                computed, Domain.singleValue(BIGINT, 1L)));
        TupleDomain<NscColumnHandle> ofTable = DynamicFilterDomains.ofTableColumns(filter);
        assertThat(ofTable.getDomains().orElseThrow()).containsOnlyKeys(key);
        assertThat(ofTable.getDomains().orElseThrow().get(key).getValues().getRanges().getRangeCount()).isEqualTo(1);
        assertThat(DynamicFilterDomains.ofTableColumns(TupleDomain.none()).isNone()).isTrue();
    }

    private static Domain points(Type type, LongStream values)
    {
        return Domain.multipleValues(type, values.boxed().map(Object.class::cast).toList());
    }
}
