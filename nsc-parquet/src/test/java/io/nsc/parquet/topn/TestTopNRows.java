package io.nsc.parquet.topn;

import io.nsc.parquet.types.NativeValues;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The heap keeps exactly the first n rows of a full sort, for every direction and NULL placement,
 * with ties broken by a second key, over pages arriving in any number.
 */
final class TestTopNRows
{
    private static final List<Type> TYPES = List.of(BIGINT, VARCHAR, BIGINT);

    @Test
    void testMatchesAFullSort()
    {
        Random random = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            List<Object[]> rows = new ArrayList<>();
            List<Page> pages = new ArrayList<>();
            for (int page = random.nextInt(4); page >= 0; page--) {
                pages.add(randomPage(random, random.nextInt(60), rows));
            }
            List<SortKey> keys = List.of(
                    new SortKey(1, random.nextBoolean(), random.nextBoolean()),
                    new SortKey(0, random.nextBoolean(), random.nextBoolean()),
                    // the row id: a total order, so the expected rows are unique
                    new SortKey(2, true, false));
            int n = 1 + random.nextInt(40);
            TopNRows topN = new TopNRows(TYPES, keys, n);
            pages.forEach(topN::add);

            rows.sort(comparator(keys));
            List<Object> expected = rows.subList(0, Math.min(n, rows.size())).stream().map(row -> row[2]).toList();
            Page result = topN.result();
            List<Object> actual = new ArrayList<>();
            for (int position = 0; position < result.getPositionCount(); position++) {
                actual.add(readNativeValue(BIGINT, result.getBlock(2), position));
            }
            assertThat(actual).as("trial %s, keys %s, n %s", trial, keys, n).isEqualTo(expected);
        }
    }

    @Test
    void testRefusesUnorderableKeys()
    {
        assertThatThrownBy(() -> new TopNRows(List.of(DOUBLE), List.of(new SortKey(0, true, false)), 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopNRows(TYPES, List.of(new SortKey(5, true, false)), 3)).isInstanceOf(IllegalArgumentException.class);
    }

    private static int nextId;

    private static Page randomPage(Random random, int positions, List<Object[]> rows)
    {
        BlockBuilder numbers = BIGINT.createBlockBuilder(null, positions);
        BlockBuilder strings = VARCHAR.createBlockBuilder(null, positions);
        BlockBuilder ids = BIGINT.createBlockBuilder(null, positions);
        for (int position = 0; position < positions; position++) {
            Object number = random.nextInt(6) == 0 ? null : (long) random.nextInt(10) - 5;
            Object string = random.nextInt(6) == 0 ? null : utf8Slice("s" + random.nextInt(5));
            long id = nextId++;
            writeNativeValue(BIGINT, numbers, number);
            writeNativeValue(VARCHAR, strings, string);
            BIGINT.writeLong(ids, id);
            rows.add(new Object[] {number, string, id});
        }
        return new Page(numbers.build(), strings.build(), ids.build());
    }

    private static Comparator<Object[]> comparator(List<SortKey> keys)
    {
        return (left, right) -> {
            for (SortKey key : keys) {
                Object a = left[key.channel()];
                Object b = right[key.channel()];
                if (a == null && b == null) {
                    continue;
                }
                if (a == null || b == null) {
                    return (a == null) == key.nullsFirst() ? -1 : 1;
                }
                int result = NativeValues.compare(a, b);
                if (result != 0) {
                    return key.ascending() ? result : -result;
                }
            }
            return 0;
        };
    }
}
