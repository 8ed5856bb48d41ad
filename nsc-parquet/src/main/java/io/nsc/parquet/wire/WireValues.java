package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.SliceInput;
import io.airlift.slice.Slices;
import io.nsc.parquet.memory.MemoryBudget;
import io.trino.spi.block.Block;
import io.trino.spi.block.ByteArrayBlock;
import io.trino.spi.block.IntArrayBlock;
import io.trino.spi.block.ShortArrayBlock;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Reads the constant values of one request (domain bounds, comparison and IN values), each a
 * block of its column's type in Trino's block encoding. The request's value bytes are counted
 * against its limit before each block is looked at, and what the values decode to (the block,
 * then a boxed object per value) is reserved in the budget before it is allocated.
 * Not thread-safe: one per request.
 */
public final class WireValues
{
    // a boxed native value and its slot in a list or range: what each decoded value retains beyond its block
    private static final int BYTES_PER_BOXED_VALUE = 64;

    private final long maxBytes;
    private final MemoryBudget budget;
    private long bytes;

    public WireValues(long maxBytes, MemoryBudget budget)
    {
        checkArgument(maxBytes > 0, "maxBytes must be positive");
        this.maxBytes = maxBytes;
        this.budget = requireNonNull(budget, "budget is null");
    }

    /** For values that come from a trusted place (the connector's own table handle). */
    public static WireValues unbounded()
    {
        return new WireValues(Long.MAX_VALUE, MemoryBudget.unlimited());
    }

    /**
     * Counts {@code count} more bytes of the request's values.
     *
     * @throws IllegalArgumentException past the request's limit
     */
    void count(long count, String what)
    {
        checkArgument(count <= maxBytes - bytes, "the request's values exceed %s bytes (at %s)", maxBytes, what);
        bytes += count;
    }

    /**
     * The values of a block of {@code type}, nulls as null.
     *
     * @throws IllegalArgumentException when the block is malformed, not of the type, or over the limits
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when the values decode to more than the budget allows
     */
    public List<Object> read(Type type, ByteString encoded)
    {
        count(encoded.size(), "a block of %s values".formatted(type));
        SliceInput input = Slices.wrappedBuffer(encoded.toByteArray()).getInput();
        Block block = new NscBlockEncodingSerde(budget).readBlock(input);
        checkArgument(!input.isReadable(), "%s bytes after a block of %s values", input.available(), type);
        checkArgument(block.getUnderlyingValueBlock().getClass() == type.getValueBlockType(),
                "values encoded as %s for a column of type %s", block.getUnderlyingValueBlock().getClass().getSimpleName(), type);
        budget.reserve((long) block.getPositionCount() * BYTES_PER_BOXED_VALUE, "decoded values");
        List<Object> values = new ArrayList<>(block.getPositionCount());
        for (int position = 0; position < block.getPositionCount(); position++) {
            values.add(readNativeValue(type, block, position));
        }
        return values;
    }

    /**
     * The values of a set of single points of a signed-long-ordered {@code type} ({@link PointDeltas}), ascending.
     *
     * @throws IllegalArgumentException when the encoding is malformed, a value is outside the type, or over the limits
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when the values decode to more than the budget allows
     */
    public List<Object> readPointDeltas(Type type, ByteString encoded)
    {
        count(encoded.size(), "the points of a set of %s values".formatted(type));
        byte[] bytes = encoded.toByteArray();
        int count = PointDeltas.count(bytes);
        budget.reserve((long) count * (Long.BYTES + BYTES_PER_BOXED_VALUE), "decoded values");
        long[] points = PointDeltas.decode(bytes);
        checkArgument(fits(type, points[0]) && fits(type, points[points.length - 1]), "point values of %s outside its range", type);
        List<Object> values = new ArrayList<>(points.length);
        for (long point : points) {
            values.add(point);
        }
        return values;
    }

    /** Whether the value block the type keeps its longs in can hold {@code value}. */
    private static boolean fits(Type type, long value)
    {
        Class<?> block = type.getValueBlockType();
        if (block == ByteArrayBlock.class) {
            return value == (byte) value;
        }
        if (block == ShortArrayBlock.class) {
            return value == (short) value;
        }
        return block != IntArrayBlock.class || value == (int) value;
    }
}
