package io.nsc.parquet.memory;

import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.parquet.topn.SortKey;
import io.nsc.parquet.topn.TopNRows;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Group maps and top-N heaps reserve what they hold before they hold it. */
final class TestMemoryBudget
{
    private static final List<AggregateSpec> COUNT = List.of(new AggregateSpec(AggregateKind.COUNT_ALL, Optional.empty()));

    @Test
    void testReservationsAreAllOrNothing()
    {
        MemoryBudget budget = new MemoryBudget("Scan of file f", 100);
        budget.reserve(60, "a");
        assertThatThrownBy(() -> budget.reserve(41, "the groups of an aggregation"))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessage("Scan of file f exceeds its memory limit of 100B: the groups of an aggregation needs 41B more with 60B already held");
        assertThat(budget.reservedBytes()).isEqualTo(60);
        budget.reserve(40, "b");
        budget.release(100);
        assertThat(budget.reservedBytes()).isZero();
        assertThat(budget.peakBytes()).isEqualTo(100);
        assertThatThrownBy(() -> budget.release(1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testEveryChangeReachesTheBackingAndItsRefusalLeavesTheBudgetAsItWas()
    {
        long[] backed = new long[1];
        MemoryBacking backing = new MemoryBacking()
        {
            @Override
            public void grow(long bytes, String what)
            {
                if (backed[0] + bytes > 50) {
                    throw new MemoryLimitExceededException("the pool has no room for " + what);
                }
                backed[0] += bytes;
            }

            @Override
            public void shrink(long bytes)
            {
                backed[0] -= bytes;
            }
        };
        MemoryBudget budget = new MemoryBudget("Scan of file f", 100, backing);
        budget.reserve(40, "a");
        assertThat(backed[0]).isEqualTo(40);
        assertThatThrownBy(() -> budget.reserve(20, "b"))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessage("the pool has no room for b");
        assertThat(budget.reservedBytes()).isEqualTo(40);
        // the budget's own limit is checked first: the backing is not asked
        assertThatThrownBy(() -> budget.reserve(61, "c")).hasMessageContaining("exceeds its memory limit of 100B");
        assertThat(backed[0]).isEqualTo(40);
        budget.release(40);
        assertThat(backed[0]).isZero();
    }

    @Test
    void testGroupsChargeTheBudget()
    {
        MemoryBudget budget = new MemoryBudget("Scan of file f", 1 << 20);
        GroupedAggregation groups = new GroupedAggregation(List.of(BIGINT), COUNT, budget);
        // the same key again costs nothing more
        groups.addInput(page(0, 1000, 1), new int[] {0}, new int[] {0});
        long oneGroup = budget.reservedBytes();
        assertThat(oneGroup).isPositive();
        groups.addInput(page(0, 1000, 1), new int[] {0}, new int[] {0});
        assertThat(budget.reservedBytes()).isEqualTo(oneGroup);
        // a million distinct keys do not fit in a megabyte
        assertThatThrownBy(() -> {
            for (int start = 0; start < 1_000_000; start += 10_000) {
                groups.addInput(page(start, 10_000, 10_000), new int[] {0}, new int[] {0});
            }
        })
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessageContaining("the groups of an aggregation");
        assertThat(budget.reservedBytes()).isLessThanOrEqualTo(1 << 20);
        assertThat(groups.groupCount()).isLessThan(1_000_000).isGreaterThan(1000);
    }

    @Test
    void testTopNRowsChargeAndReleaseTheBudget()
    {
        MemoryBudget budget = new MemoryBudget("Scan of file f", 1 << 20);
        TopNRows topN = new TopNRows(List.of(BIGINT, VARCHAR), List.of(new SortKey(0, true, false)), 10, budget);
        for (int start = 0; start < 10_000; start += 100) {
            topN.add(stringPage(10_000 - start, 100, 10));
        }
        // ten rows held, however many went through
        long tenRows = budget.reservedBytes();
        assertThat(tenRows).isPositive().isLessThan(10_000);
        assertThat(topN.result().getPositionCount()).isEqualTo(10);

        TopNRows wide = new TopNRows(List.of(BIGINT, VARCHAR), List.of(new SortKey(0, true, false)), 1000, new MemoryBudget("Scan of file g", 1 << 20));
        // a thousand rows of 10kB strings are 10MB
        assertThatThrownBy(() -> wide.add(stringPage(0, 1000, 10_000)))
                .isInstanceOf(MemoryLimitExceededException.class)
                .hasMessageContaining("Scan of file g exceeds its memory limit of 1MB: the rows of a top-N");
    }

    private static Page page(int start, int positions, int distinct)
    {
        BlockBuilder keys = BIGINT.createBlockBuilder(null, positions);
        for (int i = 0; i < positions; i++) {
            BIGINT.writeLong(keys, start + i % distinct);
        }
        return new Page(keys.build());
    }

    private static Page stringPage(int start, int positions, int length)
    {
        BlockBuilder keys = BIGINT.createBlockBuilder(null, positions);
        BlockBuilder strings = VARCHAR.createBlockBuilder(null, positions);
        for (int i = 0; i < positions; i++) {
            BIGINT.writeLong(keys, start + i);
            VARCHAR.writeSlice(strings, utf8Slice("x".repeat(length)));
        }
        return new Page(keys.build(), strings.build());
    }
}
