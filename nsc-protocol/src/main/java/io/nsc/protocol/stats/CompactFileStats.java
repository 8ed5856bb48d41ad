package io.nsc.protocol.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_CHUNKS;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_COUNT_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_KIND;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_MIN_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_NULL_WIDTH;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_PRESENCE;
import static io.nsc.protocol.stats.CompactStatsLayout.COLUMN_RANGE_WIDTH;
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
import static io.nsc.protocol.stats.CompactStatsLayout.MAGIC;
import static io.nsc.protocol.stats.CompactStatsLayout.MAGIC_OFFSET;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_BASE;
import static io.nsc.protocol.stats.CompactStatsLayout.OFFSET_WIDTH;
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
import static io.nsc.protocol.stats.CompactStatsValidator.invalid;
import static java.util.Objects.checkIndex;
import static java.util.Objects.requireNonNull;

/**
 * The statistics nsc keeps per Parquet file: row counts and offsets per row group, and per
 * column chunk its compressed size, null count and min/max as {@link StatsKeys stats keys}.
 * <p>
 * The metadata service and the coordinator hold one of these per file of a table, so the whole
 * thing is a single {@code byte[]} read with absolute offsets: no object per row group or column
 * chunk. The same bytes travel in {@code DataFile.compact_stats}.
 * <p>
 * Values are stored with frame-of-reference packing: each column keeps a base and a byte width
 * (0 to 8) per field, and a chunk stores its distance from the base in that many bytes. Within
 * one file a column's mins lie close together, its ranges (max - min), sizes and null counts are
 * small, so a chunk typically takes 5 to 10 bytes where fixed-width fields took 25 (the layout
 * of versions 1 and 2, which {@link #wrap} still reads and re-encodes). {@code CompactStatsLayout}
 * describes the bytes field by field. Chunks are stored column by column, keeping one column's
 * chunks adjacent, which is how pruning walks them (a predicate column across many row groups).
 * <p>
 * A column at or past {@link #columnCount()} is one the table gained after the file was written
 * (ALTER TABLE ... ADD COLUMN): the file holds only NULLs for it, and the accessors answer so (no
 * key kind, every row NULL, no bytes, no min/max, no filter). The filters are
 * {@link SplitBlockBloomFilter}s of the column chunks whose file carries one.
 */
public final class CompactFileStats
{
    private final byte[] encoded;
    // derived from the header, kept so hot accessors need no header reads
    private final int columnCount;
    private final int rowGroupCount;
    private final int rowGroupsStart;
    private final int rowGroupStride;
    private final int filtersStart;
    private final int filterCount;

    /**
     * Over an encoding known to be valid: just written, or validated (which told where its filters start).
     */
    CompactFileStats(byte[] encoded, int filtersStart)
    {
        this.encoded = encoded;
        this.columnCount = (int) INT.get(encoded, COLUMN_COUNT_OFFSET);
        this.rowGroupCount = (int) INT.get(encoded, ROW_GROUP_COUNT_OFFSET);
        this.rowGroupsStart = rowGroupsStart(columnCount);
        this.rowGroupStride = encoded[rowGroupsStart + ROWS_WIDTH] + encoded[rowGroupsStart + OFFSET_WIDTH];
        this.filtersStart = filtersStart;
        this.filterCount = (int) INT.get(encoded, filtersStart);
    }

    /**
     * Wraps an encoding (not copied: the caller hands it over). Encodings of earlier releases
     * (versions 1 and 2) are re-encoded in this release's layout, so {@link #encoded()} then
     * differs from the bytes given, but not in anything they say.
     *
     * @throws IllegalArgumentException when the bytes are not a valid encoding, with what is wrong
     */
    public static CompactFileStats wrap(byte[] encoded)
    {
        requireNonNull(encoded, "encoded is null");
        if (encoded.length < HEADER_SIZE) {
            throw invalid("%s bytes is shorter than the %s-byte header", encoded.length, HEADER_SIZE);
        }
        if ((int) INT.get(encoded, MAGIC_OFFSET) != MAGIC) {
            throw invalid("bad magic (not compact stats)");
        }
        byte version = encoded[VERSION_OFFSET];
        if (LegacyCompactFileStats.isLegacyVersion(version)) {
            return LegacyCompactFileStats.reencode(encoded);
        }
        if (version != VERSION_PACKED) {
            throw invalid("unsupported version %s (this reader knows versions 1 to %s)", version, VERSION_PACKED);
        }
        return new CompactFileStats(encoded, CompactStatsValidator.validate(encoded));
    }

