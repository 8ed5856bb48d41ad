package io.nsc.protocol.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_COUNT_OFFSET;
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
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.ROW_GROUP_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.VERSION_OFFSET;
import static io.nsc.protocol.stats.CompactStatsValidator.invalid;
import static io.nsc.protocol.stats.CompactStatsValidator.validateFilters;

/**
 * Reads the fixed-width layout releases before packing wrote (versions 1 and 2), so catalogs and
 * storage nodes of those releases keep working: their encodings are validated and re-encoded
 * in the current layout. The same 33-byte header as version 3, then (little-endian):
 * <pre>
 * columns     one {@link KeyKind} ordinal byte per column
 * row groups  per row group: row count (long), file offset (long)
 * chunks      column-major, 25 bytes each: min key (long), max key (long), compressed size (int),
 *             null count (int, -1 unknown), flags (byte, bit 0: has min/max)
 * filters     version 2 only: filter count (int), entries and bitsets as in version 3
 * </pre>
 */
final class LegacyCompactFileStats
{
    static final byte VERSION_WITHOUT_FILTERS = 1;
    static final byte VERSION_WITH_FILTERS = 2;

    static final int ROW_GROUP_SIZE = 16;
    static final int CHUNK_SIZE = 25;
    private static final int CHUNK_MIN = 0;
    private static final int CHUNK_MAX = 8;
    private static final int CHUNK_COMPRESSED_SIZE = 16;
    private static final int CHUNK_NULL_COUNT = 20;
    private static final int CHUNK_FLAGS = 24;
    private static final byte FLAG_HAS_MIN_MAX = 1;

    private LegacyCompactFileStats() {}

    static boolean isLegacyVersion(byte version)
    {
        return version == VERSION_WITHOUT_FILTERS || version == VERSION_WITH_FILTERS;
    }

