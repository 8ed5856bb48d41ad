package io.nsc.parquet.aggregate;

import io.nsc.parquet.memory.MemoryBudget;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Int128Math;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * Partial states computed over pieces of the input and merged give what one pass over all rows
 * gives, for every function, with nulls, empty input and groups seen by only some pieces.
 */
final class TestGroupedAggregation
{
    private static final Type DECIMAL = createDecimalType(30, 2);
    private static final List<AggregateSpec> AGGREGATES = List.of(
            new AggregateSpec(AggregateKind.COUNT_ALL, Optional.empty()),
            new AggregateSpec(AggregateKind.COUNT, Optional.of(BIGINT)),
            new AggregateSpec(AggregateKind.SUM, Optional.of(BIGINT)),
            new AggregateSpec(AggregateKind.SUM, Optional.of(DOUBLE)),
            new AggregateSpec(AggregateKind.SUM, Optional.of(DECIMAL)),
            new AggregateSpec(AggregateKind.MIN, Optional.of(VARCHAR)),
            new AggregateSpec(AggregateKind.MAX, Optional.of(BIGINT)),
            new AggregateSpec(AggregateKind.AVG, Optional.of(BIGINT)));
    // input channels: 0 group key (varchar), 1 bigint, 2 double, 3 decimal, 4 varchar
    private static final int[] INPUTS = {0, 1, 1, 2, 3, 4, 1, 1};

    @Test
    void testMergedPartialsEqualOnePass()
    {
        Random random = new Random(7);
        List<Page> pages = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            pages.add(randomPage(random, 200));
        }
        GroupedAggregation single = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
        pages.forEach(page -> single.addInput(page, new int[] {0}, INPUTS));

        GroupedAggregation merged = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
        for (int piece = 0; piece < 3; piece++) {
            GroupedAggregation partial = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
            partial.addInput(pages.get(2 * piece), new int[] {0}, INPUTS);
            partial.addInput(pages.get(2 * piece + 1), new int[] {0}, INPUTS);
            merged.addPartial(partial.partialPage());
        }
        assertSameRows(merged.finalPage(), single.finalPage(), single.finalTypes());
        assertThat(single.groupCount()).isEqualTo(6);

