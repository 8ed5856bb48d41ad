package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Ascending distinct longs as the first value (a zigzag varint) and the distance from each value
 * to the next (a varint). Keys of a join's dynamic filter lie close together, so most take a
 * byte or two where a pair of inclusive bounds takes eighteen.
 */
final class PointDeltas
{
    private static final int MAX_VARINT_BYTES = 10;

    private PointDeltas() {}

    /**
     * @param values ascending and distinct, each a {@link Long}
     */
    static ByteString encode(List<Object> values)
    {
        checkArgument(!values.isEmpty(), "no values");
        ByteString.Output bytes = ByteString.newOutput(values.size() * 2);
        CodedOutputStream output = CodedOutputStream.newInstance(bytes);
        try {
            long previous = (Long) values.getFirst();
            output.writeSInt64NoTag(previous);
            for (int i = 1; i < values.size(); i++) {
                long value = (Long) values.get(i);
                checkArgument(value > previous, "values not ascending and distinct: %s after %s", value, previous);
                // the distance of two signed longs can exceed Long.MAX_VALUE: it is written as unsigned
                output.writeUInt64NoTag(value - previous);
                previous = value;
            }
            output.flush();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteString();
    }

    /** How many values {@code encoded} holds: one per varint, each ending in a byte below 0x80. */
    static int count(byte[] encoded)
    {
        int count = 0;
        for (byte value : encoded) {
            if (value >= 0) {
                count++;
            }
        }
        return count;
    }

    /**
     * @throws IllegalArgumentException when a varint is malformed or cut short, or the values
     * are not ascending, or exceed a signed long
     */
    static long[] decode(byte[] encoded)
    {
        long[] values = new long[count(encoded)];
        checkArgument(values.length > 0, "no point values");
        Reader reader = new Reader(encoded);
        long first = reader.varint();
        values[0] = (first >>> 1) ^ -(first & 1);
        for (int i = 1; i < values.length; i++) {
            long distance = reader.varint();
            // a distance of 0 repeats a value; one past the room left below Long.MAX_VALUE (as unsigned) wraps
            checkArgument(distance != 0 && Long.compareUnsigned(distance, Long.MAX_VALUE - values[i - 1]) <= 0,
                    "point %s is not above the one before (distance %s)", i, Long.toUnsignedString(distance));
            values[i] = values[i - 1] + distance;
        }
        // bytes after the last complete varint: a value cut short
        checkArgument(reader.atEnd(), "point values cut short");
        return values;
    }

    private static final class Reader
    {
        private final byte[] bytes;
        private int position;

        Reader(byte[] bytes)
        {
            this.bytes = bytes;
        }

        boolean atEnd()
        {
            return position == bytes.length;
        }

        long varint()
        {
            long result = 0;
            for (int shift = 0, read = 0; read < MAX_VARINT_BYTES; shift += 7, read++) {
                checkArgument(position < bytes.length, "point values cut short");
                byte next = bytes[position++];
                result |= (long) (next & 0x7F) << shift;
                if (next >= 0) {
                    checkArgument(read < MAX_VARINT_BYTES - 1 || next <= 1, "a point value's varint exceeds 64 bits");
                    return result;
                }
            }
            throw new IllegalArgumentException("a point value's varint is longer than %s bytes".formatted(MAX_VARINT_BYTES));
        }
    }
}
