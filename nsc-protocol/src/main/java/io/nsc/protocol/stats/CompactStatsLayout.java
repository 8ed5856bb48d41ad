package io.nsc.protocol.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The binary layout of {@link CompactFileStats}, version 3: the one description the reader
 * ({@link CompactFileStats}), the {@link CompactStatsWriter writer} and the
 * {@link CompactStatsValidator validator} share, so they cannot disagree on an offset. The header
 * and the filter section are also those of versions 1 and 2 ({@link LegacyCompactFileStats}).
 * Little-endian:
 * <pre>
 * header      magic "NSCS" (4), version 3 (1), column count (int), row group count (int),
 *             row count (long), footer offset (long, -1 unknown), footer length (int, -1 unknown)
 * columns     per column, 26 bytes: {@link KeyKind} ordinal (1), min/max presence (1: 0 none,
 *             1 every chunk, 2 a bitmap says which), min base (long), min width (1), range width
 *             (1), size base (int), size width (1), null base (int: the smallest null count + 1),
 *             null width (1), position of the column's chunks (int: derivable from the widths
 *             of the columns before it, stored so a reader finds a column without summing them)
 * row groups  row count base (long), its width (1), offset base (long), its width (1, at least
 *             1, so every row group takes a byte); then per row group its row count and offset
 * chunks      column by column, each: the presence bitmap (one bit per row group) when presence
 *             is 2, then per row group min - base, max - min, size - base, null count + 1 - base,
 *             each in its column's width (unsigned); a chunk without min/max stores zeros there
 * filters     filter count (int), then per filter, ordered by column and then row group, 17
 *             bytes: row group (int), column (int), {@link FilterValueType} ordinal (1), bitset
 *             offset in the encoding (int), bitset length (int); then the bitsets back to back
 * </pre>
 */
final class CompactStatsLayout
{
    static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    static final int MAGIC = 'N' | 'S' << 8 | 'C' << 16 | 'S' << 24;
    static final byte VERSION_PACKED = 3;

    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int COLUMN_COUNT_OFFSET = 5;
    static final int ROW_GROUP_COUNT_OFFSET = 9;
    static final int ROW_COUNT_OFFSET = 13;
    static final int FOOTER_OFFSET_OFFSET = 21;
    static final int FOOTER_LENGTH_OFFSET = 29;
    static final int HEADER_SIZE = 33;

    // the column descriptor, one per column after the header
    static final int COLUMN_SIZE = 26;
    static final int COLUMN_KIND = 0;
    static final int COLUMN_PRESENCE = 1;
    static final int COLUMN_MIN_BASE = 2;
    static final int COLUMN_MIN_WIDTH = 10;
    static final int COLUMN_RANGE_WIDTH = 11;
    static final int COLUMN_SIZE_BASE = 12;
    static final int COLUMN_SIZE_WIDTH = 16;
    static final int COLUMN_NULL_BASE = 17;
    static final int COLUMN_NULL_WIDTH = 21;
    static final int COLUMN_CHUNKS = 22;

    // which of a column's chunks have a min/max
    static final byte PRESENCE_NONE = 0;
    static final byte PRESENCE_ALL = 1;
    static final byte PRESENCE_BITMAP = 2;

    // the row groups' bases and widths, after the column descriptors
    static final int ROW_GROUP_HEADER_SIZE = 18;
    static final int ROWS_BASE = 0;
    static final int ROWS_WIDTH = 8;
    static final int OFFSET_BASE = 9;
    static final int OFFSET_WIDTH = 17;

    // a filter entry, after the filter count
    static final int FILTER_ENTRY_SIZE = 17;
    static final int FILTER_ROW_GROUP = 0;
    static final int FILTER_COLUMN = 4;
    static final int FILTER_VALUE_TYPE = 8;
    static final int FILTER_OFFSET = 9;
    static final int FILTER_LENGTH = 13;

    // values() copies its array on every call; these are indexed by the stored ordinals
    static final FilterValueType[] FILTER_VALUE_TYPES = FilterValueType.values();
    static final KeyKind[] KEY_KINDS = KeyKind.values();

    private CompactStatsLayout() {}

    /**
     * Position of the column's descriptor.
     */
    static int columnPosition(int column)
    {
        return HEADER_SIZE + column * COLUMN_SIZE;
    }

    /**
     * Position of the row groups' bases and widths, which follow the column descriptors.
     */
    static int rowGroupsStart(int columnCount)
    {
        return HEADER_SIZE + columnCount * COLUMN_SIZE;
    }

    /**
     * Bytes of the presence bitmap that precedes a column's chunks.
     */
    static int bitmapBytes(byte presence, int rowGroupCount)
    {
        return presence == PRESENCE_BITMAP ? (rowGroupCount + 7) >>> 3 : 0;
    }

    static boolean minMaxPresent(byte[] encoded, byte presence, int bitmapStart, int rowGroup)
    {
        return switch (presence) {
            case PRESENCE_ALL -> true;
            case PRESENCE_BITMAP -> (encoded[bitmapStart + (rowGroup >>> 3)] & (1 << (rowGroup & 7))) != 0;
            default -> false;
        };
    }

    /**
     * The order filter entries are kept in: by column, then row group.
     */
    static long filterOrder(int column, int rowGroup)
    {
        return ((long) column << 32) | rowGroup;
    }

    /**
     * The unsigned value stored in {@code width} bytes (0 to 8) at {@code position}.
     */
    static long readUnsigned(byte[] bytes, int position, int width)
    {
        if (width == 0) {
            return 0;
        }
        // one masked word read where the array allows it: these are read for every pruned chunk
        if (position <= bytes.length - Long.BYTES) {
            long word = (long) LONG.get(bytes, position);
            return width == Long.BYTES ? word : word & ((1L << (width * Byte.SIZE)) - 1);
        }
        long value = 0;
        for (int index = width - 1; index >= 0; index--) {
            value = value << Byte.SIZE | (bytes[position + index] & 0xFF);
        }
        return value;
    }

    static void writeUnsigned(byte[] bytes, int position, long value, int width)
    {
        for (int index = 0; index < width; index++) {
            bytes[position + index] = (byte) (value >>> (index * Byte.SIZE));
        }
    }

    /**
     * Bytes an unsigned value needs.
     */
    static int width(long unsignedValue)
    {
        return (Long.SIZE - Long.numberOfLeadingZeros(unsignedValue) + Byte.SIZE - 1) / Byte.SIZE;
    }
}