    /**
     * The encoding, as it travels in {@code DataFile.compact_stats}. This is the instance's own
     * array (no copy, since storage nodes hand it out for every file listing): do not modify it.
     */
    public byte[] encoded()
    {
        return encoded;
    }

    /**
     * Bytes of the encoding.
     */
    public int sizeInBytes()
    {
        return encoded.length;
    }

    public int rowGroupCount()
    {
        return rowGroupCount;
    }

    public int columnCount()
    {
        return columnCount;
    }

    public int columnChunkCount()
    {
        return rowGroupCount * columnCount;
    }

    public long rowCount()
    {
        return (long) LONG.get(encoded, ROW_COUNT_OFFSET);
    }

    /**
     * Offset of the Parquet footer (the FileMetaData) in the file, or -1 when not recorded.
     */
    public long footerOffset()
    {
        return (long) LONG.get(encoded, FOOTER_OFFSET_OFFSET);
    }

    /**
     * Length of the Parquet footer (the FileMetaData), or -1 when not recorded.
     */
    public int footerLength()
    {
        return (int) INT.get(encoded, FOOTER_LENGTH_OFFSET);
    }

    public KeyKind keyKind(int column)
    {
        if (isMissing(column)) {
            return KeyKind.NONE;
        }
        return KEY_KINDS[encoded[columnPosition(column) + COLUMN_KIND]];
    }

    /**
     * Whether the file lacks the column: one the table gained after the file was written.
     */
    public boolean isMissing(int column)
    {
        if (column < 0) {
            throw new IndexOutOfBoundsException("column %s is negative".formatted(column));
        }
        return column >= columnCount;
    }

    public long rowGroupRowCount(int rowGroup)
    {
        checkIndex(rowGroup, rowGroupCount);
        int position = rowGroupsStart + ROW_GROUP_HEADER_SIZE + rowGroup * rowGroupStride;
        return (long) LONG.get(encoded, rowGroupsStart + ROWS_BASE) + unsigned(position, encoded[rowGroupsStart + ROWS_WIDTH]);
    }

    /**
     * File offset of the row group's first column chunk (its first page, dictionary or data).
     */
    public long rowGroupOffset(int rowGroup)
    {
        checkIndex(rowGroup, rowGroupCount);
        int position = rowGroupsStart + ROW_GROUP_HEADER_SIZE + rowGroup * rowGroupStride + encoded[rowGroupsStart + ROWS_WIDTH];
        return (long) LONG.get(encoded, rowGroupsStart + OFFSET_BASE) + unsigned(position, encoded[rowGroupsStart + OFFSET_WIDTH]);
    }

    /**
     * Sum of the compressed sizes of the row group's column chunks.
     */
    public long rowGroupCompressedSize(int rowGroup)
    {
        checkIndex(rowGroup, rowGroupCount);
        long size = 0;
        for (int column = 0; column < columnCount; column++) {
            size += sizeAt(columnPosition(column), rowGroup);
        }
        return size;
    }

    public long compressedSize(int rowGroup, int column)
    {
        checkIndex(rowGroup, rowGroupCount);
        if (isMissing(column)) {
            return 0;
        }
        return sizeAt(columnPosition(column), rowGroup);
    }

    public boolean hasMinMax(int rowGroup, int column)
    {
        checkIndex(rowGroup, rowGroupCount);
        if (isMissing(column)) {
            return false;
        }
        return minMaxPresent(columnPosition(column), rowGroup);
    }

    /**
     * The smallest key of the chunk's non-null values; 0 unless {@link #hasMinMax}.
     */
    public long min(int rowGroup, int column)
    {
        int descriptor = checkedColumnPosition(rowGroup, column);
        if (!minMaxPresent(descriptor, rowGroup)) {
            return 0;
        }
        return minAt(descriptor, chunkPosition(descriptor, rowGroup));
    }

