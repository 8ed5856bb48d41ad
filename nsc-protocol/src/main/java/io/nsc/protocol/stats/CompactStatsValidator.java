package io.nsc.protocol.stats;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;

import java.util.Arrays;

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
import static io.nsc.protocol.stats.CompactStatsLayout.FILTER_VALUE_TYPES;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_LENGTH_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.FOOTER_OFFSET_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.INT;
import static io.nsc.protocol.stats.CompactStatsLayout.KEY_KINDS;
import static io.nsc.protocol.stats.CompactStatsLayout.LONG;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_BITMAP;
import static io.nsc.protocol.stats.CompactStatsLayout.PRESENCE_NONE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.ROWS_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_HEADER_SIZE;
import static io.nsc.protocol.stats.CompactStatsLayout.bitmapBytes;
import static io.nsc.protocol.stats.CompactStatsLayout.columnPosition;
import static io.nsc.protocol.stats.CompactStatsLayout.filterOrder;
import static io.nsc.protocol.stats.CompactStatsLayout.minMaxPresent;
import static io.nsc.protocol.stats.CompactStatsLayout.readUnsigned;
import static io.nsc.protocol.stats.CompactStatsLayout.rowGroupsStart;

/**
 * Checks an encoding of version 3 before anything reads it with absolute offsets: every
 * position and width lies inside the bytes, and what it says is consistent (row counts add
 * up, min &lt;= max, null counts within their row group). The encodings come from storage nodes
 * and catalogs, so they are untrusted: a corrupt one is refused with what is wrong, never read.
 */
final class CompactStatsValidator
{
    private final byte[] encoded;
    private final int columnCount;
    private final int rowGroupCount;

    private CompactStatsValidator(byte[] encoded, int columnCount, int rowGroupCount)
    {
        this.encoded = encoded;
        this.columnCount = columnCount;
        this.rowGroupCount = rowGroupCount;
    }

    /**
     * Answers where the filter section starts, which only the widths of everything before it tell.
     *
     * @throws IllegalArgumentException when the bytes are not a valid encoding, with what is wrong
     */
    static int validate(byte[] encoded)
    {
        int columnCount = (int) INT.get(encoded, COLUMN_COUNT_OFFSET);
        int rowGroupCount = (int) INT.get(encoded, ROW_GROUP_COUNT_OFFSET);
        if (columnCount < 0 || rowGroupCount < 0) {
            throw invalid("negative counts (columns %s, row groups %s)", columnCount, rowGroupCount);
        }
        // every column takes a descriptor and every row group at least a byte (its offset), so
        // counts the bytes cannot hold are refused before anything is allocated or multiplied
        long fixed = HEADER_SIZE + (long) columnCount * COLUMN_SIZE + ROW_GROUP_HEADER_SIZE + rowGroupCount + Integer.BYTES;
        if (fixed > encoded.length) {
            throw invalid("%s columns and %s row groups need at least %s bytes, found %s (truncated or corrupt)", columnCount, rowGroupCount, fixed, encoded.length);
        }
        long footerOffset = (long) LONG.get(encoded, FOOTER_OFFSET_OFFSET);
        int footerLength = (int) INT.get(encoded, FOOTER_LENGTH_OFFSET);
        if (footerOffset < -1 || footerLength < -1 || (footerOffset == -1) != (footerLength == -1)) {
            throw invalid("bad footer position (offset %s, length %s)", footerOffset, footerLength);
        }
        return new CompactStatsValidator(encoded, columnCount, rowGroupCount).validateBody();
    }

    private int validateBody()
    {
        long[] rowGroupRows = validateRowGroups();
        long fewestRows = Arrays.stream(rowGroupRows).min().orElse(0);
        int rowGroupsStart = rowGroupsStart(columnCount);
        long position = rowGroupsStart + ROW_GROUP_HEADER_SIZE
                + (long) rowGroupCount * (encoded[rowGroupsStart + ROWS_WIDTH] + encoded[rowGroupsStart + OFFSET_WIDTH]);
        for (int column = 0; column < columnCount; column++) {
            position = validateColumn(column, position, rowGroupRows, fewestRows);
        }
        int filtersStart = (int) position;
        validateFilters(encoded, filtersStart, columnCount, rowGroupCount, 0);
        return filtersStart;
    }

