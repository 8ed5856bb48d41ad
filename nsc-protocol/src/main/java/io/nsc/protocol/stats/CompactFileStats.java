package io.nsc.protocol.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;

import static java.util.Objects.checkIndex;
import static java.util.Objects.requireNonNull;

/**
 * The statistics nsc keeps per Parquet file: row counts and offsets per row group, and per
 * column chunk its compressed size, null count and min/max as {@link StatsKeys stats keys}.
 * <p>
 * The metadata service and the coordinator hold one of these per file of a table, so the whole
 * thing is a single {@code byte[]} read with absolute offsets: no object per row group or column
 * chunk.
 * The same bytes travel in {@code DataFile.compact_stats}. Layout (little-endian):
 * <pre>
 * header      magic "NSCS" (4), version (1), column count (int), row group count (int),
 *             row count (long), footer offset (long, -1 unknown), footer length (int, -1 unknown)
 * columns     one {@link KeyKind} ordinal byte per column
 * row groups  per row group: row count (long), file offset (long)
 * chunks      column-major (all row groups of column 0, then column 1, ...), 25 bytes each:
 *             min key (long), max key (long), compressed size (int), null count (int, -1 unknown),
 *             flags (byte, bit 0: has min/max)
 * filters     version 2 only: filter count (int), then per filter, ordered by column and then row
 *             group, 17 bytes: row group (int), column (int), {@link FilterValueType} ordinal
 *             (byte), bitset offset in the encoding (int), bitset length (int); then the bitsets,
 *             back to back in that order
 * </pre>
 * Column-major order keeps one column's chunks adjacent, which is how pruning walks them
 * (a predicate column across many row groups).
 * <p>
 * A column at or past {@link #columnCount()} is one the table gained after the file was written
 * (ALTER TABLE ... ADD COLUMN): the file holds only NULLs for it, and the accessors answer so (no
 * key kind, every row NULL, no bytes, no min/max, no filter). The filters are {@link SplitBlockBloomFilter}s of
 * the column chunks whose file carries one; a file without any is encoded as version 1.
 */
public final class CompactFileStats
{
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private static final int MAGIC = 'N' | 'S' << 8 | 'C' << 16 | 'S' << 24;
    private static final byte VERSION_WITHOUT_FILTERS = 1;
    private static final byte VERSION_WITH_FILTERS = 2;

    private static final int MAGIC_OFFSET = 0;
    private static final int VERSION_OFFSET = 4;
    private static final int COLUMN_COUNT_OFFSET = 5;
    private static final int ROW_GROUP_COUNT_OFFSET = 9;
    private static final int ROW_COUNT_OFFSET = 13;
    private static final int FOOTER_OFFSET_OFFSET = 21;
    private static final int FOOTER_LENGTH_OFFSET = 29;
    private static final int HEADER_SIZE = 33;

    private static final int ROW_GROUP_SIZE = 16;
    private static final int ROW_GROUP_ROW_COUNT = 0;
    private static final int ROW_GROUP_FILE_OFFSET = 8;

    private static final int CHUNK_SIZE = 25;
    private static final int CHUNK_MIN = 0;
    private static final int CHUNK_MAX = 8;
    private static final int CHUNK_COMPRESSED_SIZE = 16;
    private static final int CHUNK_NULL_COUNT = 20;
    private static final int CHUNK_FLAGS = 24;

    private static final byte FLAG_HAS_MIN_MAX = 1;

    private static final int FILTER_ENTRY_SIZE = 17;
    private static final int FILTER_ROW_GROUP = 0;
    private static final int FILTER_COLUMN = 4;
    private static final int FILTER_VALUE_TYPE = 8;
    private static final int FILTER_OFFSET = 9;
    private static final int FILTER_LENGTH = 13;
    private static final FilterValueType[] FILTER_VALUE_TYPES = FilterValueType.values();

    private static final KeyKind[] KEY_KINDS = KeyKind.values();

    private final byte[] encoded;
    // derived from the header, kept so hot accessors need no header reads
    private final int columnCount;
    private final int rowGroupCount;
    private final int rowGroupsStart;
    private final int chunksStart;
    private final int filterCount;

