package io.nsc.tools.tpch;

import io.airlift.slice.Slice;
import io.airlift.slice.SliceOutput;
import io.airlift.slice.Slices;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.type.VarcharType;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.tpch.TpchColumnType.Base.DATE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.checkFromToIndex;
import static java.util.Objects.checkIndex;
import static java.util.Objects.requireNonNull;

/**
 * Rows of one TPC-H table held column by column in primitive arrays (strings as UTF-8 bytes in
 * one array per column), several times more compact than row objects: one sorted run of
 * {@link SortedRowGroupSource} lives here (lineitem takes 165 bytes a row, sort order included),
 * and a table with fewer rows than a run is served from here directly.
 */
final class TpchRowBuffer<E extends TpchEntity>
{
    private static final int MIN_CAPACITY = 1024;

    private final List<TpchColumn<E>> columns;
    private final ColumnValues<E>[] values;
    private int rowCount;

    @SuppressWarnings("unchecked")
    TpchRowBuffer(TpchTable<E> table, int expectedRows)
    {
        requireNonNull(table, "table is null");
        this.columns = table.getColumns();
        int capacity = Math.max(MIN_CAPACITY, expectedRows);
        this.values = new ColumnValues[columns.size()];
        for (int i = 0; i < columns.size(); i++) {
            values[i] = ColumnValues.create(columns.get(i), capacity);
        }
    }

    void append(E row)
    {
        for (ColumnValues<E> column : values) {
            column.append(row, rowCount);
        }
        rowCount++;
    }

    int rowCount()
    {
        return rowCount;
    }

    /** Bytes of the arrays held, whether filled or not: what this buffer costs the heap. */
    long retainedBytes()
    {
        long bytes = 0;
        for (ColumnValues<E> column : values) {
            bytes += column.retainedBytes();
        }
        return bytes;
    }

    /** The value of a date or integer column in one row. */
    int intValue(int column, int row)
    {
        checkIndex(row, rowCount);
        return intValues(column).values[row];
    }

    /** Appends one row in the layout {@link SortedRunReader} reads: see {@link SortedRunWriter}. */
    void writeRow(int row, SliceOutput output)
    {
        checkIndex(row, rowCount);
        for (ColumnValues<E> column : values) {
            column.write(row, output);
        }
    }

    void clear()
    {
        rowCount = 0;
        for (ColumnValues<E> column : values) {
            column.clear();
        }
    }

    /**
     * Row positions ordered by the named date or integer column; rows with equal keys keep their
     * generator order. A counting sort: TPC-H dates span only 2,557 days.
     */
    int[] stableOrderBy(int column)
    {
        IntValues<E> keys = intValues(column);
        int[] order = new int[rowCount];
        if (rowCount == 0) {
            return order;
        }
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (int row = 0; row < rowCount; row++) {
            min = Math.min(min, keys.values[row]);
            max = Math.max(max, keys.values[row]);
        }
        checkArgument((long) max - min < 1_000_000, "Key range of %s too wide for a counting sort", columns.get(column).getColumnName());
        int[] starts = new int[max - min + 2];
        for (int row = 0; row < rowCount; row++) {
            starts[keys.values[row] - min + 1]++;
        }
        for (int key = 1; key < starts.length; key++) {
            starts[key] += starts[key - 1];
        }
        for (int row = 0; row < rowCount; row++) {
            order[starts[keys.values[row] - min]++] = row;
        }
        return order;
    }

    /** The rows {@code order[from] .. order[to - 1]} as a page; {@code order} null means buffer order. */
    Page page(int[] order, int from, int to)
    {
        checkFromToIndex(from, to, order == null ? rowCount : order.length);
        Block[] blocks = new Block[values.length];
        for (int i = 0; i < values.length; i++) {
            blocks[i] = values[i].toBlock(order, from, to);
        }
        return new Page(to - from, blocks);
    }

    private IntValues<E> intValues(int column)
    {
        if (!(values[column] instanceof IntValues<E> ints)) {
            throw new IllegalArgumentException("Column %s is not a date or integer column".formatted(columns.get(column).getColumnName()));
        }
        return ints;
    }

