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
import static com.google.common.base.Preconditions.checkState;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * The first {@code n} rows of a scan in a given order, kept in a bounded heap whose head is the
 * worst row kept: a storage node returns only these, and Trino's own top-N merges the splits'.
 * A row's sort keys are read first; the whole row only when it makes it into the heap. Rows in
 * the heap hold a reservation in the memory budget: n rows of long strings can be large.
 * <p>
 * The rows may be given a limit of their own: {@link #add(Page, int)} stops before a row that
 * would take them past it, so that a storage node can send the rows it holds ({@link #takeRows})
 * and go on with an empty heap. Trino's top-N over the splits picks the first n rows of all
 * sent, so the result is the same, with more rows sent.
 */
public final class TopNRows
{
    private final List<Type> types;
    private final List<SortKey> keys;
    private final int n;
    private final Comparator<Object[]> order;
    private final PriorityQueue<Row> heap;
    private final MemoryBudget budget;
    private final long rowLimitBytes;
    // what the rows held now (in the heap, or sorted and being taken) reserve in the budget
    private long rowBytes;
    // the heap's rows best first, while takeRows hands them out
    private List<Row> sorted = List.of();
    private int taken;

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
        this(types, keys, n, budget, Long.MAX_VALUE);
    }

    /**
     * @param budget where the rows kept reserve what they retain
     * @param rowLimitBytes the most the rows kept may retain before {@link #add(Page, int)} stops
     * for them to be taken (one row always fits)
     */
    public TopNRows(List<Type> types, List<SortKey> keys, int n, MemoryBudget budget, long rowLimitBytes)
    {
        checkArgument(rowLimitBytes > 0, "rowLimitBytes must be positive");
        this.rowLimitBytes = rowLimitBytes;
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

    /**
     * Adds every row of the page; without a row limit of its own, past the budget it fails.
     *
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when the rows pass the budget
     */
    public void add(Page page)
    {
        int end = add(page, 0);
        checkState(end == page.getPositionCount(), "the rows reached their limit of %s bytes", rowLimitBytes);
    }

    /**
     * Adds the page's rows from {@code start} on, until keeping a row would take the rows kept
     * past their limit.
     *
     * @return the position of the first row not added: the page's position count when all were
     */
    public int add(Page page, int start)
    {
        checkArgument(page.getChannelCount() == types.size(), "page of %s channels, expected %s", page.getChannelCount(), types.size());
        checkArgument(start >= 0 && start <= page.getPositionCount(), "start %s outside a page of %s rows", start, page.getPositionCount());
        checkState(taken == sorted.size(), "rows are being taken");
        for (int position = start; position < page.getPositionCount(); position++) {
            Object[] rowKeys = new Object[keys.size()];
            for (int key = 0; key < rowKeys.length; key++) {
                int channel = keys.get(key).channel();
                rowKeys[key] = readNativeValue(types.get(channel), page.getBlock(channel), position);
            }
            if (heap.size() < n) {
                Row row = new Row(rowKeys, values(page, position));
                if (!heap.isEmpty() && row.retainedBytes() > rowLimitBytes - rowBytes) {
                    return position;
                }
                keep(row);
            }
            else if (order.compare(rowKeys, heap.peek().keys()) < 0) {
                Row row = new Row(rowKeys, values(page, position));
                Row worst = heap.peek();
                if (row.retainedBytes() - worst.retainedBytes() > rowLimitBytes - rowBytes) {
                    return position;
                }
                heap.poll();
                release(worst);
                keep(row);
            }
        }
        return page.getPositionCount();
    }

    private void keep(Row row)
    {
        budget.reserve(row.retainedBytes(), "the rows of a top-N");
        rowBytes += row.retainedBytes();
        heap.add(row);
    }

    private void release(Row row)
    {
        rowBytes -= row.retainedBytes();
        budget.release(row.retainedBytes());
    }

    /** Whether rows are held, to be taken. */
    public boolean hasRows()
    {
        return !heap.isEmpty() || taken < sorted.size();
    }

    /** What the rows held now retain, as reserved in the budget. */
    public long retainedBytes()
    {
        return rowBytes;
    }

    /**
     * Removes up to {@code maxRows} of the rows kept, best first, and returns them, giving back
     * what they reserved. Once all are taken, more input starts a new heap.
     */
    public Page takeRows(int maxRows)
    {
        checkArgument(maxRows > 0, "maxRows must be positive");
        if (taken == sorted.size()) {
            sorted = sortedRows();
            taken = 0;
            heap.clear();
        }
        int end = Math.min(sorted.size(), taken + maxRows);
        Page page = page(sorted.subList(taken, end));
        for (int row = taken; row < end; row++) {
            release(sorted.get(row));
            // the page holds the values now
            sorted.set(row, null);
        }
        taken = end;
        if (taken == sorted.size()) {
            sorted = List.of();
            taken = 0;
        }
        return page;
    }

    /** The rows kept, best first; they stay held. */
    public Page result()
    {
        checkState(taken == sorted.size(), "rows are being taken");
        return page(sortedRows());
    }

    private List<Row> sortedRows()
    {
        List<Row> rows = new ArrayList<>(heap);
        rows.sort((left, right) -> order.compare(left.keys(), right.keys()));
        return rows;
    }

    private Page page(List<Row> rows)
    {
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
