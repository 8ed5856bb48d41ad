package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;

import static io.nsc.protocol.stats.KeyKind.EXACT;
import static io.nsc.protocol.stats.KeyKind.FLOATING;
import static io.nsc.protocol.stats.KeyKind.LOSSY;
import static io.nsc.protocol.stats.KeyKind.NONE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestCompactFileStats
{
    private static final OptionalLong NO_KEY = OptionalLong.empty();
    private static final VarHandle INT_AT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_AT = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    @Test
    void testRoundTrip()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(EXACT, FLOATING, LOSSY, NONE))
                .footer(1234, 56)
                .addRowGroup(100, 4)
                .addColumnChunk(10, OptionalLong.of(Long.MIN_VALUE), OptionalLong.of(Long.MAX_VALUE), 0)
                .addColumnChunk(20, OptionalLong.of(-5), OptionalLong.of(-5), 3)
                .addColumnChunk(30, NO_KEY, NO_KEY, -1)
                .addColumnChunk(Integer.MAX_VALUE, NO_KEY, NO_KEY, 100)
                .addRowGroup(0, 600)
                .addColumnChunk(0, NO_KEY, NO_KEY, 0)
                .addColumnChunk(0, NO_KEY, NO_KEY, -1)
                .addColumnChunk(0, NO_KEY, NO_KEY, 0)
                .addColumnChunk(0, NO_KEY, NO_KEY, 0)
                .addRowGroup(7, 700)
                .addColumnChunk(1, OptionalLong.of(1), OptionalLong.of(2), 7)
                .addColumnChunk(2, OptionalLong.of(3), OptionalLong.of(4), 6)
                .addColumnChunk(3, OptionalLong.of(5), OptionalLong.of(6), 5)
                .addColumnChunk(4, NO_KEY, NO_KEY, 4)
                .build();

        CompactFileStats wrapped = CompactFileStats.wrap(stats.encoded().clone());
        for (CompactFileStats candidate : List.of(stats, wrapped)) {
            assertThat(candidate.rowGroupCount()).isEqualTo(3);
            assertThat(candidate.columnCount()).isEqualTo(4);
            assertThat(candidate.columnChunkCount()).isEqualTo(12);
            assertThat(candidate.rowCount()).isEqualTo(107);
            assertThat(candidate.footerOffset()).isEqualTo(1234);
            assertThat(candidate.footerLength()).isEqualTo(56);
            assertThat(List.of(candidate.keyKind(0), candidate.keyKind(1), candidate.keyKind(2), candidate.keyKind(3))).containsExactly(EXACT, FLOATING, LOSSY, NONE);

            assertThat(candidate.rowGroupRowCount(0)).isEqualTo(100);
            assertThat(candidate.rowGroupOffset(0)).isEqualTo(4);
            assertThat(candidate.rowGroupCompressedSize(0)).isEqualTo(60L + Integer.MAX_VALUE);
            assertThat(candidate.hasMinMax(0, 0)).isTrue();
            assertThat(candidate.min(0, 0)).isEqualTo(Long.MIN_VALUE);
            assertThat(candidate.max(0, 0)).isEqualTo(Long.MAX_VALUE);
            assertThat(candidate.nullCount(0, 0)).isEqualTo(0);
            assertThat(candidate.min(0, 1)).isEqualTo(-5);
            assertThat(candidate.max(0, 1)).isEqualTo(-5);
            assertThat(candidate.nullCount(0, 1)).isEqualTo(3);
            assertThat(candidate.hasMinMax(0, 2)).isFalse();
            assertThat(candidate.nullCount(0, 2)).isEqualTo(-1);
            assertThat(candidate.compressedSize(0, 3)).isEqualTo(Integer.MAX_VALUE);
            assertThat(candidate.nullCount(0, 3)).isEqualTo(100);

            assertThat(candidate.rowGroupRowCount(1)).isEqualTo(0);
            assertThat(candidate.rowGroupOffset(1)).isEqualTo(600);
            assertThat(candidate.rowGroupCompressedSize(1)).isEqualTo(0);

            assertThat(candidate.rowGroupOffset(2)).isEqualTo(700);
            assertThat(candidate.rowGroupCompressedSize(2)).isEqualTo(10);
            assertThat(candidate.min(2, 2)).isEqualTo(5);
            assertThat(candidate.max(2, 2)).isEqualTo(6);
            assertThat(candidate.nullCount(2, 3)).isEqualTo(4);
            assertThat(candidate.compressedSize(2, 3)).isEqualTo(4);
        }
        assertThat(wrapped).isEqualTo(stats);
        assertThat(wrapped.hashCode()).isEqualTo(stats.hashCode());
        assertThat(stats.sizeInBytes()).isEqualTo(stats.encoded().length);
    }

    @Test
    void testRandomRoundTrip()
    {
        Random random = new Random(42);
        // how far apart a column's values lie in one file decides the packed widths: from all
        // equal to the whole long range
        long[] spreads = {1, 2, 1L << 8, 1L << 20, 1L << 40, 1L << 56, Long.MAX_VALUE};
        for (int trial = 0; trial < 500; trial++) {
            int columns = random.nextInt(6);
            int rowGroups = random.nextInt(20);
            long spread = spreads[random.nextInt(spreads.length)];
            long origin = random.nextLong();
            double presentShare = random.nextInt(3) / 2.0;
            List<KeyKind> kinds = new ArrayList<>();
            for (int column = 0; column < columns; column++) {
                kinds.add(KeyKind.values()[random.nextInt(KeyKind.values().length)]);
            }
            long[][][] expected = new long[rowGroups][columns][];
            long[] rowCounts = new long[rowGroups];
            long[] offsets = new long[rowGroups];
            CompactFileStats.Builder builder = CompactFileStats.builder(kinds);
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                rowCounts[rowGroup] = random.nextLong(Math.min(spread, 1L << 40));
                offsets[rowGroup] = random.nextLong(Math.min(spread, 1L << 40));
                builder.addRowGroup(rowCounts[rowGroup], offsets[rowGroup]);
                for (int column = 0; column < columns; column++) {
                    long a = clampedAdd(origin, random.nextLong(spread));
                    long b = clampedAdd(origin, random.nextLong(spread));
                    boolean hasMinMax = kinds.get(column) != NONE && random.nextDouble() < presentShare;
                    long nullCount = random.nextInt(3) == 0 ? -1 : random.nextLong(rowCounts[rowGroup] + 1);
                    long size = random.nextLong(Math.min(spread, Integer.MAX_VALUE) + 1);
                    builder.addColumnChunk(size, hasMinMax ? OptionalLong.of(Math.min(a, b)) : NO_KEY, hasMinMax ? OptionalLong.of(Math.max(a, b)) : NO_KEY, nullCount);
                    expected[rowGroup][column] = new long[] {hasMinMax ? 1 : 0, Math.min(a, b), Math.max(a, b), nullCount >= Integer.MAX_VALUE ? -1 : nullCount, size};
                }
            }
            CompactFileStats built = builder.build();
            CompactFileStats stats = CompactFileStats.wrap(built.encoded().clone());
            assertThat(stats).isEqualTo(built);
            // what an earlier release wrote reads the same and re-encodes to the same bytes
            assertThat(CompactFileStats.wrap(LegacyEncoding.encode(stats))).isEqualTo(stats);
            assertThat(stats.rowCount()).isEqualTo(Arrays.stream(rowCounts).sum());
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                assertThat(stats.rowGroupRowCount(rowGroup)).isEqualTo(rowCounts[rowGroup]);
                assertThat(stats.rowGroupOffset(rowGroup)).isEqualTo(offsets[rowGroup]);
                for (int column = 0; column < columns; column++) {
                    long[] chunk = expected[rowGroup][column];
                    assertThat(stats.hasMinMax(rowGroup, column)).isEqualTo(chunk[0] == 1);
                    assertThat(stats.min(rowGroup, column)).isEqualTo(chunk[0] == 1 ? chunk[1] : 0);
                    assertThat(stats.max(rowGroup, column)).isEqualTo(chunk[0] == 1 ? chunk[2] : 0);
                    assertThat(stats.nullCount(rowGroup, column)).isEqualTo(chunk[3]);
                    assertThat(stats.compressedSize(rowGroup, column)).isEqualTo(chunk[4]);
                }
            }
        }
    }

    private static long clampedAdd(long origin, long delta)
    {
        long sum = origin + delta;
        return ((origin ^ sum) & (delta ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    @Test
    void testEmpty()
    {
        CompactFileStats stats = CompactFileStats.wrap(CompactFileStats.builder(List.of(EXACT, LOSSY)).build().encoded());
        assertThat(stats.rowGroupCount()).isZero();
        assertThat(stats.columnCount()).isEqualTo(2);
        assertThat(stats.rowCount()).isZero();
        assertThat(stats.footerOffset()).isEqualTo(-1);
        assertThat(stats.footerLength()).isEqualTo(-1);
        // header, two column descriptors, the row groups' bases and widths, no filters
        assertThat(stats.sizeInBytes()).isEqualTo(33 + 2 * 26 + 18 + 4);
        assertThatThrownBy(() -> stats.rowGroupRowCount(0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void testIndexChecks()
    {
        CompactFileStats stats = CompactFileStats.builder(List.of(EXACT))
                .addRowGroup(1, 4)
                .addColumnChunk(1, OptionalLong.of(1), OptionalLong.of(1), 0)
                .build();
        assertThatThrownBy(() -> stats.min(1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> stats.min(0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> stats.keyKind(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> stats.rowGroupOffset(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> stats.nullCount(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> stats.nullCount(1, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void testColumnsPastTheFilesLastAreNull()
    {
        // a column the table gained after the file was written: the file holds only NULLs for it
        CompactFileStats stats = sample();
        assertThat(stats.isMissing(1)).isFalse();
        assertThat(stats.isMissing(2)).isTrue();
        assertThat(stats.keyKind(5)).isEqualTo(NONE);
        assertThat(stats.nullCount(0, 2)).isEqualTo(100);
        assertThat(stats.nullCount(1, 7)).isEqualTo(50);
        assertThat(stats.hasMinMax(1, 2)).isFalse();
        assertThat(stats.compressedSize(1, 2)).isZero();
        assertThat(stats.filterIndex(0, 2)).isEqualTo(-1);
    }

    @Test
    void testBytesPerColumnChunk()
    {
        // TPC-H lineitem-like: 16 columns whose row groups' mins lie within 2^20 of each other,
        // ranges under 2^16, sizes around 1 MB, no nulls; a storage node holds many such files
        int columns = 16;
        Random random = new Random(3);
        for (int rowGroups : new int[] {1, 8, 100}) {
            CompactFileStats.Builder builder = CompactFileStats.builder(Collections.nCopies(columns, EXACT));
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                builder.addRowGroup(1_000_000, 4 + rowGroup * 100_000_000L);
                for (int column = 0; column < columns; column++) {
                    long min = 1_000_000_000L + random.nextInt(1 << 20);
                    builder.addColumnChunk(900_000 + random.nextInt(200_000), OptionalLong.of(min), OptionalLong.of(min + random.nextInt(1 << 16)), 0);
                }
            }
            CompactFileStats stats = builder.build();
            double perChunk = (double) stats.sizeInBytes() / (rowGroups * columns);
            // min 3 bytes, range 2, size 3, null count 0 bytes a chunk; the rest is per column and per file
            assertThat(perChunk).isLessThan(rowGroups == 1 ? 40 : rowGroups == 8 ? 12 : 9);
            if (rowGroups > 1) {
                // a file of one row group pays its column descriptors alone, and may take more than before
                assertThat(perChunk).isLessThan(LegacyEncoding.encode(stats).length / (double) (rowGroups * columns));
            }
        }
    }

    @Test
    void testBuilderRefusesMisuse()
    {
        assertThatThrownBy(() -> CompactFileStats.builder(List.of(EXACT)).addColumnChunk(1, NO_KEY, NO_KEY, 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("addRowGroup");
        assertThatThrownBy(() -> CompactFileStats.builder(List.of(EXACT)).addRowGroup(1, 4)
                .addColumnChunk(1, NO_KEY, NO_KEY, 0)
                .addColumnChunk(1, NO_KEY, NO_KEY, 0))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> CompactFileStats.builder(List.of(EXACT, EXACT)).addRowGroup(1, 4)
                .addColumnChunk(1, NO_KEY, NO_KEY, 0)
                .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("1 of its 2 column chunks");
        assertThatThrownBy(() -> CompactFileStats.builder(List.of(EXACT, EXACT)).addRowGroup(1, 4)
                .addColumnChunk(1, NO_KEY, NO_KEY, 0)
                .addRowGroup(1, 8))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> oneChunk(EXACT, 1L + Integer.MAX_VALUE, NO_KEY, NO_KEY, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("compressed size 2147483648")
                .hasMessageContaining("exceeds");
        assertThatThrownBy(() -> oneChunk(EXACT, 1, OptionalLong.of(1), NO_KEY, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both");
        assertThatThrownBy(() -> oneChunk(EXACT, 1, OptionalLong.of(2), OptionalLong.of(1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("greater");
        assertThatThrownBy(() -> oneChunk(NONE, 1, OptionalLong.of(1), OptionalLong.of(1), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NONE");
        assertThatThrownBy(() -> oneChunk(EXACT, 1, NO_KEY, NO_KEY, 11))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null count 11");
        assertThatThrownBy(() -> oneChunk(EXACT, 1, NO_KEY, NO_KEY, -2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> oneChunk(EXACT, -1, NO_KEY, NO_KEY, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CompactFileStats.builder(List.of(EXACT)).addRowGroup(-1, 4))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void testWrapRejectsGarbage()
    {
        byte[] valid = sample().encoded();

        assertThatThrownBy(() -> CompactFileStats.wrap(new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("shorter than the 33-byte header");
        assertThatThrownBy(() -> CompactFileStats.wrap("hello, world, this is not compact stats".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad magic");
        assertThatThrownBy(() -> CompactFileStats.wrap(Arrays.copyOf(valid, valid.length - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> CompactFileStats.wrap(Arrays.copyOf(valid, valid.length + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("follow the last filter");
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 4, (byte) 9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 9");
        // the row count in the header no longer adds up
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 13, (byte) 99)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("row count");
        // the first column's descriptor starts right after the 33-byte header
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 33, (byte) 17)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown key kind");
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 33 + 1, (byte) 3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("presence");
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 33 + 10, (byte) 9)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("widths");
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, 33 + 22, (byte) (valid[33 + 22] + 1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not where the previous ones end");
        // the first column's min base pushed to the top of the long range: its maxes overflow
        byte[] topBase = valid.clone();
        LONG_AT.set(topBase, 33 + 2, Long.MAX_VALUE);
        assertThatThrownBy(() -> CompactFileStats.wrap(topBase))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overflows");
        // the row groups' offset width made 0
        int rowGroupsStart = 33 + 2 * 26;
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, rowGroupsStart + 17, (byte) 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("row group widths");
        // the first chunk's null count (after its min and range) beyond its row group's 100 rows
        int firstChunk = (int) INT_AT.get(valid, 33 + 22);
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, firstChunk + valid[33 + 10] + valid[33 + 11] + valid[33 + 16], (byte) 120)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null count");

        Random random = new Random(1);
        for (int i = 0; i < 2_000; i++) {
            byte[] garbage = new byte[random.nextInt(200)];
            random.nextBytes(garbage);
            assertThatThrownBy(() -> CompactFileStats.wrap(garbage)).isInstanceOf(IllegalArgumentException.class);
        }
        // garbage behind a valid magic and version: refused or readable, never another exception
        for (int i = 0; i < 20_000; i++) {
            byte[] garbage = new byte[33 + random.nextInt(300)];
            random.nextBytes(garbage);
            System.arraycopy(valid, 0, garbage, 0, 5);
            garbage[5 + random.nextInt(4)] = 0;
            garbage[6] = 0;
            garbage[7] = 0;
            garbage[8] = 0;
            garbage[10] = 0;
            garbage[11] = 0;
            garbage[12] = 0;
            readAllOrRefuse(garbage);
        }
        // every single-bit corruption of either layout is either refused or yields a readable instance
        for (byte[] encoding : List.of(valid, LegacyEncoding.encode(sample()), filteredSample().encoded(), LegacyEncoding.encode(filteredSample()))) {
            for (int position = 0; position < encoding.length; position++) {
                for (int bit = 0; bit < 8; bit++) {
                    byte[] corrupted = encoding.clone();
                    corrupted[position] ^= (byte) (1 << bit);
                    readAllOrRefuse(corrupted);
                }
            }
        }
    }

    @Test
    void testEarlierLayoutsAreValidatedAndReencoded()
    {
        byte[] legacy = LegacyEncoding.encode(sample());
        assertThat(legacy[4]).isEqualTo((byte) 1);
        CompactFileStats wrapped = CompactFileStats.wrap(legacy);
        assertThat(wrapped).isEqualTo(sample());
        assertThat(wrapped.encoded()[4]).isEqualTo((byte) 3);
        assertThat(CompactFileStats.wrap(LegacyEncoding.encode(filteredSample()))).isEqualTo(filteredSample());

        // the flags byte of the first chunk (header 33 + 2 kinds + 2 row groups * 16 + 24)
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(legacy, 33 + 2 + 32 + 24, (byte) 4)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("flags");
        // the first chunk's min made larger than its max
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(legacy, 33 + 2 + 32 + 7, (byte) 0x7F)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("greater than max");
        // the first chunk's null count beyond its row group's rows
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(legacy, 33 + 2 + 32 + 20, (byte) 120)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("null count");
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(legacy, 33, (byte) 17)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown key kind");
        assertThatThrownBy(() -> CompactFileStats.wrap(Arrays.copyOf(legacy, legacy.length - 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("truncated");
    }

    private static void readAllOrRefuse(byte[] encoding)
    {
        CompactFileStats stats;
        try {
            stats = CompactFileStats.wrap(encoding);
        }
        catch (IllegalArgumentException expected) {
            return;
        }
        stats.rowCount();
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            stats.rowGroupCompressedSize(rowGroup);
            stats.rowGroupOffset(rowGroup);
            stats.rowGroupRowCount(rowGroup);
            for (int column = 0; column < stats.columnCount(); column++) {
                stats.keyKind(column);
                stats.hasMinMax(rowGroup, column);
                assertThat(stats.min(rowGroup, column)).isLessThanOrEqualTo(stats.max(rowGroup, column));
                assertThat(stats.nullCount(rowGroup, column)).isBetween(-1L, stats.rowGroupRowCount(rowGroup));
                assertThat(stats.compressedSize(rowGroup, column)).isBetween(0L, (long) Integer.MAX_VALUE);
                int filter = stats.filterIndex(rowGroup, column);
                if (filter >= 0) {
                    stats.filterMightContain(filter, 42);
                }
            }
        }
    }

    @Test
    void testFilters()
    {
        byte[] small = new byte[32];
        SplitBlockBloomFilter.insert(small, 42);
        CompactFileStats plain = sample();
        CompactFileStats filtered = filteredSample();
        // a file without filters keeps only their count, 0
        assertThat(filtered.sizeInBytes()).isEqualTo(plain.sizeInBytes() + 3 * 17 + 32 + 32 + 128);

        for (CompactFileStats stats : List.of(filtered, CompactFileStats.wrap(filtered.encoded().clone()))) {
            assertThat(stats.filterCount()).isEqualTo(3);
            assertThat(stats.filterIndex(0, 0)).isEqualTo(-1);
            int first = stats.filterIndex(1, 0);
            int second = stats.filterIndex(0, 1);
            int third = stats.filterIndex(1, 1);
            assertThat(List.of(first, second, third)).containsExactly(0, 1, 2);
            assertThat(List.of(stats.filterRowGroup(third), stats.filterColumn(third), stats.filterLength(third))).containsExactly(1, 1, 128);
            assertThat(stats.filterValueType(first)).isEqualTo(FilterValueType.INT64);
            assertThat(stats.filterValueType(second)).isEqualTo(FilterValueType.INT32);
            assertThat(stats.filterMightContain(first, 42)).isTrue();
            assertThat(stats.filterMightContain(third, 7)).isTrue();
            assertThat(stats.filterMightContain(third, 42)).isFalse();
            // the rest reads as without filters
            assertThat(stats.min(1, 0)).isEqualTo(3);
            assertThat(stats.rowCount()).isEqualTo(150);
        }
        assertThat(plain.filterCount()).isZero();
        assertThat(plain.filterIndex(1, 1)).isEqualTo(-1);

        assertThatThrownBy(() -> builderOfSample().addFilter(0, 0, FilterValueType.INT64, new byte[48]))
                .hasMessageContaining("whole number of blocks");
        assertThatThrownBy(() -> builderOfSample().addFilter(0, 0, FilterValueType.INT64, small).addFilter(0, 0, FilterValueType.INT64, small))
                .hasMessageContaining("already has a filter");
        assertThatThrownBy(() -> builderOfSample().addFilter(2, 0, FilterValueType.INT64, small))
                .hasMessageContaining("add the column chunk before its filter");

        byte[] valid = filtered.encoded();
        // the first filter entry follows the count, which ends the stats without filters
        int entries = plain.sizeInBytes();
        assertThatThrownBy(() -> CompactFileStats.wrap(Arrays.copyOf(valid, valid.length - 1)))
                .hasMessageContaining("filter");
        assertThatThrownBy(() -> CompactFileStats.wrap(Arrays.copyOf(valid, valid.length + 32)))
                .hasMessageContaining("follow the last filter");
        // the second entry's column made 0: out of order
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, entries + 17 + 4, (byte) 0)))
                .hasMessageContaining("out of order");
        // the first entry's value type unknown
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, entries + 8, (byte) 9)))
                .hasMessageContaining("unknown value type");
        // the first entry's row group beyond the two there are
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, entries, (byte) 2)))
                .hasMessageContaining("outside");
        // the first bitset said to start one byte later
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(valid, entries + 9, (byte) (valid[entries + 9] + 1))))
                .hasMessageContaining("not where the previous one ends");
        // a version 1 encoding with a filter section appended is not version 1
        byte[] legacy = LegacyEncoding.encode(filtered);
        assertThatThrownBy(() -> CompactFileStats.wrap(patched(legacy, 4, (byte) 1)))
                .hasMessageContaining("truncated or corrupt");
    }

    private static CompactFileStats sample()
    {
        return builderOfSample().build();
    }

    private static CompactFileStats filteredSample()
    {
        byte[] small = new byte[32];
        SplitBlockBloomFilter.insert(small, 42);
        byte[] large = new byte[128];
        SplitBlockBloomFilter.insert(large, 7);
        // added out of order: kept ordered by column, then row group
        return builderOfSample()
                .addFilter(1, 1, FilterValueType.BYTE_ARRAY, large)
                .addFilter(1, 0, FilterValueType.INT64, small)
                .addFilter(0, 1, FilterValueType.INT32, small)
                .build();
    }

    private static CompactFileStats.Builder builderOfSample()
    {
        return CompactFileStats.builder(List.of(EXACT, LOSSY))
                .addRowGroup(100, 4)
                .addColumnChunk(10, OptionalLong.of(1), OptionalLong.of(2), 0)
                .addColumnChunk(20, NO_KEY, NO_KEY, -1)
                .addRowGroup(50, 1000)
                .addColumnChunk(10, OptionalLong.of(3), OptionalLong.of(4), 50)
                .addColumnChunk(20, OptionalLong.of(5), OptionalLong.of(6), 1);
    }

    private static CompactFileStats oneChunk(KeyKind kind, long compressedSize, OptionalLong min, OptionalLong max, long nullCount)
    {
        return CompactFileStats.builder(List.of(kind))
                .addRowGroup(10, 4)
                .addColumnChunk(compressedSize, min, max, nullCount)
                .build();
    }

    private static byte[] patched(byte[] bytes, int position, byte value)
    {
        byte[] copy = bytes.clone();
        copy[position] = value;
        return copy;
    }
}