        // check one group by hand
        Map<Object, long[]> counts = new HashMap<>();
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                Object key = readNativeValue(VARCHAR, page.getBlock(0), position);
                long[] count = counts.computeIfAbsent(key, _ -> new long[2]);
                count[0]++;
                if (!page.getBlock(1).isNull(position)) {
                    count[1]++;
                }
            }
        }
        Page result = merged.finalPage();
        for (int position = 0; position < result.getPositionCount(); position++) {
            long[] expected = counts.get(readNativeValue(VARCHAR, result.getBlock(0), position));
            assertThat(BIGINT.getLong(result.getBlock(1), position)).isEqualTo(expected[0]);
            assertThat(BIGINT.getLong(result.getBlock(2), position)).isEqualTo(expected[1]);
        }
    }

    @Test
    void testGroupLimitSendsPartialStatesEarlyAndMergesToTheSameResult()
    {
        Random random = new Random(3);
        List<Page> pages = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            pages.add(randomPage(random, 500, 300));
        }
        GroupedAggregation single = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
        pages.forEach(page -> single.addInput(page, new int[] {0}, INPUTS));

        // 1 byte: every new group sends the one held; 8kB: a few dozen groups at a time
        for (long limit : new long[] {1, 8 * 1024}) {
            MemoryBudget budget = new MemoryBudget("Scan of file f", 1 << 20);
            GroupedAggregation limited = new GroupedAggregation(List.of(VARCHAR), AGGREGATES, budget, limit);
            GroupedAggregation merged = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
            int flushes = 0;
            long highWater = 0;
            for (Page page : pages) {
                for (int position = 0; position < page.getPositionCount(); ) {
                    position = limited.addInput(page, new int[] {0}, INPUTS, position);
                    highWater = Math.max(highWater, limited.retainedBytes());
                    if (position < page.getPositionCount()) {
                        flushes++;
                        drain(limited, merged);
                    }
                }
            }
            drain(limited, merged);
            assertSameRows(merged.finalPage(), single.finalPage(), single.finalTypes());
            assertThat(flushes).as("limit %s", limit).isGreaterThan(50);
            // one group always fits, however small the limit
            assertThat(highWater).isLessThanOrEqualTo(Math.max(limit, 1024));
            assertThat(budget.peakBytes()).isEqualTo(highWater);
            assertThat(budget.reservedBytes()).isZero();
            assertThat(limited.retainedBytes()).isZero();
        }
    }

    @Test
    void testDictionaryAndConstantKeysGroupAsFlatOnes()
    {
        Random random = new Random(11);
        List<Page> pages = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pages.add(randomPage(random, 400, 9));
        }
        GroupedAggregation flat = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
        pages.forEach(page -> flat.addInput(page, new int[] {0}, INPUTS));

        // the same keys as dictionary ids (two ids for one value, as a file's dictionary may have)
        // and, for one page, as a run-length block of one key
        GroupedAggregation encoded = new GroupedAggregation(List.of(VARCHAR), AGGREGATES, MemoryBudget.unlimited(), 2 * 1024);
        GroupedAggregation merged = new GroupedAggregation(List.of(VARCHAR), AGGREGATES);
        for (Page page : pages) {
            Page dictionaryKeys = withKeys(page, dictionaryOf(page.getBlock(0), random));
            for (int position = 0; position < dictionaryKeys.getPositionCount(); ) {
                position = encoded.addInput(dictionaryKeys, new int[] {0}, INPUTS, position);
                if (position < dictionaryKeys.getPositionCount()) {
                    drain(encoded, merged);
                }
            }
        }
        Page constant = randomPage(random, 50, 9);
        encoded.addInput(withKeys(constant, RunLengthEncodedBlock.create(VARCHAR, utf8Slice("g3"), 50)), new int[] {0}, INPUTS, 0);
        BlockBuilder flatKeys = VARCHAR.createBlockBuilder(null, 50);
        for (int row = 0; row < 50; row++) {
            VARCHAR.writeSlice(flatKeys, utf8Slice("g3"));
        }
        flat.addInput(withKeys(constant, flatKeys.build()), new int[] {0}, INPUTS);
        drain(encoded, merged);
        assertSameRows(merged.finalPage(), flat.finalPage(), flat.finalTypes());
    }

    private static Page withKeys(Page page, Block keys)
    {
        Block[] blocks = new Block[page.getChannelCount()];
        for (int channel = 0; channel < blocks.length; channel++) {
            blocks[channel] = channel == 0 ? keys : page.getBlock(channel);
        }
        return new Page(page.getPositionCount(), blocks);
    }

    /**
     * Keys that pack into primitive longs (bigint, date, tinyint, short strings; NULLs; "a" and
     * "a\0"), pages of them flat and filtered (dictionary blocks over the page, as a filter leaves
     * them), some with a string too long to pack, and group limits that empty the packed table:
     * every group's count, sum and average are those computed by hand.
     */
    @Test
    void testPackedKeysGroupAsBoxedOnes()
    {
        Random random = new Random(13);
        List<Type> keyTypes = List.of(BIGINT, DATE, TINYINT, VARCHAR);
        List<AggregateSpec> aggregates = List.of(
                new AggregateSpec(AggregateKind.COUNT_ALL, Optional.empty()),
                new AggregateSpec(AggregateKind.SUM, Optional.of(DOUBLE)),
                new AggregateSpec(AggregateKind.AVG, Optional.of(DOUBLE)),
                new AggregateSpec(AggregateKind.COUNT, Optional.of(BIGINT)));
        int[] keyChannels = {0, 1, 2, 3};
        int[] inputs = {0, 4, 4, 0};
        List<Object> strings = Arrays.asList(null, utf8Slice(""), utf8Slice("a"), utf8Slice("a\0"), utf8Slice("R"), utf8Slice("ABCDEFG"));
        for (long limit : new long[] {Long.MAX_VALUE, 4 * 1024}) {
            Map<List<Object>, double[]> expected = new HashMap<>();
            GroupedAggregation limited = new GroupedAggregation(keyTypes, aggregates, MemoryBudget.unlimited(), limit);
            GroupedAggregation merged = new GroupedAggregation(keyTypes, aggregates);
            for (int pageNumber = 0; pageNumber < 40; pageNumber++) {
                int rows = 1 + random.nextInt(300);
                BlockBuilder[] builders = {BIGINT.createBlockBuilder(null, rows), DATE.createBlockBuilder(null, rows), TINYINT.createBlockBuilder(null, rows),
                        VARCHAR.createBlockBuilder(null, rows), DOUBLE.createBlockBuilder(null, rows)};
                boolean longString = pageNumber % 7 == 3;
                for (int row = 0; row < rows; row++) {
                    writeNativeValue(BIGINT, builders[0], random.nextInt(6) == 0 ? null : (long) random.nextInt(3) - 1);
                    writeNativeValue(DATE, builders[1], random.nextInt(6) == 0 ? null : (long) random.nextInt(2));
                    writeNativeValue(TINYINT, builders[2], (long) random.nextInt(2) - 1);
                    writeNativeValue(VARCHAR, builders[3], longString && row == rows - 1 ? utf8Slice("too long to pack") : strings.get(random.nextInt(strings.size())));
                    DOUBLE.writeDouble(builders[4], random.nextInt(1000) / 8.0);
                }
                Page page = new Page(rows, Arrays.stream(builders).map(BlockBuilder::build).toArray(Block[]::new));
                if (random.nextBoolean()) {
                    // a filtered page: every block picks its rows from the decoded ones by id
                    int[] kept = random.ints(0, rows).limit(1 + random.nextInt(rows)).sorted().toArray();
                    page = page.getPositions(kept, 0, kept.length);
                }
                for (int position = 0; position < page.getPositionCount(); position++) {
                    List<Object> key = new ArrayList<>();
                    for (int channel = 0; channel < keyTypes.size(); channel++) {
                        key.add(readNativeValue(keyTypes.get(channel), page.getBlock(channel), position));
                    }
                    double[] group = expected.computeIfAbsent(key, _ -> new double[3]);
                    group[0]++;
                    group[1] += DOUBLE.getDouble(page.getBlock(4), position);
                    group[2] += page.getBlock(0).isNull(position) ? 0 : 1;
                }
                for (int position = 0; position < page.getPositionCount(); ) {
                    position = limited.addInput(page, keyChannels, inputs, position);
                    if (position < page.getPositionCount()) {
                        drain(limited, merged);
                    }
                }
            }
            drain(limited, merged);
            Page result = merged.finalPage();
            assertThat(result.getPositionCount()).isEqualTo(expected.size());
            for (int position = 0; position < result.getPositionCount(); position++) {
                List<Object> key = new ArrayList<>();
                for (int channel = 0; channel < keyTypes.size(); channel++) {
                    key.add(readNativeValue(keyTypes.get(channel), result.getBlock(channel), position));
                }
                double[] group = expected.get(key);
                assertThat(group).as("group %s", key).isNotNull();
                assertThat(BIGINT.getLong(result.getBlock(4), position)).isEqualTo((long) group[0]);
                assertThat(DOUBLE.getDouble(result.getBlock(5), position)).isCloseTo(group[1], within(1e-6));
                assertThat(DOUBLE.getDouble(result.getBlock(6), position)).isCloseTo(group[1] / group[0], within(1e-9));
                assertThat(BIGINT.getLong(result.getBlock(7), position)).isEqualTo((long) group[2]);
            }
        }
    }

    private static Block dictionaryOf(Block keys, Random random)
    {
        List<Object> values = new ArrayList<>();
        int[] ids = new int[keys.getPositionCount()];
        for (int position = 0; position < ids.length; position++) {
            Object value = readNativeValue(VARCHAR, keys, position);
            int id = values.indexOf(value);
            if (id < 0 || random.nextInt(4) == 0) {
                id = values.size();
                values.add(value);
            }
            ids[position] = id;
        }
        BlockBuilder dictionary = VARCHAR.createBlockBuilder(null, values.size());
        values.forEach(value -> writeNativeValue(VARCHAR, dictionary, value));
        return DictionaryBlock.create(ids.length, dictionary.build(), ids);
    }

    @Test
    void testGlobalAggregationTakenStartsAgain()
    {
        GroupedAggregation global = new GroupedAggregation(List.of(), AGGREGATES, MemoryBudget.unlimited(), 1);
        GroupedAggregation merged = new GroupedAggregation(List.of(), AGGREGATES);
        Random random = new Random(5);
        Page first = randomPage(random, 100);
        Page second = randomPage(random, 100);
        // one group never fills up: every row goes in
        assertThat(global.addInput(first, new int[0], INPUTS, 0)).isEqualTo(100);
        merged.addPartial(global.takePartialPage(10));
        assertThat(global.groupCount()).isZero();
        assertThat(global.addInput(second, new int[0], INPUTS, 0)).isEqualTo(100);
        merged.addPartial(global.takePartialPage(10));

        GroupedAggregation single = new GroupedAggregation(List.of(), AGGREGATES);
        single.addInput(first, new int[0], INPUTS);
        single.addInput(second, new int[0], INPUTS);
        assertSameRows(merged.finalPage(), single.finalPage(), single.finalTypes());
        assertThat(merged.finalPage().getPositionCount()).isEqualTo(1);
    }

    private static void drain(GroupedAggregation from, GroupedAggregation into)
    {
        while (from.groupCount() > 0) {
            into.addPartial(from.takePartialPage(7));
        }
    }

    @Test
    void testNoInputGivesSqlsEmptyResults()
    {
        GroupedAggregation global = new GroupedAggregation(List.of(), AGGREGATES);
        GroupedAggregation merged = new GroupedAggregation(List.of(), AGGREGATES);
        merged.addPartial(global.partialPage());
        Page result = merged.finalPage();
        assertThat(result.getPositionCount()).isEqualTo(1);
        assertThat(BIGINT.getLong(result.getBlock(0), 0)).isZero();
        assertThat(BIGINT.getLong(result.getBlock(1), 0)).isZero();
        for (int channel = 2; channel < AGGREGATES.size(); channel++) {
            assertThat(result.getBlock(channel).isNull(0)).as("channel " + channel).isTrue();
        }
        // grouped over nothing: no row
        assertThat(new GroupedAggregation(List.of(VARCHAR), AGGREGATES).finalPage().getPositionCount()).isZero();
    }

    @Test
    void testOverflowFailsAsTrinoDoes()
    {
        GroupedAggregation sum = new GroupedAggregation(List.of(), List.of(new AggregateSpec(AggregateKind.SUM, Optional.of(BIGINT))));
        BlockBuilder values = BIGINT.createBlockBuilder(null, 2);
        BIGINT.writeLong(values, Long.MAX_VALUE);
        BIGINT.writeLong(values, 1);
        assertThatThrownBy(() -> sum.addInput(new Page(values.build()), new int[0], new int[] {0}))
                .isInstanceOf(TrinoException.class)
                .hasMessageContaining("bigint addition overflow");
    }

    @Test
    void testDecimalSumChecksOnlyTheTotal()
    {
        // as in Trino, a running total may leave decimal(38)'s range if the total comes back
        Type decimal = createDecimalType(38, 0);
        Int128 big = Int128.valueOf("90000000000000000000000000000000000000");
        GroupedAggregation sum = new GroupedAggregation(List.of(), List.of(new AggregateSpec(AggregateKind.SUM, Optional.of(decimal))));
        BlockBuilder values = decimal.createBlockBuilder(null, 3);
        writeNativeValue(decimal, values, big);
        writeNativeValue(decimal, values, big);
        writeNativeValue(decimal, values, Int128Math.negate(big));
        sum.addInput(new Page(values.build()), new int[0], new int[] {0});
        assertThat(readNativeValue(decimal, sum.finalPage().getBlock(0), 0)).isEqualTo(big);

        GroupedAggregation tooBig = new GroupedAggregation(List.of(), List.of(new AggregateSpec(AggregateKind.SUM, Optional.of(decimal))));
        BlockBuilder twice = decimal.createBlockBuilder(null, 2);
        writeNativeValue(decimal, twice, big);
        writeNativeValue(decimal, twice, big);
        tooBig.addInput(new Page(twice.build()), new int[0], new int[] {0});
        assertThatThrownBy(tooBig::finalPage).isInstanceOf(TrinoException.class).hasMessageContaining("Decimal overflow");
    }

    @Test
    void testUnsupportedCombinationsAreRefused()
    {
        assertThat(AggregateSpec.resultType(AggregateKind.MIN, DOUBLE)).isEmpty();
        assertThat(AggregateSpec.resultType(AggregateKind.AVG, DECIMAL)).isEmpty();
        assertThat(AggregateSpec.resultType(AggregateKind.SUM, VARCHAR)).isEmpty();
        assertThat(AggregateSpec.resultType(AggregateKind.SUM, DECIMAL)).contains(createDecimalType(38, 2));
        assertThat(AggregateSpec.isGroupable(DOUBLE)).isFalse();
        assertThatThrownBy(() -> new AggregateSpec(AggregateKind.MAX, Optional.of(DOUBLE))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new GroupedAggregation(List.of(DOUBLE), List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    private static Page randomPage(Random random, int rows)
    {
        return randomPage(random, rows, 6);
    }

    /** Rows of {@code groups} groups, one of them the NULL key. */
    private static Page randomPage(Random random, int rows, int groups)
    {
        BlockBuilder keys = VARCHAR.createBlockBuilder(null, rows);
        BlockBuilder longs = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder doubles = DOUBLE.createBlockBuilder(null, rows);
        BlockBuilder decimals = DECIMAL.createBlockBuilder(null, rows);
        BlockBuilder strings = VARCHAR.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            // the last group is a NULL key
            int group = random.nextInt(groups);
            writeNativeValue(VARCHAR, keys, group == groups - 1 ? null : utf8Slice("g" + group));
            writeNativeValue(BIGINT, longs, random.nextInt(5) == 0 ? null : (long) random.nextInt(1000) - 500);
            writeNativeValue(DOUBLE, doubles, random.nextInt(5) == 0 ? null : random.nextInt(1000) / 4.0);
            writeNativeValue(DECIMAL, decimals, random.nextInt(5) == 0 ? null : Int128.valueOf(random.nextLong() >> 4));
            writeNativeValue(VARCHAR, strings, random.nextInt(5) == 0 ? null : utf8Slice("s" + random.nextInt(100)));
        }
        return new Page(keys.build(), longs.build(), doubles.build(), decimals.build(), strings.build());
    }

    private static void assertSameRows(Page actual, Page expected, List<Type> types)
    {
        assertThat(actual.getPositionCount()).isEqualTo(expected.getPositionCount());
        Map<Object, List<Object>> expectedRows = rows(expected, types);
        Map<Object, List<Object>> actualRows = rows(actual, types);
        assertThat(actualRows.keySet()).isEqualTo(expectedRows.keySet());
        for (Object key : expectedRows.keySet()) {
            List<Object> expectedRow = expectedRows.get(key);
            List<Object> actualRow = actualRows.get(key);
            for (int channel = 0; channel < types.size(); channel++) {
                if (expectedRow.get(channel) instanceof Double value) {
                    assertThat((Double) actualRow.get(channel)).isCloseTo(value, within(1e-9));
                }
                else {
                    assertThat(actualRow.get(channel)).as("group %s channel %s", key, channel).isEqualTo(expectedRow.get(channel));
                }
            }
        }
    }

    private static Map<Object, List<Object>> rows(Page page, List<Type> types)
    {
        Map<Object, List<Object>> rows = new HashMap<>();
        for (int position = 0; position < page.getPositionCount(); position++) {
            List<Object> row = new ArrayList<>();
            for (int channel = 0; channel < types.size(); channel++) {
                Block block = page.getBlock(channel);
                row.add(readNativeValue(types.get(channel), block, position));
            }
            rows.put(Arrays.asList(row.getFirst()), row);
        }
        return rows;
    }
}