    /**
     * The largest key of the chunk's non-null values; 0 unless {@link #hasMinMax}.
     */
    public long max(int rowGroup, int column)
    {
        int descriptor = checkedColumnPosition(rowGroup, column);
        if (!minMaxPresent(descriptor, rowGroup)) {
            return 0;
        }
        int position = chunkPosition(descriptor, rowGroup);
        byte minWidth = encoded[descriptor + COLUMN_MIN_WIDTH];
        return minAt(descriptor, position) + unsigned(position + minWidth, encoded[descriptor + COLUMN_RANGE_WIDTH]);
    }

    /**
     * Number of nulls in the chunk, or -1 when unknown.
     */
    public long nullCount(int rowGroup, int column)
    {
        if (isMissing(column)) {
            return rowGroupRowCount(rowGroup);
        }
        int descriptor = checkedColumnPosition(rowGroup, column);
        int position = chunkPosition(descriptor, rowGroup)
                + encoded[descriptor + COLUMN_MIN_WIDTH] + encoded[descriptor + COLUMN_RANGE_WIDTH] + encoded[descriptor + COLUMN_SIZE_WIDTH];
        return (int) INT.get(encoded, descriptor + COLUMN_NULL_BASE) + unsigned(position, encoded[descriptor + COLUMN_NULL_WIDTH]) - 1;
    }

    /**
     * These row groups' stats alone, numbered from 0 in the order given, without Bloom filters:
     * a few dozen bytes a row group, small enough to travel with a split.
     */
    public CompactFileStats ofRowGroups(List<Integer> rowGroups)
    {
        List<KeyKind> kinds = new ArrayList<>(columnCount);
        for (int column = 0; column < columnCount; column++) {
            kinds.add(keyKind(column));
        }
        Builder builder = builder(kinds);
        if (footerOffset() >= 0 && footerLength() >= 0) {
            builder.footer(footerOffset(), footerLength());
        }
        for (int rowGroup : rowGroups) {
            builder.addRowGroup(rowGroupRowCount(rowGroup), rowGroupOffset(rowGroup));
            for (int column = 0; column < columnCount; column++) {
                boolean minMax = hasMinMax(rowGroup, column);
                builder.addColumnChunk(
                        compressedSize(rowGroup, column),
                        minMax ? OptionalLong.of(min(rowGroup, column)) : OptionalLong.empty(),
                        minMax ? OptionalLong.of(max(rowGroup, column)) : OptionalLong.empty(),
                        nullCount(rowGroup, column));
            }
        }
        return builder.build();
    }

    /**
     * How many column chunks have a Bloom filter.
     */
    public int filterCount()
    {
        return filterCount;
    }

    /**
     * The index of the chunk's Bloom filter, for the {@code filter...} accessors; -1 when the chunk has none.
     */
    public int filterIndex(int rowGroup, int column)
    {
        checkIndex(rowGroup, rowGroupCount);
        if (isMissing(column)) {
            return -1;
        }
        long wanted = filterOrder(column, rowGroup);
        int low = 0;
        int high = filterCount - 1;
        while (low <= high) {
            int middle = (low + high) >>> 1;
            long found = filterOrder(filterColumn(middle), filterRowGroup(middle));
            if (found < wanted) {
                low = middle + 1;
            }
            else if (found > wanted) {
                high = middle - 1;
            }
            else {
                return middle;
            }
        }
        return -1;
    }

    public int filterRowGroup(int filter)
    {
        return (int) INT.get(encoded, filterEntryPosition(filter) + FILTER_ROW_GROUP);
    }

    public int filterColumn(int filter)
    {
        return (int) INT.get(encoded, filterEntryPosition(filter) + FILTER_COLUMN);
    }

    public FilterValueType filterValueType(int filter)
    {
        return FILTER_VALUE_TYPES[encoded[filterEntryPosition(filter) + FILTER_VALUE_TYPE]];
    }

    /**
     * Bytes of the filter's bitset.
     */
    public int filterLength(int filter)
    {
        return (int) INT.get(encoded, filterEntryPosition(filter) + FILTER_LENGTH);
    }

    /**
     * The filter's bitset (a copy).
     */
    public byte[] filterBitset(int filter)
    {
        int offset = (int) INT.get(encoded, filterEntryPosition(filter) + FILTER_OFFSET);
        return Arrays.copyOfRange(encoded, offset, offset + filterLength(filter));
    }

