package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.OptionalLong;

import static io.nsc.protocol.stats.KeyKind.EXACT;
import static io.nsc.protocol.stats.KeyKind.LOSSY;
import static io.nsc.protocol.stats.KeyKind.NONE;
import static org.assertj.core.api.Assertions.assertThat;

final class TestCompactStatsWriter
{
    private static final OptionalLong NO_KEY = OptionalLong.empty();

    @Test
    void testWritesThePackedLayout()
    {
        // catalogs and storage nodes keep these bytes: they must not change from release to release
        byte[] bitset = new byte[32];
        SplitBlockBloomFilter.insert(bitset, 42);
        CompactStatsWriter writer = new CompactStatsWriter(new KeyKind[] {EXACT, LOSSY, NONE});
        writer.footer(5000, 300);
        writer.addRowGroup(100, 4);
        writer.addColumnChunk(1000, OptionalLong.of(-3), OptionalLong.of(200), 0);
        writer.addColumnChunk(20, NO_KEY, NO_KEY, -1);
        writer.addColumnChunk(7, NO_KEY, NO_KEY, 100);
        writer.addRowGroup(300, 1200);
        writer.addColumnChunk(1300, OptionalLong.of(5), OptionalLong.of(5), 2);
        writer.addColumnChunk(25, OptionalLong.of(70000), OptionalLong.of(70001), 3);
        writer.addColumnChunk(7, NO_KEY, NO_KEY, 300);
        // added out of order: written by column, then row group
        writer.addFilter(1, 1, FilterValueType.BYTE_ARRAY, bitset);
        writer.addFilter(0, 0, FilterValueType.INT64, bitset);

        String bits = HexFormat.of().formatHex(bitset);
        assertThat(HexFormat.of().formatHex(writer.write().encoded())).isEqualTo(String.join(
                "",
                // magic, version 3, 3 columns, 2 row groups, 400 rows, footer at 5000 of 300 bytes
                "4e534353", "03", "03000000", "02000000", "9001000000000000", "8813000000000000", "2c010000",
                // column 0, EXACT, min/max in every chunk: min base -3 in 1 byte, range 1 byte, size
                // base 1000 in 2 bytes, null base 0 + 1 in 1 byte, chunks at 135
                "01", "01", "fdffffffffffffff", "01", "01", "e8030000", "02", "01000000", "01", "87000000",
                // column 1, LOSSY, a bitmap says which chunks have min/max: base 70000, no bytes for
                // the min, range 1 byte, size base 20 in 1 byte, null base -1 + 1 in 1 byte, chunks at 145
                "03", "02", "7011010000000000", "00", "01", "14000000", "01", "00000000", "01", "91000000",
                // column 2, NONE: only the null counts differ, base 100 + 1 in 1 byte, chunks at 152
                "00", "00", "0000000000000000", "00", "00", "07000000", "00", "65000000", "01", "98000000",
                // row groups: row count base 100 in 1 byte, offset base 4 in 2 bytes
                "6400000000000000", "01", "0400000000000000", "02",
                "00", "0000",
                "c8", "ac04",
                // column 0's chunks: min - base, max - min, size - base, null count + 1 - base
                "00", "cb", "0000", "00",
                "08", "00", "2c01", "02",
                // column 1's: the bitmap (row group 1 only), then range, size and null count
                "02",
                "00", "00", "00",
                "01", "05", "04",
                // column 2's: the null count alone
                "00",
                "c8",
                // two filters: row group 0 column 0 INT64, row group 1 column 1 BYTE_ARRAY, 32 bytes each
                "02000000",
                "00000000", "00000000", "01", "c0000000", "20000000",
                "01000000", "01000000", "02", "e0000000", "20000000",
                bits, bits));
    }

    @Test
    void testNullCountsPastTheIntRangeAreForgotten()
    {
        // only a row group of over 2^31 rows has them, and an unknown null count is safe
        CompactStatsWriter writer = new CompactStatsWriter(new KeyKind[] {EXACT});
        writer.addRowGroup(1L << 32, 4);
        writer.addColumnChunk(10, NO_KEY, NO_KEY, Integer.MAX_VALUE);
        CompactFileStats stats = writer.write();
        assertThat(stats.nullCount(0, 0)).isEqualTo(-1);
        assertThat(CompactFileStats.wrap(stats.encoded().clone())).isEqualTo(stats);
    }

    @Test
    void testCounts()
    {
        CompactStatsWriter writer = new CompactStatsWriter(new KeyKind[] {EXACT, EXACT});
        assertThat(writer.rowGroupCount()).isZero();
        assertThat(writer.chunkCount()).isZero();
        // past the initial capacities of row groups and chunks
        for (int rowGroup = 0; rowGroup < 20; rowGroup++) {
            writer.addRowGroup(rowGroup, rowGroup * 100L);
            writer.addColumnChunk(1, OptionalLong.of(rowGroup), OptionalLong.of(rowGroup), 0);
            writer.addColumnChunk(2, NO_KEY, NO_KEY, -1);
        }
        assertThat(writer.rowGroupCount()).isEqualTo(20);
        assertThat(writer.chunkCount()).isEqualTo(40);
        assertThat(writer.rowGroupRowCount(19)).isEqualTo(19);
        CompactFileStats stats = writer.write();
        assertThat(stats.rowCount()).isEqualTo(190);
        assertThat(stats.max(19, 0)).isEqualTo(19);
        assertThat(stats.rowGroupOffset(19)).isEqualTo(1900);
    }
}
