package io.nsc.parquet;

import io.airlift.slice.BasicSliceInput;
import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;
import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.Util;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Verify.verify;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * The Parquet page index of one flat column chunk: its offset index (where each data page starts
 * and its first row) and, for the types whose page statistics trino-parquet compares, its column
 * index (each page's min, max and null count).
 *
 * <p>trino-parquet's writer writes neither, and keeps its per-page statistics to itself, so the
 * pages are found by reading back the page headers of the encoded chunk, and each page's min and
 * max is computed from the rows it holds. That is exact for flat columns only, where a data
 * page's value count is its row count; nested columns get no page index.
 *
 * <p>A chunk gets no column index (an offset index still) when a page holds a NaN, whose place
 * in an order Parquet readers disagree on, or a string longer than {@link #MAX_STRING_BOUND}
 * bytes at a page's maximum: a truncated maximum would have to be rounded up, and the index is
 * better missing than large.
 */
final class PageIndexBuilder
{
    static final int MAX_STRING_BOUND = 64;

    private PageIndexBuilder() {}

    record PageIndex(OffsetIndex offsetIndex, Optional<ColumnIndex> columnIndex) {}

    /**
     * @param encodedFile the file the chunk was encoded into
     * @param chunk the chunk's metadata, its offsets into {@code encodedFile}
     * @param shift what moves an offset in {@code encodedFile} to the offset in the written file
     * @param blocks the chunk's rows, in order, over as many blocks as the row group's pages
     */
    static PageIndex build(Slice encodedFile, ColumnMetaData chunk, long shift, Type type, PrimitiveTypeName physicalType, List<Block> blocks)
    {
        List<DataPage> pages = dataPages(encodedFile, chunk);
        OffsetIndex offsetIndex = new OffsetIndex(pages.stream()
                .map(page -> new PageLocation(page.offset() + shift, page.size(), page.firstRow()))
                .collect(toImmutableList()));
        Optional<ColumnIndex> columnIndex = Optional.ofNullable(ValueKind.of(type, physicalType))
                .flatMap(kind -> columnIndex(kind, type, pages, new Rows(blocks)));
        return new PageIndex(offsetIndex, columnIndex);
    }

    private record DataPage(long offset, int size, long firstRow, int rows) {}

    private static List<DataPage> dataPages(Slice encodedFile, ColumnMetaData chunk)
    {
        long start = chunk.isSetDictionary_page_offset() ? Math.min(chunk.getDictionary_page_offset(), chunk.getData_page_offset()) : chunk.getData_page_offset();
        long end = start + chunk.getTotal_compressed_size();
        BasicSliceInput input = encodedFile.getInput();
        input.setPosition(start);
        List<DataPage> pages = new ArrayList<>();
        long rows = 0;
        while (input.position() < end) {
            long pageStart = input.position();
            PageHeader header = readPageHeader(input);
            int size = toIntExact(input.position() - pageStart) + header.getCompressed_page_size();
            input.setPosition(pageStart + size);
            int pageRows = switch (header.getType()) {
                case DATA_PAGE -> header.getData_page_header().getNum_values();
                case DATA_PAGE_V2 -> header.getData_page_header_v2().getNum_rows();
                default -> -1;
            };
            if (pageRows >= 0) {
                pages.add(new DataPage(pageStart, size, rows, pageRows));
                rows += pageRows;
            }
        }
        verify(input.position() == end, "column chunk pages end at %s, not at %s", input.position(), end);
        verify(rows == chunk.getNum_values(), "column chunk pages hold %s values, the chunk %s", rows, chunk.getNum_values());
        return pages;
    }

    private static PageHeader readPageHeader(BasicSliceInput input)
    {
        try {
            return Util.readPageHeader(input);
        }
        catch (IOException e) {
            // the chunk was encoded in memory a moment ago: its headers cannot be unreadable
            throw new IllegalStateException("cannot read back a page header just written", e);
        }
    }

    private static Optional<ColumnIndex> columnIndex(ValueKind kind, Type type, List<DataPage> pages, Rows rows)
    {
        List<Boolean> nullPages = new ArrayList<>(pages.size());
        List<Long> nullCounts = new ArrayList<>(pages.size());
        List<ByteBuffer> mins = new ArrayList<>(pages.size());
        List<ByteBuffer> maxes = new ArrayList<>(pages.size());
        PageBounds previous = null;
        boolean ascending = true;
        boolean descending = true;
        for (DataPage page : pages) {
            PageBounds bounds = kind.bounds(type, rows, page.firstRow(), page.rows());
            if (bounds == null) {
                return Optional.empty();
            }
            nullCounts.add(bounds.nulls());
            nullPages.add(bounds.min() == null);
            mins.add(ByteBuffer.wrap(bounds.min() == null ? new byte[0] : bounds.min()));
            maxes.add(ByteBuffer.wrap(bounds.max() == null ? new byte[0] : bounds.max()));
            if (bounds.min() != null) {
                if (previous != null) {
                    ascending &= kind.compare(previous.min(), bounds.min()) <= 0 && kind.compare(previous.max(), bounds.max()) <= 0;
                    descending &= kind.compare(previous.min(), bounds.min()) >= 0 && kind.compare(previous.max(), bounds.max()) >= 0;
                }
                previous = bounds;
            }
        }
        BoundaryOrder order = ascending ? BoundaryOrder.ASCENDING : descending ? BoundaryOrder.DESCENDING : BoundaryOrder.UNORDERED;
        ColumnIndex index = new ColumnIndex(nullPages, mins, maxes, order);
        index.setNull_counts(nullCounts);
        return Optional.of(index);
    }

    /** A page's bounds in Parquet's plain encoding; both null for a page of nulls only. */
    private record PageBounds(byte[] min, byte[] max, long nulls) {}

    /** The rows of a row group over its pages' blocks, addressed by the row's number in the group. */
    private static final class Rows
    {
        private final List<Block> blocks;

        Rows(List<Block> blocks)
        {
            this.blocks = requireNonNull(blocks, "blocks is null");
        }

        /**
         * Shows the visitor each non-null value of rows {@code first} to {@code first + count - 1};
         * returns the nulls among them, or -1 once the visitor refuses a value.
         */
        long visit(long first, int count, ValueVisitor visitor)
        {
            long nulls = 0;
            long end = first + count;
            long blockStart = 0;
            for (Block block : blocks) {
                long blockEnd = blockStart + block.getPositionCount();
                for (long row = Math.max(first, blockStart); row < Math.min(end, blockEnd); row++) {
                    int position = toIntExact(row - blockStart);
                    if (block.isNull(position)) {
                        nulls++;
                    }
                    else if (!visitor.accept(block, position)) {
                        return -1;
                    }
                }
                blockStart = blockEnd;
            }
            return nulls;
        }
    }

    private interface ValueVisitor
    {
        /** False when the value leaves the page without a safe bound. */
        boolean accept(Block block, int position);
    }

    private enum ValueKind
    {
        INT32 {
            @Override
            PageBounds bounds(Type type, Rows rows, long first, int count)
            {
                return longBounds(type, rows, first, count, Integer.BYTES);
            }

            @Override
            int compare(byte[] left, byte[] right)
            {
                return Integer.compare(littleEndian(left).getInt(), littleEndian(right).getInt());
            }
        },
        INT64 {
            @Override
            PageBounds bounds(Type type, Rows rows, long first, int count)
            {
                return longBounds(type, rows, first, count, Long.BYTES);
            }

            @Override
            int compare(byte[] left, byte[] right)
            {
                return Long.compare(littleEndian(left).getLong(), littleEndian(right).getLong());
            }
        },
        FLOAT {
            @Override
            PageBounds bounds(Type type, Rows rows, long first, int count)
            {
                return doubleBounds(rows, first, count, (block, position) -> Float.intBitsToFloat((int) type.getLong(block, position)), true);
            }

            @Override
            int compare(byte[] left, byte[] right)
            {
                return Float.compare(littleEndian(left).getFloat(), littleEndian(right).getFloat());
            }
        },
        DOUBLE {
            @Override
            PageBounds bounds(Type type, Rows rows, long first, int count)
            {
                return doubleBounds(rows, first, count, type::getDouble, false);
            }

            @Override
            int compare(byte[] left, byte[] right)
            {
                return Double.compare(littleEndian(left).getDouble(), littleEndian(right).getDouble());
            }
        },
        STRING {
            @Override
            PageBounds bounds(Type type, Rows rows, long first, int count)
            {
                return stringBounds(type, rows, first, count);
            }

            @Override
            int compare(byte[] left, byte[] right)
            {
                return Arrays.compareUnsigned(left, right);
            }
        };

        abstract PageBounds bounds(Type type, Rows rows, long first, int count);

        /** Compares two bounds of this kind as Parquet orders them. */
        abstract int compare(byte[] left, byte[] right);

        /** The kind of a column's page bounds, or null when it gets no column index. */
        static ValueKind of(Type type, PrimitiveTypeName physicalType)
        {
            boolean integral = type instanceof BigintType || type instanceof IntegerType || type instanceof SmallintType
                    || type instanceof TinyintType || type instanceof DateType
                    || (type instanceof DecimalType decimal && decimal.isShort());
            return switch (physicalType) {
                case INT32 -> integral ? INT32 : null;
                case INT64 -> integral ? INT64 : null;
                case FLOAT -> type instanceof RealType ? FLOAT : null;
                case DOUBLE -> type instanceof DoubleType ? DOUBLE : null;
                case BINARY -> type instanceof VarcharType ? STRING : null;
                default -> null;
            };
        }
    }

    private interface DoubleReader
    {
        double read(Block block, int position);
    }

    private static PageBounds longBounds(Type type, Rows rows, long first, int count, int width)
    {
        long[] range = {Long.MAX_VALUE, Long.MIN_VALUE};
        long nulls = rows.visit(first, count, (block, position) -> {
            long value = type.getLong(block, position);
            range[0] = Math.min(range[0], value);
            range[1] = Math.max(range[1], value);
            return true;
        });
        if (nulls == count) {
            return new PageBounds(null, null, nulls);
        }
        return width == Integer.BYTES
                ? new PageBounds(littleEndian(Integer.BYTES).putInt(toIntExact(range[0])).array(), littleEndian(Integer.BYTES).putInt(toIntExact(range[1])).array(), nulls)
                : new PageBounds(littleEndian(Long.BYTES).putLong(range[0]).array(), littleEndian(Long.BYTES).putLong(range[1]).array(), nulls);
    }

    private static PageBounds doubleBounds(Rows rows, long first, int count, DoubleReader reader, boolean single)
    {
        double[] range = {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        long nulls = rows.visit(first, count, (block, position) -> {
            double value = reader.read(block, position);
            range[0] = Math.min(range[0], value);
            range[1] = Math.max(range[1], value);
            return !Double.isNaN(value);
        });
        if (nulls < 0) {
            return null;
        }
        if (nulls == count) {
            return new PageBounds(null, null, nulls);
        }
        // Parquet asks for a zero bound to be written as -0.0 when it is the minimum and +0.0 as the maximum
        double min = range[0] == 0 ? -0.0 : range[0];
        double max = range[1] == 0 ? 0.0 : range[1];
        return single
                ? new PageBounds(littleEndian(Float.BYTES).putFloat((float) min).array(), littleEndian(Float.BYTES).putFloat((float) max).array(), nulls)
                : new PageBounds(littleEndian(Double.BYTES).putDouble(min).array(), littleEndian(Double.BYTES).putDouble(max).array(), nulls);
    }

    private static PageBounds stringBounds(Type type, Rows rows, long first, int count)
    {
        Slice[] range = new Slice[2];
        long nulls = rows.visit(first, count, (block, position) -> {
            Slice value = type.getSlice(block, position);
            if (range[0] == null || value.compareTo(range[0]) < 0) {
                range[0] = value;
            }
            if (range[1] == null || value.compareTo(range[1]) > 0) {
                range[1] = value;
            }
            return true;
        });
        if (nulls == count) {
            return new PageBounds(null, null, nulls);
        }
        if (range[1].length() > MAX_STRING_BOUND) {
            return null;
        }
        // a prefix of the minimum is still a lower bound of every value in the page
        return new PageBounds(range[0].getBytes(0, Math.min(range[0].length(), MAX_STRING_BOUND)), range[1].getBytes(), nulls);
    }

    private static ByteBuffer littleEndian(int size)
    {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer littleEndian(byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }
}
