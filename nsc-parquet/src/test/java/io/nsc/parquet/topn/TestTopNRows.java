package io.nsc.parquet.topn;

import io.nsc.parquet.memory.MemoryBudget;
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
    void testRowLimitSendsRowsEarlyAndTheirTopNIsTheSame()
    {
        Random random = new Random(13);
        for (int trial = 0; trial < 100; trial++) {
            List<Object[]> rows = new ArrayList<>();
            List<Page> pages = new ArrayList<>();
            for (int page = random.nextInt(6); page >= 0; page--) {
                pages.add(randomPage(random, random.nextInt(80), rows));
            }
            List<SortKey> keys = List.of(new SortKey(random.nextInt(2), random.nextBoolean(), random.nextBoolean()), new SortKey(2, true, false));
            int n = 1 + random.nextInt(60);
            // from about one row to a dozen
            long limit = 400 + random.nextInt(4000);
            MemoryBudget budget = new MemoryBudget("Scan of file f", 1 << 20);
            TopNRows topN = new TopNRows(TYPES, keys, n, budget, limit);
            List<Object> sent = new ArrayList<>();
            int flushes = 0;
            for (Page page : pages) {
                for (int position = 0; position < page.getPositionCount(); ) {
                    position = topN.add(page, position);
                    assertThat(topN.retainedBytes()).isLessThanOrEqualTo(limit);
                    if (position < page.getPositionCount()) {
                        flushes++;
                        takeAll(random, topN, sent);
                    }
                }
            }
            takeAll(random, topN, sent);
            assertThat(budget.reservedBytes()).isZero();
            assertThat(budget.peakBytes()).isLessThanOrEqualTo(limit);

            // what Trino's top-N over everything sent keeps
            rows.sort(comparator(keys));
            List<Object[]> sentRows = rows.stream().filter(row -> sent.contains(row[2])).toList();
            List<Object> expected = rows.subList(0, Math.min(n, rows.size())).stream().map(row -> row[2]).toList();
            assertThat(sentRows.subList(0, Math.min(n, sentRows.size())).stream().map(row -> row[2]).toList())
                    .as("trial %s, keys %s, n %s, limit %s, flushes %s", trial, keys, n, limit, flushes)
                    .isEqualTo(expected);
            assertThat(sent).doesNotHaveDuplicates();
        }
    }

    private static void takeAll(Random random, TopNRows topN, List<Object> ids)
    {
        while (topN.hasRows()) {
            Page page = topN.takeRows(1 + random.nextInt(10));
            assertThat(page.getPositionCount()).isPositive();
            for (int position = 0; position < page.getPositionCount(); position++) {
                ids.add(readNativeValue(BIGINT, page.getBlock(2), position));
            }
        }
        assertThat(topN.retainedBytes()).isZero();
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