    private CompactFileStats(byte[] encoded)
    {
        this.encoded = encoded;
        this.columnCount = (int) INT.get(encoded, COLUMN_COUNT_OFFSET);
        this.rowGroupCount = (int) INT.get(encoded, ROW_GROUP_COUNT_OFFSET);
        this.rowGroupsStart = HEADER_SIZE + columnCount;
        this.chunksStart = rowGroupsStart + rowGroupCount * ROW_GROUP_SIZE;
        this.filterCount = encoded[VERSION_OFFSET] == VERSION_WITH_FILTERS ? (int) INT.get(encoded, filtersStart()) : 0;
    }

    /**
     * Wraps an encoding produced by {@link Builder#build()} (not copied: the caller hands it over).
     *
     * @throws IllegalArgumentException when the bytes are not a valid encoding, with what is wrong
     */
    public static CompactFileStats wrap(byte[] encoded)
    {
        requireNonNull(encoded, "encoded is null");
        validate(encoded);
        return new CompactFileStats(encoded);
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
     * Bytes of the encoding, which is all this holds besides a small wrapper.
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
        return KEY_KINDS[encoded[HEADER_SIZE + column]];
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
        return (long) LONG.get(encoded, rowGroupPosition(rowGroup) + ROW_GROUP_ROW_COUNT);
    }

    /**
     * File offset of the row group's first column chunk (its first page, dictionary or data).
     */
    public long rowGroupOffset(int rowGroup)
    {
        return (long) LONG.get(encoded, rowGroupPosition(rowGroup) + ROW_GROUP_FILE_OFFSET);
    }

    /**
     * Sum of the compressed sizes of the row group's column chunks.
     */
    public long rowGroupCompressedSize(int rowGroup)
    {
        checkIndex(rowGroup, rowGroupCount);
        long size = 0;
        for (int column = 0; column < columnCount; column++) {
            size += (int) INT.get(encoded, chunkPosition(rowGroup, column) + CHUNK_COMPRESSED_SIZE);
        }
        return size;
    }

    public long compressedSize(int rowGroup, int column)
    {
        if (isMissing(column)) {
            checkIndex(rowGroup, rowGroupCount);
            return 0;
        }
        return (int) INT.get(encoded, checkedChunkPosition(rowGroup, column) + CHUNK_COMPRESSED_SIZE);
    }

    public boolean hasMinMax(int rowGroup, int column)
    {
        if (isMissing(column)) {
            checkIndex(rowGroup, rowGroupCount);
            return false;
        }
        return (encoded[checkedChunkPosition(rowGroup, column) + CHUNK_FLAGS] & FLAG_HAS_MIN_MAX) != 0;
    }

    /**
     * The smallest key of the chunk's non-null values; only meaningful when {@link #hasMinMax}.
     */
    public long min(int rowGroup, int column)
    {
        return (long) LONG.get(encoded, checkedChunkPosition(rowGroup, column) + CHUNK_MIN);
    }

    /**
     * The largest key of the chunk's non-null values; only meaningful when {@link #hasMinMax}.
     */
    public long max(int rowGroup, int column)
    {
        return (long) LONG.get(encoded, checkedChunkPosition(rowGroup, column) + CHUNK_MAX);
    }