    /**
     * False only when no value of the chunk hashes to {@code hash} (see {@link SplitBlockBloomFilter}).
     */
    public boolean filterMightContain(int filter, long hash)
    {
        int position = filterEntryPosition(filter);
        return SplitBlockBloomFilter.mightContain(encoded, (int) INT.get(encoded, position + FILTER_OFFSET), (int) INT.get(encoded, position + FILTER_LENGTH), hash);
    }

    private boolean minMaxPresent(int descriptor, int rowGroup)
    {
        return CompactStatsLayout.minMaxPresent(encoded, encoded[descriptor + COLUMN_PRESENCE], (int) INT.get(encoded, descriptor + COLUMN_CHUNKS), rowGroup);
    }

    private long sizeAt(int descriptor, int rowGroup)
    {
        int position = chunkPosition(descriptor, rowGroup) + encoded[descriptor + COLUMN_MIN_WIDTH] + encoded[descriptor + COLUMN_RANGE_WIDTH];
        return (int) INT.get(encoded, descriptor + COLUMN_SIZE_BASE) + unsigned(position, encoded[descriptor + COLUMN_SIZE_WIDTH]);
    }

    private long minAt(int descriptor, int chunkPosition)
    {
        return (long) LONG.get(encoded, descriptor + COLUMN_MIN_BASE) + unsigned(chunkPosition, encoded[descriptor + COLUMN_MIN_WIDTH]);
    }

    private int filterEntryPosition(int filter)
    {
        checkIndex(filter, filterCount);
        return filtersStart + Integer.BYTES + filter * FILTER_ENTRY_SIZE;
    }

    private int checkedColumnPosition(int rowGroup, int column)
    {
        checkIndex(rowGroup, rowGroupCount);
        checkIndex(column, columnCount);
        return columnPosition(column);
    }

    private int chunkPosition(int descriptor, int rowGroup)
    {
        int stride = encoded[descriptor + COLUMN_MIN_WIDTH] + encoded[descriptor + COLUMN_RANGE_WIDTH]
                + encoded[descriptor + COLUMN_SIZE_WIDTH] + encoded[descriptor + COLUMN_NULL_WIDTH];
        return (int) INT.get(encoded, descriptor + COLUMN_CHUNKS) + bitmapBytes(encoded[descriptor + COLUMN_PRESENCE], rowGroupCount) + rowGroup * stride;
    }

    private long unsigned(int position, int width)
    {
        return CompactStatsLayout.readUnsigned(encoded, position, width);
    }

    @Override
    public boolean equals(Object obj)
    {
        return obj instanceof CompactFileStats other && Arrays.equals(encoded, other.encoded);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(encoded);
    }

    @Override
    public String toString()
    {
        return "CompactFileStats{rowGroups=%s, columns=%s, rows=%s, bytes=%s}".formatted(rowGroupCount, columnCount, rowCount(), encoded.length);
    }

    /**
     * A builder over the given columns' key kinds.
     */
    public static Builder builder(List<KeyKind> columnKinds)
    {
        return new Builder(columnKinds);
    }

    /**
     * Collects row groups in file order: {@link #addRowGroup}, then exactly one
     * {@link #addColumnChunk} per column in column order, then the next row group.
     */
    public static final class Builder
    {
        private final KeyKind[] kinds;
        private final CompactStatsWriter writer;
        private final Set<Long> filteredChunks = new HashSet<>();

        private Builder(List<KeyKind> columnKinds)
        {
            requireNonNull(columnKinds, "columnKinds is null");
            this.kinds = columnKinds.toArray(KeyKind[]::new);
            for (KeyKind kind : kinds) {
                requireNonNull(kind, "columnKinds contains null");
            }
            this.writer = new CompactStatsWriter(kinds);
        }

        /**
         * Where the Parquet footer (FileMetaData, without length and magic) sits in the file.
         */
        public Builder footer(long offset, int length)
        {
            if (offset < 0 || length < 0) {
                throw new IllegalArgumentException("footer offset %s and length %s must not be negative".formatted(offset, length));
            }
            writer.footer(offset, length);
            return this;
        }