    int columnIndex(String columnName)
    {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).getColumnName().equals(columnName)) {
                return i;
            }
        }
        throw new IllegalArgumentException("No column " + columnName);
    }

    private static int position(int[] order, int index)
    {
        return order == null ? index : order[index];
    }

    private static int grow(int current, int needed)
    {
        long grown = Math.max(needed, current + (current >> 1));
        // arrays cannot exceed this size; a buffer that needs more holds too many rows anyway
        if (grown > Integer.MAX_VALUE - 8) {
            if (needed > Integer.MAX_VALUE - 8) {
                throw new IllegalStateException("Too many rows to buffer: a column exceeds 2 GB; sort in smaller runs");
            }
            return Integer.MAX_VALUE - 8;
        }
        return (int) grown;
    }

    private sealed interface ColumnValues<E extends TpchEntity>
            permits LongValues, IntValues, DoubleValues, StringValues
    {
        static <E extends TpchEntity> ColumnValues<E> create(TpchColumn<E> column, int capacity)
        {
            return switch (column.getType().getBase()) {
                case IDENTIFIER -> new LongValues<>(column, capacity);
                case INTEGER, DATE -> new IntValues<>(column, capacity);
                case DOUBLE -> new DoubleValues<>(column, capacity);
                case VARCHAR -> new StringValues<>(column, (VarcharType) TpchColumns.trinoType(column), capacity);
            };
        }

        void append(E row, int position);

        default void clear() {}

        Block toBlock(int[] order, int from, int to);

        void write(int position, SliceOutput output);

        long retainedBytes();
    }

    private static final class LongValues<E extends TpchEntity>
            implements ColumnValues<E>
    {
        private final TpchColumn<E> column;
        private long[] values;

        LongValues(TpchColumn<E> column, int capacity)
        {
            this.column = column;
            this.values = new long[capacity];
        }

        @Override
        public void append(E row, int position)
        {
            if (position == values.length) {
                values = Arrays.copyOf(values, grow(values.length, position + 1));
            }
            values[position] = column.getIdentifier(row);
        }

        @Override
        public Block toBlock(int[] order, int from, int to)
        {
            long[] block = new long[to - from];
            for (int i = from; i < to; i++) {
                block[i - from] = values[position(order, i)];
            }
            return new LongArrayBlock(block.length, Optional.empty(), block);
        }

        @Override
        public void write(int position, SliceOutput output)
        {
            output.writeLong(values[position]);
        }

        @Override
        public long retainedBytes()
        {
            return (long) values.length * Long.BYTES;
        }
    }

    /** INTEGER columns and DATE columns (days since the epoch, as Trino stores DATE). */
    private static final class IntValues<E extends TpchEntity>
            implements ColumnValues<E>
    {
        private final TpchColumn<E> column;
        private final boolean date;
        private int[] values;

        IntValues(TpchColumn<E> column, int capacity)
        {
            this.column = column;
            this.date = column.getType().getBase() == DATE;
            this.values = new int[capacity];
        }

        @Override
        public void append(E row, int position)
        {
            if (position == values.length) {
                values = Arrays.copyOf(values, grow(values.length, position + 1));
            }
            values[position] = date ? column.getDate(row) : column.getInteger(row);
        }

        @Override
        public Block toBlock(int[] order, int from, int to)
        {
            int[] block = new int[to - from];
            for (int i = from; i < to; i++) {
                block[i - from] = values[position(order, i)];
            }
            return new IntArrayBlock(block.length, Optional.empty(), block);
        }

        @Override
        public void write(int position, SliceOutput output)
        {
            output.writeInt(values[position]);
        }

        @Override
        public long retainedBytes()
        {
            return (long) values.length * Integer.BYTES;
        }
    }

    private static final class DoubleValues<E extends TpchEntity>
            implements ColumnValues<E>
    {
        private final TpchColumn<E> column;
        private double[] values;

        DoubleValues(TpchColumn<E> column, int capacity)
        {
            this.column = column;
            this.values = new double[capacity];
        }

        @Override
        public void append(E row, int position)
        {
            if (position == values.length) {
                values = Arrays.copyOf(values, grow(values.length, position + 1));
            }
            values[position] = column.getDouble(row);
        }

        @Override
        public Block toBlock(int[] order, int from, int to)
        {
            BlockBuilder builder = DOUBLE.createFixedSizeBlockBuilder(to - from);
            for (int i = from; i < to; i++) {
                DOUBLE.writeDouble(builder, values[position(order, i)]);
            }
            return builder.build();
        }

        @Override
        public void write(int position, SliceOutput output)
        {
            output.writeDouble(values[position]);
        }

        @Override
        public long retainedBytes()
        {
            return (long) values.length * Double.BYTES;
        }
    }

    private static final class StringValues<E extends TpchEntity>
            implements ColumnValues<E>
    {
        private final TpchColumn<E> column;
        private final VarcharType type;
        private byte[] bytes;
        // offsets[i] is where row i starts; offsets[i + 1] where it ends
        private int[] offsets;

        StringValues(TpchColumn<E> column, VarcharType type, int capacity)
        {
            this.column = column;
            this.type = type;
            // TPC-H strings average well under 16 bytes across a table's text columns
            this.bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(MIN_CAPACITY, capacity) * 8L)];
            this.offsets = new int[capacity + 1];
        }

        @Override
        public void append(E row, int position)
        {
            byte[] value = column.getString(row).getBytes(UTF_8);
            if (position + 1 == offsets.length) {
                offsets = Arrays.copyOf(offsets, grow(offsets.length, position + 2));
            }
            int start = offsets[position];
            long end = (long) start + value.length;
            if (end > bytes.length) {
                if (end > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("Too many rows to buffer: column %s exceeds 2 GB; sort in smaller runs".formatted(column.getColumnName()));
                }
                bytes = Arrays.copyOf(bytes, grow(bytes.length, (int) end));
            }
            System.arraycopy(value, 0, bytes, start, value.length);
            offsets[position + 1] = (int) end;
        }

        @Override
        public Block toBlock(int[] order, int from, int to)
        {
            Slice data = Slices.wrappedBuffer(bytes);
            BlockBuilder builder = type.createBlockBuilder(null, to - from);
            for (int i = from; i < to; i++) {
                int row = position(order, i);
                type.writeSlice(builder, data, offsets[row], offsets[row + 1] - offsets[row]);
            }
            return builder.build();
        }

        @Override
        public void write(int position, SliceOutput output)
        {
            int length = offsets[position + 1] - offsets[position];
            SortedRunWriter.writeLength(output, length);
            output.writeBytes(bytes, offsets[position], length);
        }

        @Override
        public long retainedBytes()
        {
            return bytes.length + (long) offsets.length * Integer.BYTES;
        }
    }
}