    /**
     * Number of nulls in the chunk, or -1 when unknown.
     */
    public long nullCount(int rowGroup, int column)
    {
        if (isMissing(column)) {
            return rowGroupRowCount(rowGroup);
        }
        return (int) INT.get(encoded, checkedChunkPosition(rowGroup, column) + CHUNK_NULL_COUNT);
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
     * False only when no value of the chunk hashes to {@code hash} (see {@link SplitBlockBloomFilter}).
     */
    public boolean filterMightContain(int filter, long hash)
    {
        int position = filterEntryPosition(filter);
        return SplitBlockBloomFilter.mightContain(encoded, (int) INT.get(encoded, position + FILTER_OFFSET), (int) INT.get(encoded, position + FILTER_LENGTH), hash);
    }

    private int filtersStart()
    {
        return chunksStart + rowGroupCount * columnCount * CHUNK_SIZE;
    }

    private int filterEntryPosition(int filter)
    {
        checkIndex(filter, filterCount);
        return filtersStart() + Integer.BYTES + filter * FILTER_ENTRY_SIZE;
    }

    private static long filterOrder(int column, int rowGroup)
    {
        return ((long) column << 32) | rowGroup;
    }

    private int rowGroupPosition(int rowGroup)
    {
        checkIndex(rowGroup, rowGroupCount);
        return rowGroupsStart + rowGroup * ROW_GROUP_SIZE;
    }

    private int checkedChunkPosition(int rowGroup, int column)
    {
        checkIndex(rowGroup, rowGroupCount);
        checkIndex(column, columnCount);
        return chunkPosition(rowGroup, column);
    }

    private int chunkPosition(int rowGroup, int column)
    {
        return chunksStart + (column * rowGroupCount + rowGroup) * CHUNK_SIZE;
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

    private static long encodedSize(int columnCount, int rowGroupCount)
    {
        return HEADER_SIZE + columnCount + (long) rowGroupCount * ROW_GROUP_SIZE + (long) rowGroupCount * columnCount * CHUNK_SIZE;
    }

    private static void validate(byte[] encoded)
    {
        if (encoded.length < HEADER_SIZE) {
            throw invalid("%s bytes is shorter than the %s-byte header", encoded.length, HEADER_SIZE);
        }
        if ((int) INT.get(encoded, MAGIC_OFFSET) != MAGIC) {
            throw invalid("bad magic (not compact stats)");
        }
        byte version = encoded[VERSION_OFFSET];
        if (version != VERSION_WITHOUT_FILTERS && version != VERSION_WITH_FILTERS) {
            throw invalid("unsupported version %s (this reader knows versions %s and %s)", version, VERSION_WITHOUT_FILTERS, VERSION_WITH_FILTERS);
        }
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
            rowGroupRows[rowGroup] = (long) LONG.get(encoded, position + ROW_GROUP_ROW_COUNT);
            long offset = (long) LONG.get(encoded, position + ROW_GROUP_FILE_OFFSET);
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
            validateFilters(encoded, position, columnCount, rowGroupCount);
        }
    }

    private static void validateFilters(byte[] encoded, int start, int columnCount, int rowGroupCount)
    {
        int count = (int) INT.get(encoded, start);
        if (count <= 0 || count > (encoded.length - start - Integer.BYTES) / FILTER_ENTRY_SIZE) {
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

    private static IllegalArgumentException invalid(String format, Object... arguments)
    {
        return new IllegalArgumentException("Invalid compact stats: " + format.formatted(arguments));
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
        private static final int INITIAL_ROW_GROUPS = 8;

        private final KeyKind[] kinds;
        private long[] rowGroupRows = new long[INITIAL_ROW_GROUPS];
        private long[] rowGroupOffsets = new long[INITIAL_ROW_GROUPS];
        // chunks in the order added (row-major); build() lays them out column-major
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
        private final Set<Long> filteredChunks = new HashSet<>();

        private record Filter(int rowGroup, int column, FilterValueType valueType, byte[] bitset) {}

        private Builder(List<KeyKind> columnKinds)
        {
            requireNonNull(columnKinds, "columnKinds is null");
            this.kinds = columnKinds.toArray(KeyKind[]::new);
            for (KeyKind kind : kinds) {
                requireNonNull(kind, "columnKinds contains null");
            }
            int chunkCapacity = Math.max(1, INITIAL_ROW_GROUPS * kinds.length);
            mins = new long[chunkCapacity];
            maxs = new long[chunkCapacity];
            compressedSizes = new int[chunkCapacity];
            nullCounts = new int[chunkCapacity];
            hasMinMax = new boolean[chunkCapacity];
        }

        /**
         * Where the Parquet footer (FileMetaData, without length and magic) sits in the file.
         */
        public Builder footer(long offset, int length)
        {
            if (offset < 0 || length < 0) {
                throw new IllegalArgumentException("footer offset %s and length %s must not be negative".formatted(offset, length));
            }
            this.footerOffset = offset;
            this.footerLength = length;
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
            if (rowGroupCount == rowGroupRows.length) {
                rowGroupRows = Arrays.copyOf(rowGroupRows, rowGroupCount * 2);
                rowGroupOffsets = Arrays.copyOf(rowGroupOffsets, rowGroupCount * 2);
            }
            rowGroupRows[rowGroupCount] = rowCount;
            rowGroupOffsets[rowGroupCount] = fileOffset;
            rowGroupCount++;
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
            long rowCount = rowGroupRows[rowGroupCount - 1];
            if (nullCount < -1 || nullCount > rowCount) {
                throw new IllegalArgumentException("column %s: null count %s outside [-1, %s]".formatted(column, nullCount, rowCount));
            }
            ensureChunkCapacity();
            mins[chunkCount] = minKey.orElse(0);
            maxs[chunkCount] = maxKey.orElse(0);
            hasMinMax[chunkCount] = minKey.isPresent();
            compressedSizes[chunkCount] = (int) compressedSize;
            // a null count past the int range only happens in row groups of over 2^31 rows; forgetting it is safe
            nullCounts[chunkCount] = nullCount > Integer.MAX_VALUE ? -1 : (int) nullCount;
            chunkCount++;
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
            if (rowGroup < 0 || rowGroup * kinds.length + column >= chunkCount) {
                throw new IllegalArgumentException("row group %s column %s: add the column chunk before its filter".formatted(rowGroup, column));
            }
            if (!SplitBlockBloomFilter.isValidLength(bitset.length)) {
                throw new IllegalArgumentException("row group %s column %s: a filter of %s bytes is not a whole number of blocks".formatted(rowGroup, column, bitset.length));
            }
            if (!filteredChunks.add(filterOrder(column, rowGroup))) {
                throw new IllegalArgumentException("row group %s column %s already has a filter".formatted(rowGroup, column));
            }
            filters.add(new Filter(rowGroup, column, valueType, bitset.clone()));
            return this;
        }

        public CompactFileStats build()
        {
            checkRowGroupComplete();
            long size = encodedSize(kinds.length, rowGroupCount);
            if (!filters.isEmpty()) {
                size += Integer.BYTES + (long) filters.size() * FILTER_ENTRY_SIZE + filters.stream().mapToLong(filter -> filter.bitset().length).sum();
            }
            if (size > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("compact stats of %s row groups and %s columns are too large".formatted(rowGroupCount, kinds.length));
            }
            byte[] encoded = new byte[(int) size];
            long rowCount = 0;
            for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
                rowCount = Math.addExact(rowCount, rowGroupRows[rowGroup]);
            }
            INT.set(encoded, MAGIC_OFFSET, MAGIC);
            encoded[VERSION_OFFSET] = filters.isEmpty() ? VERSION_WITHOUT_FILTERS : VERSION_WITH_FILTERS;
            INT.set(encoded, COLUMN_COUNT_OFFSET, kinds.length);
            INT.set(encoded, ROW_GROUP_COUNT_OFFSET, rowGroupCount);
            LONG.set(encoded, ROW_COUNT_OFFSET, rowCount);
            LONG.set(encoded, FOOTER_OFFSET_OFFSET, footerOffset);
            INT.set(encoded, FOOTER_LENGTH_OFFSET, footerLength);

            int position = HEADER_SIZE;
            for (KeyKind kind : kinds) {
                encoded[position++] = (byte) kind.ordinal();
            }
            for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
                LONG.set(encoded, position + ROW_GROUP_ROW_COUNT, rowGroupRows[rowGroup]);
                LONG.set(encoded, position + ROW_GROUP_FILE_OFFSET, rowGroupOffsets[rowGroup]);
                position += ROW_GROUP_SIZE;
            }
            for (int column = 0; column < kinds.length; column++) {
                for (int rowGroup = 0; rowGroup < rowGroupCount; rowGroup++) {
                    int chunk = rowGroup * kinds.length + column;
                    LONG.set(encoded, position + CHUNK_MIN, mins[chunk]);
                    LONG.set(encoded, position + CHUNK_MAX, maxs[chunk]);
                    INT.set(encoded, position + CHUNK_COMPRESSED_SIZE, compressedSizes[chunk]);
                    INT.set(encoded, position + CHUNK_NULL_COUNT, nullCounts[chunk]);
                    encoded[position + CHUNK_FLAGS] = hasMinMax[chunk] ? FLAG_HAS_MIN_MAX : 0;
                    position += CHUNK_SIZE;
                }
            }
            if (!filters.isEmpty()) {
                writeFilters(encoded, position);
            }
            return new CompactFileStats(encoded);
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

        private void checkRowGroupComplete()
        {
            if (chunkCount != rowGroupCount * kinds.length) {
                throw new IllegalStateException("row group %s has %s of its %s column chunks".formatted(rowGroupCount - 1, chunkCount % kinds.length, kinds.length));
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
    }
}
