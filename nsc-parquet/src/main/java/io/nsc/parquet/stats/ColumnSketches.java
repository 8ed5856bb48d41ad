package io.nsc.parquet.stats;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.slice.SliceInput;
import io.airlift.slice.Slices;
import io.airlift.stats.cardinality.HyperLogLog;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.type.DateTimeEncoding;
import io.trino.spi.type.Int128;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;

import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Distinct-value sketches (HyperLogLog, about 3% standard error) of every column of one file,
 * built by whoever writes or verifies the file and kept by the metadata service next to the
 * compact stats. Sketches of a table's files merge into its columns' distinct counts: the NDV
 * statistics the cost-based optimizer uses, and the group-count bound of aggregation pushdown.
 */
public final class ColumnSketches
{
    private static final int BUCKETS = 1024;
    private static final byte FORMAT_VERSION = 1;
    // a sketch list larger than this is not one this class wrote
    private static final int MAX_SERIALIZED_BYTES = 16 * 1024 * 1024;

    private final List<Type> types;
    private final HyperLogLog[] sketches;

    private ColumnSketches(List<Type> types, HyperLogLog[] sketches)
    {
        this.types = ImmutableList.copyOf(types);
        this.sketches = sketches;
    }

    public static ColumnSketches create(List<Type> types)
    {
        HyperLogLog[] sketches = new HyperLogLog[types.size()];
        for (int column = 0; column < sketches.length; column++) {
            sketches[column] = HyperLogLog.newInstance(BUCKETS);
        }
        return new ColumnSketches(types, sketches);
    }

    /** Adds every non-null value of every column; the page's channels are the columns. */
    public void add(Page page)
    {
        checkArgument(page.getChannelCount() == sketches.length, "page of %s channels for %s columns", page.getChannelCount(), sketches.length);
        for (int column = 0; column < sketches.length; column++) {
            add(column, page.getBlock(column));
        }
    }

    public void add(int column, Block block)
    {
        Type type = types.get(column);
        HyperLogLog sketch = sketches[column];
        for (int position = 0; position < block.getPositionCount(); position++) {
            if (!block.isNull(position)) {
                addValue(sketch, type, readNativeValue(type, block, position));
            }
        }
    }

    // Values that Trino treats as the same (NaN and NaN, 0.0 and -0.0, one instant in two
    // zones) count once.
    private static void addValue(HyperLogLog sketch, Type type, Object value)
    {
        switch (value) {
            case Slice slice -> sketch.add(slice);
            case Boolean bool -> sketch.add(bool ? 1 : 0);
            case Double number -> sketch.add(Double.doubleToLongBits(number == 0 ? 0.0 : number));
            case Long number when type instanceof TimestampWithTimeZoneType -> sketch.add(DateTimeEncoding.unpackMillisUtc(number));
            case Long number -> sketch.add(number);
            case Int128 number -> sketch.add(number.getHigh() * 0x9E3779B97F4A7C15L ^ number.getLow());
            case LongTimestamp timestamp -> sketch.add(timestamp.getEpochMicros() * 1_000_003L ^ timestamp.getPicosOfMicro());
            case LongTimestampWithTimeZone timestamp -> sketch.add(timestamp.getEpochMillis() * 1_000_000_007L ^ timestamp.getPicosOfMilli());
            default -> sketch.add(value.hashCode());
        }
    }

    public byte[] serialize()
    {
        DynamicSliceOutput output = new DynamicSliceOutput(64 + sketches.length * 32);
        output.writeByte(FORMAT_VERSION);
        output.writeInt(sketches.length);
        for (HyperLogLog sketch : sketches) {
            Slice serialized = sketch.serialize();
            output.writeInt(serialized.length());
            output.writeBytes(serialized);
        }
        return output.slice().getBytes();
    }

    /**
     * The sketches of one file, one per column.
     *
     * @throws IllegalArgumentException when the bytes are not a sketch list of {@code columnCount} columns
     */
    public static List<HyperLogLog> deserialize(byte[] serialized, int columnCount)
    {
        return deserialize(serialized, OptionalInt.of(columnCount));
    }

