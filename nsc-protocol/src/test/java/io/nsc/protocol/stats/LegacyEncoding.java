package io.nsc.protocol.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Writes stats the way releases before packing did (versions 1 and 2, fixed-width fields), so
 * tests can hand {@link CompactFileStats#wrap} (and the metadata service's tests, its catalog) what
 * an earlier release's catalog holds.
 */
public final class LegacyEncoding
{
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private LegacyEncoding() {}

    public static byte[] encode(CompactFileStats stats)
    {
        int columns = stats.columnCount();
        int rowGroups = stats.rowGroupCount();
        int filtersStart = 33 + columns + 16 * rowGroups + 25 * rowGroups * columns;
        int size = filtersStart;
        if (stats.filterCount() > 0) {
            size += 4 + 17 * stats.filterCount();
            for (int filter = 0; filter < stats.filterCount(); filter++) {
                size += stats.filterLength(filter);
            }
        }
        byte[] encoded = new byte[size];
        INT.set(encoded, 0, 'N' | 'S' << 8 | 'C' << 16 | 'S' << 24);
        encoded[4] = (byte) (stats.filterCount() > 0 ? 2 : 1);
        INT.set(encoded, 5, columns);
        INT.set(encoded, 9, rowGroups);
        LONG.set(encoded, 13, stats.rowCount());
        LONG.set(encoded, 21, stats.footerOffset());
        INT.set(encoded, 29, stats.footerLength());
        for (int column = 0; column < columns; column++) {
            encoded[33 + column] = (byte) stats.keyKind(column).ordinal();
        }
        for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
            LONG.set(encoded, 33 + columns + 16 * rowGroup, stats.rowGroupRowCount(rowGroup));
            LONG.set(encoded, 33 + columns + 16 * rowGroup + 8, stats.rowGroupOffset(rowGroup));
        }
        int position = 33 + columns + 16 * rowGroups;
        for (int column = 0; column < columns; column++) {
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                LONG.set(encoded, position, stats.min(rowGroup, column));
                LONG.set(encoded, position + 8, stats.max(rowGroup, column));
                INT.set(encoded, position + 16, (int) stats.compressedSize(rowGroup, column));
                INT.set(encoded, position + 20, (int) stats.nullCount(rowGroup, column));
                encoded[position + 24] = (byte) (stats.hasMinMax(rowGroup, column) ? 1 : 0);
                position += 25;
            }
        }
        if (stats.filterCount() > 0) {
            INT.set(encoded, position, stats.filterCount());
            int bitset = position + 4 + 17 * stats.filterCount();
            for (int filter = 0; filter < stats.filterCount(); filter++) {
                int entry = position + 4 + 17 * filter;
                INT.set(encoded, entry, stats.filterRowGroup(filter));
                INT.set(encoded, entry + 4, stats.filterColumn(filter));
                encoded[entry + 8] = (byte) stats.filterValueType(filter).ordinal();
                INT.set(encoded, entry + 9, bitset);
                INT.set(encoded, entry + 13, stats.filterLength(filter));
                byte[] bits = stats.filterBitset(filter);
                System.arraycopy(bits, 0, encoded, bitset, bits.length);
                bitset += bits.length;
            }
        }
        return encoded;
    }
}
