package io.nsc.protocol.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;

import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_CHUNKS;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_KIND;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_PRESENCE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_RANGE_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_SIZE_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_COLUMN;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_ENTRY_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_LENGTH;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_ROW_GROUP;
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_VALUE_TYPE;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_LENGTH_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_OFFSET_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.INT;
import static io.nsc.protocol.stats.CompactStatsLayout.LONG;
import static io.nsc.protocol.stats.CompactStatsLayout.MAGIC;
import static io.nsc.protocol.stats.CompactStatsLayout.MAGIC_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_ALL;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_BITMAP;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_NONE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.VERSION_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.VERSION_PACKED;
import static io.nsc.protocol.stats.CompactStatsLayout.bitmapBytes;
import static io.nsc.protocol.stats.CompactStatsLayout.columnPosition;
import static io.nsc.protocol.stats.CompactStatsLayout.filterOrder;
import static io.nsc.protocol.stats.CompactStatsLayout.rowGroupsStart;
import static io.nsc.protocol.stats.CompactStatsLayout.width;
import static io.nsc.protocol.stats.CompactStatsLayout.writeUnsigned;

/**
 * Writes the packed layout of {@link CompactStatsLayout}. Column chunks arrive row group by row
 * group, as a Parquet footer lists them, but are laid out column by column, and each column's
 * bases and widths depend on all its chunks: so they are held until {@link #write}. Checks
 * nothing: {@link CompactFileStats.Builder} hands over only what the layout can hold.
 */
final class CompactStatsWriter
{
    private static final int INITIAL_ROW_GROUPS = 8;

    private final KeyKind[] kinds;
    private long[] rowGroupRows = new long[INITIAL_ROW_GROUPS];
    private long[] rowGroupOffsets = new long[INITIAL_ROW_GROUPS];
    // chunks in the order added (row group by row group); write() lays them out column by column
    private long[] mins;
    private long[] maxs;
    private int[] compressedSizes;
    private int[] nullCounts;
    private boolean[] hasMinMax;
    private int rowGroupCount;
    private int chunkCount;
    private long footerOffset = -1;
    private int footerLength = -1;
    private final List<Filter> filters = new ArrayList<>();

    private record Filter(int rowGroup, int column, FilterValueType valueType, byte[] bitset) {}

    CompactStatsWriter(KeyKind[] kinds)
    {
        this.kinds = kinds;
        int chunkCapacity = Math.max(1, INITIAL_ROW_GROUPS * kinds.length);
        mins = new long[chunkCapacity];
        maxs = new long[chunkCapacity];
        compressedSizes = new int[chunkCapacity];
        nullCounts = new int[chunkCapacity];
        hasMinMax = new boolean[chunkCapacity];
    }

    int rowGroupCount()
    {
        return rowGroupCount;
    }

    /**
     * Column chunks added, over all row groups.
     */
    int chunkCount()
    {
        return chunkCount;
    }

    long rowGroupRowCount(int rowGroup)
    {
        return rowGroupRows[rowGroup];
    }

    void footer(long offset, int length)
    {
        this.footerOffset = offset;
        this.footerLength = length;
    }

    void addRowGroup(long rowCount, long fileOffset)
    {
        if (rowGroupCount == rowGroupRows.length) {
            rowGroupRows = Arrays.copyOf(rowGroupRows, rowGroupCount * 2);
            rowGroupOffsets = Arrays.copyOf(rowGroupOffsets, rowGroupCount * 2);
        }
        rowGroupRows[rowGroupCount] = rowCount;
        rowGroupOffsets[rowGroupCount] = fileOffset;
        rowGroupCount++;
    }

    /**
     * The next column chunk of the current row group; {@code compressedSize} fits an int.
     */
    void addColumnChunk(long compressedSize, OptionalLong minKey, OptionalLong maxKey, long nullCount)
    {
        ensureChunkCapacity();
        mins[chunkCount] = minKey.orElse(0);
        maxs[chunkCount] = maxKey.orElse(0);
        hasMinMax[chunkCount] = minKey.isPresent();
        compressedSizes[chunkCount] = (int) compressedSize;
        // a null count past the int range only happens in row groups of over 2^31 rows; forgetting it is safe
        nullCounts[chunkCount] = nullCount >= Integer.MAX_VALUE ? -1 : (int) nullCount;
        chunkCount++;
    }

    /**
     * The Bloom filter of a column chunk already added, at most one per chunk; the bitset is kept, not copied.
     */
    void addFilter(int rowGroup, int column, FilterValueType valueType, byte[] bitset)
    {
        filters.add(new Filter(rowGroup, column, valueType, bitset));
    }