    private static List<HyperLogLog> deserialize(byte[] serialized, OptionalInt columnCount)
    {
        requireNonNull(serialized, "serialized is null");
        checkArgument(serialized.length <= MAX_SERIALIZED_BYTES, "sketches of %s bytes", serialized.length);
        try {
            SliceInput input = Slices.wrappedBuffer(serialized).getInput();
            checkArgument(input.readByte() == FORMAT_VERSION, "unknown sketch format");
            int columns = input.readInt();
            checkArgument(columnCount.isEmpty() || columns == columnCount.getAsInt(), "sketches of %s columns for a table of %s", columns, columnCount.orElse(columns));
            checkArgument(columns >= 0 && columns <= input.available() / Integer.BYTES, "sketches of %s columns in %s bytes", columns, input.available());
            ImmutableList.Builder<HyperLogLog> sketches = ImmutableList.builderWithExpectedSize(columns);
            for (int column = 0; column < columns; column++) {
                int length = input.readInt();
                checkArgument(length >= 0 && length <= input.available(), "sketch of %s bytes with %s left", length, input.available());
                sketches.add(HyperLogLog.newInstance(input.readSlice(length)));
            }
            checkArgument(!input.isReadable(), "bytes left after the last sketch");
            return sketches.build();
        }
        catch (IndexOutOfBoundsException | IllegalStateException e) {
            throw new IllegalArgumentException("corrupt sketches: " + e.getMessage(), e);
        }
    }

    /**
     * Distinct non-null values of each column over files, from their serialized sketches;
     * empty for a column when any file has no sketches.
     */
    public static List<OptionalLong> distinctCounts(List<byte[]> files, int columnCount)
    {
        Union union = new Union(columnCount);
        files.forEach(union::add);
        return union.distinctCounts();
    }

    /**
     * The sketches of files merged one file at a time, so that a table's distinct counts need
     * one merged sketch per column in memory, not every file's sketches at once.
     */
    public static final class Union
    {
        private final int columnCount;
        private final HyperLogLog[] merged;
        private boolean fileWithoutSketches;

        public Union(int columnCount)
        {
            checkArgument(columnCount >= 0, "columnCount is negative");
            this.columnCount = columnCount;
            this.merged = new HyperLogLog[columnCount];
        }

        /**
         * @param file the file's serialized sketches; empty when it has none
         * @throws IllegalArgumentException when the bytes are not a sketch list of this many columns
         */
        public void add(byte[] file)
        {
            requireNonNull(file, "file is null");
            if (fileWithoutSketches) {
                return;
            }
            if (file.length == 0) {
                // no distinct count is known once any file's values are not in the union
                fileWithoutSketches = true;
                return;
            }
            // a file written before the table gained columns has fewer (NULL: no value to count);
            // none has more, since a dropped column keeps its slot
            List<HyperLogLog> sketches = deserialize(file, OptionalInt.empty());
            checkArgument(sketches.size() <= columnCount, "sketches of %s columns for a table of %s", sketches.size(), columnCount);
            for (int column = 0; column < sketches.size(); column++) {
                if (merged[column] == null) {
                    merged[column] = sketches.get(column);
                }
                else {
                    merged[column].mergeWith(sketches.get(column));
                }
            }
        }

        /** Distinct non-null values of each column over the files added; empty for every column when one had no sketches. */
        public List<OptionalLong> distinctCounts()
        {
            if (fileWithoutSketches) {
                return nCopies(columnCount);
            }
            ImmutableList.Builder<OptionalLong> counts = ImmutableList.builder();
            for (HyperLogLog sketch : merged) {
                counts.add(sketch == null ? OptionalLong.of(0) : OptionalLong.of(sketch.cardinality()));
            }
            return counts.build();
        }
    }

    private static List<OptionalLong> nCopies(int columnCount)
    {
        return Collections.nCopies(columnCount, OptionalLong.empty());
    }
}