        public Builder addRowGroup(long rowCount, long fileOffset)
        {
            checkRowGroupComplete();
            if (rowCount < 0) {
                throw new IllegalArgumentException("row count must not be negative: " + rowCount);
            }
            if (fileOffset < 0) {
                throw new IllegalArgumentException("file offset must not be negative: " + fileOffset);
            }
            writer.addRowGroup(rowCount, fileOffset);
            return this;
        }

        /**
         * The next column chunk of the current row group.
         *
         * @param minKey the smallest non-null value's key; present exactly when {@code maxKey} is,
         * and empty for {@link KeyKind#NONE} columns
         * @param nullCount nulls in the chunk, or -1 when unknown
         */
        public Builder addColumnChunk(long compressedSize, OptionalLong minKey, OptionalLong maxKey, long nullCount)
        {
            requireNonNull(minKey, "minKey is null");
            requireNonNull(maxKey, "maxKey is null");
            int rowGroupCount = writer.rowGroupCount();
            int chunkCount = writer.chunkCount();
            if (rowGroupCount == 0 || chunkCount == rowGroupCount * kinds.length) {
                throw new IllegalStateException("addColumnChunk needs a row group with columns still to add: call addRowGroup first (%s columns per row group)".formatted(kinds.length));
            }
            int column = chunkCount % kinds.length;
            if (compressedSize < 0) {
                throw new IllegalArgumentException("column %s: compressed size must not be negative: %s".formatted(column, compressedSize));
            }
            if (compressedSize > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("column %s: compressed size %s of a column chunk exceeds the compact stats limit of %s bytes".formatted(column, compressedSize, Integer.MAX_VALUE));
            }
            if (minKey.isPresent() != maxKey.isPresent()) {
                throw new IllegalArgumentException("column %s: min and max must both be present or both be empty".formatted(column));
            }
            if (minKey.isPresent() && kinds[column] == KeyKind.NONE) {
                throw new IllegalArgumentException("column %s: key kind NONE keeps no min/max".formatted(column));
            }
            if (minKey.isPresent() && minKey.getAsLong() > maxKey.getAsLong()) {
                throw new IllegalArgumentException("column %s: min key %s greater than max key %s".formatted(column, minKey.getAsLong(), maxKey.getAsLong()));
            }
            long rowCount = writer.rowGroupRowCount(rowGroupCount - 1);
            if (nullCount < -1 || nullCount > rowCount) {
                throw new IllegalArgumentException("column %s: null count %s outside [-1, %s]".formatted(column, nullCount, rowCount));
            }
            writer.addColumnChunk(compressedSize, minKey, maxKey, nullCount);
            return this;
        }

        /**
         * The Bloom filter of a column chunk already added (see {@link SplitBlockBloomFilter}).
         */
        public Builder addFilter(int rowGroup, int column, FilterValueType valueType, byte[] bitset)
        {
            checkIndex(column, kinds.length);
            requireNonNull(valueType, "valueType is null");
            requireNonNull(bitset, "bitset is null");
            if (rowGroup < 0 || rowGroup * kinds.length + column >= writer.chunkCount()) {
                throw new IllegalArgumentException("row group %s column %s: add the column chunk before its filter".formatted(rowGroup, column));
            }
            if (!SplitBlockBloomFilter.isValidLength(bitset.length)) {
                throw new IllegalArgumentException("row group %s column %s: a filter of %s bytes is not a whole number of blocks".formatted(rowGroup, column, bitset.length));
            }
            if (!filteredChunks.add(filterOrder(column, rowGroup))) {
                throw new IllegalArgumentException("row group %s column %s already has a filter".formatted(rowGroup, column));
            }
            writer.addFilter(rowGroup, column, valueType, bitset.clone());
            return this;
        }

        public CompactFileStats build()
        {
            checkRowGroupComplete();
            return writer.write();
        }

        private void checkRowGroupComplete()
        {
            int rowGroupCount = writer.rowGroupCount();
            int chunkCount = writer.chunkCount();
            if (chunkCount != rowGroupCount * kinds.length) {
                throw new IllegalStateException("row group %s has %s of its %s column chunks".formatted(rowGroupCount - 1, chunkCount % kinds.length, kinds.length));
            }
        }
    }
}
