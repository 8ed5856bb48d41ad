package io.nsc.parquet.topn;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.RetainedSizes;
import io.nsc.parquet.types.NativeValues;
import io.trino.spi.Page;
import io.trino.spi.PageBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * The first {@code n} rows of a scan in a given order, kept in a bounded heap whose head is the
 * worst row kept: a storage node returns only these, and Trino's own top-N merges the splits'.
 * A row's sort keys are read first; the whole row only when it makes it into the heap. Rows in
 * the heap hold a reservation in the memory budget: n rows of long strings can be large.
 */
public final class TopNRows
{
    private final List<Type> types;
    private final List<SortKey> keys;
    private final int n;
    private final Comparator<Object[]> order;
    private final PriorityQueue<Row> heap;
    private final MemoryBudget budget;

    private record Row(Object[] keys, Object[] values, long retainedBytes)
    {
        Row(Object[] keys, Object[] values)
        {
            this(keys, values, RetainedSizes.MAP_ENTRY + RetainedSizes.values(keys) + RetainedSizes.values(values));
        }
    }

    public TopNRows(List<Type> types, List<SortKey> keys, int n)
    {
        this(types, keys, n, MemoryBudget.unlimited());
    }

    /**
     * @param budget where the rows kept reserve what they retain
     */
    public TopNRows(List<Type> types, List<SortKey> keys, int n, MemoryBudget budget)
    {
        this.budget = requireNonNull(budget, "budget is null");
        this.types = ImmutableList.copyOf(types);
        this.keys = ImmutableList.copyOf(keys);
        checkArgument(n > 0, "n must be positive");
        checkArgument(!keys.isEmpty(), "no sort key");
        for (SortKey key : keys) {
            checkArgument(key.channel() < types.size(), "sort key on channel %s of %s", key.channel(), types.size());
            checkArgument(NativeValues.isOrderable(types.get(key.channel())), "cannot order by %s", types.get(key.channel()));
        }
        this.n = n;
        this.order = this::compareKeys;
        // worst row first, so that it is the one a better row replaces
        this.heap = new PriorityQueue<>(Math.min(n, 4096) + 1, (left, right) -> order.compare(right.keys(), left.keys()));
    }

    public static boolean supports(Type type)
    {
        return NativeValues.isOrderable(type);
    }

    public void add(Page page)
    {
        checkArgument(page.getChannelCount() == types.size(), "page of %s channels, expected %s", page.getChannelCount(), types.size());
        for (int position = 0; position < page.getPositionCount(); position++) {
            Object[] rowKeys = new Object[keys.size()];
            for (int key = 0; key < rowKeys.length; key++) {
                int channel = keys.get(key).channel();
                rowKeys[key] = readNativeValue(types.get(channel), page.getBlock(channel), position);
            }
            if (heap.size() < n) {
                keep(new Row(rowKeys, values(page, position)));
            }
            else if (order.compare(rowKeys, heap.peek().keys()) < 0) {
                budget.release(heap.poll().retainedBytes());
                keep(new Row(rowKeys, values(page, position)));
            }
        }
    }

    private void keep(Row row)
    {
        budget.reserve(row.retainedBytes(), "the rows of a top-N");
        heap.add(row);
    }

    /** The rows kept, best first. */
    public Page result()
    {
        List<Row> rows = new ArrayList<>(heap);
        rows.sort((left, right) -> order.compare(left.keys(), right.keys()));
        PageBuilder page = new PageBuilder(rows.size(), types);
        for (Row row : rows) {
            page.declarePosition();
            for (int channel = 0; channel < types.size(); channel++) {
                writeNativeValue(types.get(channel), page.getBlockBuilder(channel), row.values()[channel]);
            }
        }
        return page.build();
    }

    private Object[] values(Page page, int position)
    {
        Object[] values = new Object[types.size()];
        for (int channel = 0; channel < values.length; channel++) {
            Block block = page.getBlock(channel);
            values[channel] = readNativeValue(types.get(channel), block, position);
        }
        return values;
    }

    private int compareKeys(Object[] left, Object[] right)
    {
        for (int key = 0; key < keys.size(); key++) {
            SortKey sortKey = keys.get(key);
            Object leftValue = left[key];
            Object rightValue = right[key];
            int result;
            if (leftValue == null || rightValue == null) {
                if (leftValue == rightValue) {
                    continue;
                }
                // NULL placement is not reversed by the direction
                boolean leftNull = leftValue == null;
                result = leftNull == sortKey.nullsFirst() ? -1 : 1;
                return result;
            }
            result = NativeValues.compare(leftValue, rightValue);
            if (result != 0) {
                return sortKey.ascending() ? result : -result;
            }
        }
        return 0;
    }
}