    /**
     * The statistics of the complete row groups added.
     */
    CompactFileStats write()
    {
        long rowCount = 0;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            rowCount = Math.addExact(rowCount, rowGroupRows[rowGroup]);
        }
        ColumnPacking[] columns = new ColumnPacking[kinds.length];
        for (int column = 0; column < kinds.length; column++) {
            columns[column] = packColumn(column);
        }
        Packing rows = Packing.of(rowGroupRows, rowGroupCount, 0);
        Packing offsets = Packing.of(rowGroupOffsets, rowGroupCount, 1);

        long size = HEADER_SIZE + (long) kinds.length * COLUMN_SIZE + ROW_GROUP_HEADER_SIZE + (long) rowGroupCount * (rows.width() + offsets.width());
        for (ColumnPacking column : columns) {
            size += column.bytes(rowGroupCount);
        }
        size += Integer.BYTES + (long) filters.size() * FILTER_ENTRY_SIZE + filters.stream().mapToLong(filter -> filter.bitset().length).sum();
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("compact stats of %s row groups and %s columns are too large".formatted(rowGroupCount, kinds.length));
        }
        byte[] encoded = new byte[(int) size];
        INT.set(encoded, MAGIC_OFFSET, MAGIC);
        encoded[VERSION_OFFSET] = VERSION_PACKED;
        INT.set(encoded, COLUMN_COUNT_OFFSET, kinds.length);
        INT.set(encoded, ROW_GROUP_COUNT_OFFSET, rowGroupCount);
        LONG.set(encoded, ROW_COUNT_OFFSET, rowCount);
        LONG.set(encoded, FOOTER_OFFSET_OFFSET, footerOffset);
        INT.set(encoded, FOOTER_LENGTH_OFFSET, footerLength);

        int position = writeRowGroups(encoded, rowGroupsStart(kinds.length), rows, offsets);
        for (int column = 0; column < kinds.length; column++) {
            position = writeColumn(encoded, column, columns[column], position);
        }
        writeFilters(encoded, position);
        return new CompactFileStats(encoded, position);
    }

    private ColumnPacking packColumn(int column)
    {
        int present = 0;
        long minBase = Long.MAX_VALUE;
        int sizeBase = Integer.MAX_VALUE;
        int nullBase = Integer.MAX_VALUE;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            int chunk = rowGroup * kinds.length + column;
            if (hasMinMax[chunk]) {
                present++;
                minBase = Math.min(minBase, mins[chunk]);
            }
            sizeBase = Math.min(sizeBase, compressedSizes[chunk]);
            nullBase = Math.min(nullBase, nullCounts[chunk] + 1);
        }
        long largestMinOffset = 0;
        long largestRange = 0;
        long largestSize = 0;
        long largestNulls = 0;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            int chunk = rowGroup * kinds.length + column;
            if (hasMinMax[chunk]) {
                largestMinOffset = unsignedMax(largestMinOffset, mins[chunk] - minBase);
                largestRange = unsignedMax(largestRange, maxs[chunk] - mins[chunk]);
            }
            largestSize = Math.max(largestSize, compressedSizes[chunk] - sizeBase);
            largestNulls = Math.max(largestNulls, nullCounts[chunk] + 1 - nullBase);
        }
        byte presence = present == 0 ? PRESENCE_NONE : present == rowGroupCount ? PRESENCE_ALL : PRESENCE_BITMAP;
        return new ColumnPacking(
                presence,
                present == 0 ? 0 : minBase,
                width(largestMinOffset),
                width(largestRange),
                rowGroupCount == 0 ? 0 : sizeBase,
                width(largestSize),
                rowGroupCount == 0 ? 0 : nullBase,
                width(largestNulls));
    }

    private int writeRowGroups(byte[] encoded, int start, Packing rows, Packing offsets)
    {
        LONG.set(encoded, start + ROWS_BASE, rows.base());
        encoded[start + ROWS_WIDTH] = (byte) rows.width();
        LONG.set(encoded, start + OFFSET_BASE, offsets.base());
        encoded[start + OFFSET_WIDTH] = (byte) offsets.width();
        int position = start + ROW_GROUP_HEADER_SIZE;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            writeUnsigned(encoded, position, rowGroupRows[rowGroup] - rows.base(), rows.width());
            position += rows.width();
            writeUnsigned(encoded, position, rowGroupOffsets[rowGroup] - offsets.base(), offsets.width());
            position += offsets.width();
        }
        return position;
    }

    private int writeColumn(byte[] encoded, int column, ColumnPacking packing, int start)
    {
        int descriptor = columnPosition(column);
        encoded[descriptor + COLUMN_KIND] = (byte) kinds[column].ordinal();
        encoded[descriptor + COLUMN_PRESENCE] = packing.presence();
        LONG.set(encoded, descriptor + COLUMN_MIN_BASE, packing.minBase());
        encoded[descriptor + COLUMN_MIN_WIDTH] = (byte) packing.minWidth();
        encoded[descriptor + COLUMN_RANGE_WIDTH] = (byte) packing.rangeWidth();
        INT.set(encoded, descriptor + COLUMN_SIZE_BASE, packing.sizeBase());
        encoded[descriptor + COLUMN_SIZE_WIDTH] = (byte) packing.sizeWidth();
        INT.set(encoded, descriptor + COLUMN_NULL_BASE, packing.nullBase());
        encoded[descriptor + COLUMN_NULL_WIDTH] = (byte) packing.nullWidth();
        INT.set(encoded, descriptor + COLUMN_CHUNKS, start);

        int position = start;
        if (packing.presence() == PRESENCE_BITMAP) {
            for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
                if (hasMinMax[rowGroup * kinds.length + column]) {
                    encoded[start + (rowGroup >>> 3)] |= (byte) (1 << (rowGroup & 7));
                }
            }
            position += bitmapBytes(PRESENCE_BITMAP, rowGroupCount);
        }
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            int chunk = rowGroup * kinds.length + column;
            if (hasMinMax[chunk]) {
                writeUnsigned(encoded, position, mins[chunk] - packing.minBase(), packing.minWidth());
                writeUnsigned(encoded, position + packing.minWidth(), maxs[chunk] - mins[chunk], packing.rangeWidth());
            }
            position += packing.minWidth() + packing.rangeWidth();
            writeUnsigned(encoded, position, compressedSizes[chunk] - packing.sizeBase(), packing.sizeWidth());
            position += packing.sizeWidth();
            writeUnsigned(encoded, position, nullCounts[chunk] + 1L - packing.nullBase(), packing.nullWidth());
            position += packing.nullWidth();
        }
        return position;
    }

    private void writeFilters(byte[] encoded, int start)
    {
        List<Filter> ordered = filters.stream()
                .sorted(Comparator.comparingLong(filter -> filterOrder(filter.column(), filter.rowGroup())))
                .toList();
        INT.set(encoded, start, ordered.size());
        int bitsetPosition = start + Integer.BYTES + ordered.size() * FILTER_ENTRY_SIZE;
        for (int index = 0; index < ordered.size(); index++) {
            Filter filter = ordered.get(index);
            int position = start + Integer.BYTES + index * FILTER_ENTRY_SIZE;
            INT.set(encoded, position + FILTER_ROW_GROUP, filter.rowGroup());
            INT.set(encoded, position + FILTER_COLUMN, filter.column());
            encoded[position + FILTER_VALUE_TYPE] = (byte) filter.valueType().ordinal();
            INT.set(encoded, position + FILTER_OFFSET, bitsetPosition);
            INT.set(encoded, position + FILTER_LENGTH, filter.bitset().length);
            System.arraycopy(filter.bitset(), 0, encoded, bitsetPosition, filter.bitset().length);
            bitsetPosition += filter.bitset().length;
        }
    }

    private void ensureChunkCapacity()
    {
        if (chunkCount < mins.length) {
            return;
        }
        int capacity = mins.length * 2;
        mins = Arrays.copyOf(mins, capacity);
        maxs = Arrays.copyOf(maxs, capacity);
        compressedSizes = Arrays.copyOf(compressedSizes, capacity);
        nullCounts = Arrays.copyOf(nullCounts, capacity);
        hasMinMax = Arrays.copyOf(hasMinMax, capacity);
    }

    private static long unsignedMax(long left, long right)
    {
        return Long.compareUnsigned(left, right) >= 0 ? left : right;
    }

    private record Packing(long base, int width)
    {
        static Packing of(long[] values, int count, int minimumWidth)
        {
            long base = count == 0 ? 0 : Arrays.stream(values, 0, count).min().orElseThrow();
            long largest = 0;
            for (int index = 0; index < count; index++) {
                largest = Math.max(largest, values[index] - base);
            }
            return new Packing(base, Math.max(minimumWidth, CompactStatsLayout.width(largest)));
        }
    }

    private record ColumnPacking(byte presence, long minBase, int minWidth, int rangeWidth, int sizeBase, int sizeWidth, int nullBase, int nullWidth)
    {
        long bytes(int rowGroupCount)
        {
            return bitmapBytes(presence, rowGroupCount) + (long) rowGroupCount * (minWidth + rangeWidth + sizeWidth + nullWidth);
        }
    }
}