    private long[] validateRowGroups()
    {
        int start = rowGroupsStart(columnCount);
        long rowsBase = (long) LONG.get(encoded, start + ROWS_BASE);
        byte rowsWidth = encoded[start + ROWS_WIDTH];
        long offsetBase = (long) LONG.get(encoded, start + OFFSET_BASE);
        byte offsetWidth = encoded[start + OFFSET_WIDTH];
        if (rowsWidth < 0 || rowsWidth > Long.BYTES || offsetWidth < 1 || offsetWidth > Long.BYTES) {
            throw invalid("row group widths %s and %s outside [0, 8] and [1, 8]", rowsWidth, offsetWidth);
        }
        if (rowsBase < 0 || offsetBase < 0) {
            throw invalid("negative row group bases (rows %s, offset %s)", rowsBase, offsetBase);
        }
        long end = start + ROW_GROUP_HEADER_SIZE + (long) rowGroupCount * (rowsWidth + offsetWidth);
        if (end + Integer.BYTES > encoded.length) {
            throw invalid("%s row groups need %s bytes, found %s (truncated or corrupt)", rowGroupCount, end + Integer.BYTES, encoded.length);
        }
        long[] rows = new long[rowGroupCount];
        long totalRows = 0;
        int position = start + ROW_GROUP_HEADER_SIZE;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            rows[rowGroup] = addWithin(rowsBase, readUnsigned(encoded, position, rowsWidth), Long.MAX_VALUE, "row group %s: row count", rowGroup);
            addWithin(offsetBase, readUnsigned(encoded, position + rowsWidth, offsetWidth), Long.MAX_VALUE, "row group %s: offset", rowGroup);
            totalRows = addWithin(totalRows, rows[rowGroup], Long.MAX_VALUE, "row count of row groups 0 to %s", rowGroup);
            position += rowsWidth + offsetWidth;
        }
        long rowCount = (long) LONG.get(encoded, ROW_COUNT_OFFSET);
        if (rowCount != totalRows) {
            throw invalid("row count %s differs from the sum over row groups %s", rowCount, totalRows);
        }
        return rows;
    }

    private long validateColumn(int column, long expectedStart, long[] rowGroupRows, long fewestRows)
    {
        int descriptor = columnPosition(column);
        byte kind = encoded[descriptor + COLUMN_KIND];
        byte presence = encoded[descriptor + COLUMN_PRESENCE];
        long minBase = (long) LONG.get(encoded, descriptor + COLUMN_MIN_BASE);
        byte minWidth = encoded[descriptor + COLUMN_MIN_WIDTH];
        byte rangeWidth = encoded[descriptor + COLUMN_RANGE_WIDTH];
        int sizeBase = (int) INT.get(encoded, descriptor + COLUMN_SIZE_BASE);
        byte sizeWidth = encoded[descriptor + COLUMN_SIZE_WIDTH];
        int nullBase = (int) INT.get(encoded, descriptor + COLUMN_NULL_BASE);
        byte nullWidth = encoded[descriptor + COLUMN_NULL_WIDTH];
        int chunksStart = (int) INT.get(encoded, descriptor + COLUMN_CHUNKS);
        if (kind < 0 || kind >= KEY_KINDS.length) {
            throw invalid("column %s: unknown key kind %s", column, kind);
        }
        if (presence < PRESENCE_NONE || presence > PRESENCE_BITMAP) {
            throw invalid("column %s: unknown min/max presence %s", column, presence);
        }
        if (presence != PRESENCE_NONE && KEY_KINDS[kind] == KeyKind.NONE) {
            throw invalid("column %s: min/max present for key kind NONE", column);
        }
        if (presence == PRESENCE_NONE && (minBase != 0 || minWidth != 0 || rangeWidth != 0)) {
            throw invalid("column %s: min/max bytes without min/max", column);
        }
        if (minWidth < 0 || minWidth > Long.BYTES || rangeWidth < 0 || rangeWidth > Long.BYTES
                || sizeWidth < 0 || sizeWidth > Integer.BYTES || nullWidth < 0 || nullWidth > Integer.BYTES) {
            throw invalid("column %s: widths %s, %s, %s, %s outside [0, 8], [0, 8], [0, 4], [0, 4]", column, minWidth, rangeWidth, sizeWidth, nullWidth);
        }
        if (sizeBase < 0 || nullBase < 0) {
            throw invalid("column %s: negative size base %s or null base %s", column, sizeBase, nullBase);
        }
        if (chunksStart != expectedStart) {
            throw invalid("column %s: chunks said to start at %s, not where the previous ones end (%s)", column, chunksStart, expectedStart);
        }
        int stride = minWidth + rangeWidth + sizeWidth + nullWidth;
        long end = expectedStart + bitmapBytes(presence, rowGroupCount) + (long) rowGroupCount * stride;
        if (end + Integer.BYTES > encoded.length) {
            throw invalid("column %s: %s row groups need %s bytes, found %s (truncated or corrupt)", column, rowGroupCount, end + Integer.BYTES, encoded.length);
        }
        if (presence == PRESENCE_BITMAP) {
            validateBitmapPadding(column, chunksStart);
        }
        if (stride == 0) {
            // every chunk of the column is alike: one check stands for all
            validateChunk(column, -1, presence != PRESENCE_NONE, minBase, 0, sizeBase, nullBase - 1L, fewestRows);
            return end;
        }
        int position = chunksStart + bitmapBytes(presence, rowGroupCount);
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            boolean present = minMaxPresent(encoded, presence, chunksStart, rowGroup);
            long minOffset = readUnsigned(encoded, position, minWidth);
            long range = readUnsigned(encoded, position + minWidth, rangeWidth);
            if (!present && (minOffset != 0 || range != 0)) {
                throw invalid("row group %s column %s: min/max bytes set without min/max", rowGroup, column);
            }
            long min = addWithin(minBase, minOffset, Long.MAX_VALUE, "row group %s column %s: min", rowGroup, column);
            long size = sizeBase + readUnsigned(encoded, position + minWidth + rangeWidth, sizeWidth);
            long nullCount = nullBase + readUnsigned(encoded, position + minWidth + rangeWidth + sizeWidth, nullWidth) - 1;
            validateChunk(column, rowGroup, present, min, range, size, nullCount, rowGroupRows[rowGroup]);
            position += stride;
        }
        return end;
    }

    private void validateChunk(int column, int rowGroup, boolean present, long min, long range, long size, long nullCount, long rows)
    {
        if (present) {
            addWithin(min, range, Long.MAX_VALUE, "row group %s column %s: max", rowGroup, column);
        }
        if (size > Integer.MAX_VALUE) {
            throw invalid("row group %s column %s: compressed size %s exceeds %s", rowGroup, column, size, Integer.MAX_VALUE);
        }
        if (nullCount < -1 || nullCount > rows) {
            throw invalid("row group %s column %s: null count %s outside [-1, %s]", rowGroup, column, nullCount, rows);
        }
    }

    private void validateBitmapPadding(int column, int bitmapStart)
    {
        int bitsInLastByte = rowGroupCount & 7;
        if (bitsInLastByte != 0 && (encoded[bitmapStart + (rowGroupCount >>> 3)] & 0xFF) >>> bitsInLastByte != 0) {
            throw invalid("column %s: presence bits set past the last row group", column);
        }
    }

    /**
     * {@code base + unsigned}, refused when the sum passes {@code limit} (or Long's range).
     */
    @FormatMethod
    private static long addWithin(long base, long unsigned, long limit, @FormatString String what, Object... arguments)
    {
        if (Long.compareUnsigned(unsigned, limit - base) > 0) {
            throw invalid("%s overflows", what.formatted(arguments));
        }
        return base + unsigned;
    }

    /**
     * Checks the filter section at {@code start}, which runs to the end of the encoding: entries
     * in order, inside the table, each bitset where the previous one ends.
     */
    static void validateFilters(byte[] encoded, int start, int columnCount, int rowGroupCount, int fewestFilters)
    {
        int count = (int) INT.get(encoded, start);
        if (count < fewestFilters || count > (encoded.length - start - Integer.BYTES) / FILTER_ENTRY_SIZE) {
            throw invalid("filter count %s does not fit the %s bytes left", count, encoded.length - start - Integer.BYTES);
        }
        long previousOrder = -1;
        long bitsetStart = start + Integer.BYTES + (long) count * FILTER_ENTRY_SIZE;
        for (int filter = 0; filter < count; filter++) {
            int position = start + Integer.BYTES + filter * FILTER_ENTRY_SIZE;
            int rowGroup = (int) INT.get(encoded, position + FILTER_ROW_GROUP);
            int column = (int) INT.get(encoded, position + FILTER_COLUMN);
            byte valueType = encoded[position + FILTER_VALUE_TYPE];
            int offset = (int) INT.get(encoded, position + FILTER_OFFSET);
            int length = (int) INT.get(encoded, position + FILTER_LENGTH);
            if (rowGroup < 0 || rowGroup >= rowGroupCount || column < 0 || column >= columnCount) {
                throw invalid("filter %s: row group %s column %s outside the %s row groups and %s columns", filter, rowGroup, column, rowGroupCount, columnCount);
            }
            long order = filterOrder(column, rowGroup);
            if (order <= previousOrder) {
                throw invalid("filter %s: row group %s column %s is out of order or repeated", filter, rowGroup, column);
            }
            previousOrder = order;
            if (valueType < 0 || valueType >= FILTER_VALUE_TYPES.length) {
                throw invalid("filter %s: unknown value type %s", filter, valueType);
            }
            if (offset != bitsetStart || !SplitBlockBloomFilter.isValidLength(length) || length > encoded.length - bitsetStart) {
                throw invalid("filter %s: bitset of %s bytes at %s is not where the previous one ends (%s) or does not fit", filter, length, offset, bitsetStart);
            }
            bitsetStart += length;
        }
        if (bitsetStart != encoded.length) {
            throw invalid("%s bytes follow the last filter", encoded.length - bitsetStart);
        }
    }

    @FormatMethod
    static IllegalArgumentException invalid(@FormatString String format, Object... arguments)
    {
        return new IllegalArgumentException("Invalid compact stats: " + format.formatted(arguments));
    }
}