    /**
     * The same statistics in the current layout.
     *
     * @throws IllegalArgumentException when the bytes are not a valid encoding of version 1 or 2
     */
    static CompactFileStats reencode(byte[] encoded)
    {
        validate(encoded);
        int columnCount = (int) INT.get(encoded, COLUMN_COUNT_OFFSET);
        int rowGroupCount = (int) INT.get(encoded, ROW_GROUP_COUNT_OFFSET);
        List<KeyKind> kinds = new ArrayList<>(columnCount);
        for (int column = 0; column < columnCount; column++) {
            kinds.add(KEY_KINDS[encoded[HEADER_SIZE + column]]);
        }
        CompactFileStats.Builder builder = CompactFileStats.builder(kinds);
        long footerOffset = (long) LONG.get(encoded, FOOTER_OFFSET_OFFSET);
        if (footerOffset >= 0) {
            builder.footer(footerOffset, (int) INT.get(encoded, FOOTER_LENGTH_OFFSET));
        }
        int rowGroupsStart = HEADER_SIZE + columnCount;
        int chunksStart = rowGroupsStart + rowGroupCount * ROW_GROUP_SIZE;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            int position = rowGroupsStart + rowGroup * ROW_GROUP_SIZE;
            builder.addRowGroup((long) LONG.get(encoded, position), (long) LONG.get(encoded, position + Long.BYTES));
            for (int column = 0; column < columnCount; column++) {
                int chunk = chunksStart + (column * rowGroupCount + rowGroup) * CHUNK_SIZE;
                boolean hasMinMax = (encoded[chunk + CHUNK_FLAGS] & FLAG_HAS_MIN_MAX) != 0;
                builder.addColumnChunk(
                        (int) INT.get(encoded, chunk + CHUNK_COMPRESSED_SIZE),
                        hasMinMax ? OptionalLong.of((long) LONG.get(encoded, chunk + CHUNK_MIN)) : OptionalLong.empty(),
                        hasMinMax ? OptionalLong.of((long) LONG.get(encoded, chunk + CHUNK_MAX)) : OptionalLong.empty(),
                        (int) INT.get(encoded, chunk + CHUNK_NULL_COUNT));
            }
        }
        if (encoded[VERSION_OFFSET] == VERSION_WITH_FILTERS) {
            int filtersStart = chunksStart + rowGroupCount * columnCount * CHUNK_SIZE;
            int count = (int) INT.get(encoded, filtersStart);
            for (int filter = 0; filter < count; filter++) {
                int position = filtersStart + Integer.BYTES + filter * FILTER_ENTRY_SIZE;
                int offset = (int) INT.get(encoded, position + FILTER_OFFSET);
                builder.addFilter(
                        (int) INT.get(encoded, position + FILTER_ROW_GROUP),
                        (int) INT.get(encoded, position + FILTER_COLUMN),
                        FILTER_VALUE_TYPES[encoded[position + FILTER_VALUE_TYPE]],
                        Arrays.copyOfRange(encoded, offset, offset + (int) INT.get(encoded, position + FILTER_LENGTH)));
            }
        }
        return builder.build();
    }

    private static long encodedSize(int columnCount, int rowGroupCount)
    {
        return HEADER_SIZE + columnCount + (long) rowGroupCount * ROW_GROUP_SIZE + (long) rowGroupCount * columnCount * CHUNK_SIZE;
    }

    private static void validate(byte[] encoded)
    {
        byte version = encoded[VERSION_OFFSET];
        int columnCount = (int) INT.get(encoded, COLUMN_COUNT_OFFSET);
        int rowGroupCount = (int) INT.get(encoded, ROW_GROUP_COUNT_OFFSET);
        if (columnCount < 0 || rowGroupCount < 0) {
            throw invalid("negative counts (columns %s, row groups %s)", columnCount, rowGroupCount);
        }
        long expectedSize = encodedSize(columnCount, rowGroupCount);
        if (version == VERSION_WITHOUT_FILTERS ? encoded.length != expectedSize : encoded.length < expectedSize + Integer.BYTES) {
            throw invalid("%s columns and %s row groups need %s bytes, found %s (truncated or corrupt)", columnCount, rowGroupCount, expectedSize, encoded.length);
        }
        long footerOffset = (long) LONG.get(encoded, FOOTER_OFFSET_OFFSET);
        int footerLength = (int) INT.get(encoded, FOOTER_LENGTH_OFFSET);
        if (footerOffset < -1 || footerLength < -1 || (footerOffset == -1) != (footerLength == -1)) {
            throw invalid("bad footer position (offset %s, length %s)", footerOffset, footerLength);
        }

        byte[] kinds = new byte[columnCount];
        for (int column = 0; column < columnCount; column++) {
            kinds[column] = encoded[HEADER_SIZE + column];
            if (kinds[column] < 0 || kinds[column] >= KEY_KINDS.length) {
                throw invalid("column %s: unknown key kind %s", column, kinds[column]);
            }
        }

        int rowGroupsStart = HEADER_SIZE + columnCount;
        long[] rowGroupRows = new long[rowGroupCount];
        long totalRows = 0;
        for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
            int position = rowGroupsStart + rowGroup * ROW_GROUP_SIZE;
            rowGroupRows[rowGroup] = (long) LONG.get(encoded, position);
            long offset = (long) LONG.get(encoded, position + Long.BYTES);
            if (rowGroupRows[rowGroup] < 0 || offset < 0) {
                throw invalid("row group %s: negative row count %s or offset %s", rowGroup, rowGroupRows[rowGroup], offset);
            }
            totalRows += rowGroupRows[rowGroup];
            if (totalRows < 0) {
                throw invalid("row count overflows");
            }
        }
        long rowCount = (long) LONG.get(encoded, ROW_COUNT_OFFSET);
        if (rowCount != totalRows) {
            throw invalid("row count %s differs from the sum over row groups %s", rowCount, totalRows);
        }

        int position = rowGroupsStart + rowGroupCount * ROW_GROUP_SIZE;
        for (int column = 0; column < columnCount; column++) {
            for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
                validateChunk(encoded, position, rowGroup, column, KEY_KINDS[kinds[column]], rowGroupRows[rowGroup]);
                position += CHUNK_SIZE;
            }
        }
        if (version == VERSION_WITH_FILTERS) {
            validateFilters(encoded, position, columnCount, rowGroupCount, 1);
        }
    }

    private static void validateChunk(byte[] encoded, int position, int rowGroup, int column, KeyKind kind, long rowGroupRows)
    {
        int compressedSize = (int) INT.get(encoded, position + CHUNK_COMPRESSED_SIZE);
        int nullCount = (int) INT.get(encoded, position + CHUNK_NULL_COUNT);
        byte flags = encoded[position + CHUNK_FLAGS];
        long min = (long) LONG.get(encoded, position + CHUNK_MIN);
        long max = (long) LONG.get(encoded, position + CHUNK_MAX);
        if (compressedSize < 0) {
            throw invalid("row group %s column %s: negative compressed size %s", rowGroup, column, compressedSize);
        }
        if (nullCount < -1 || nullCount > rowGroupRows) {
            throw invalid("row group %s column %s: null count %s outside [-1, %s]", rowGroup, column, nullCount, rowGroupRows);
        }
        if ((flags & ~FLAG_HAS_MIN_MAX) != 0) {
            throw invalid("row group %s column %s: unknown flags %s", rowGroup, column, flags);
        }
        boolean hasMinMax = (flags & FLAG_HAS_MIN_MAX) != 0;
        if (hasMinMax && kind == KeyKind.NONE) {
            throw invalid("row group %s column %s: min/max present for key kind NONE", rowGroup, column);
        }
        if (hasMinMax && min > max) {
            throw invalid("row group %s column %s: min %s greater than max %s", rowGroup, column, min, max);
        }
        if (!hasMinMax && (min != 0 || max != 0)) {
            throw invalid("row group %s column %s: min/max bytes set without the has-min/max flag", rowGroup, column);
        }
    }
}
