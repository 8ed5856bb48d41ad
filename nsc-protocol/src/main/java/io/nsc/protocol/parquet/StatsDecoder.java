package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.StatsKeys;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.OptionalLong;

/**
 * Turns one plain-encoded Parquet statistics value (min_value/max_value bytes) into the
 * column's stats key. Each constant pairs a physical type with the unit the Trino type's key
 * space wants (see {@link io.nsc.protocol.stats.KeyKind}).
 */
enum StatsDecoder
{
    /** No min/max for this column (INT96, uuid, ...). */
    NONE {
        @Override
        OptionalLong decode(byte[] value)
        {
            return OptionalLong.empty();
        }
    },
    BOOLEAN {
        @Override
        OptionalLong decode(byte[] value)
        {
            if (value.length != 1 || (value[0] & 0xFF) > 1) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(StatsKeys.ofBoolean(value[0] == 1));
        }
    },
    /** INT32 as is: integers, dates (days), short decimals (unscaled). */
    INT32 {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Integer.BYTES ? OptionalLong.of(StatsKeys.ofLong(readInt(value))) : OptionalLong.empty();
        }
    },
    /** INT64 as is: bigint, short decimals (unscaled), timestamp(6) (epoch micros). */
    INT64 {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Long.BYTES ? OptionalLong.of(StatsKeys.ofLong(readLong(value))) : OptionalLong.empty();
        }
    },
    FLOAT {
        @Override
        OptionalLong decode(byte[] value)
        {
            if (value.length != Float.BYTES) {
                return OptionalLong.empty();
            }
            float floatValue = Float.intBitsToFloat(readInt(value));
            // a NaN bound says nothing about the other values (old writers let it leak into stats)
            return Float.isNaN(floatValue) ? OptionalLong.empty() : OptionalLong.of(StatsKeys.ofReal(floatValue));
        }
    },
    DOUBLE {
        @Override
        OptionalLong decode(byte[] value)
        {
            if (value.length != Double.BYTES) {
                return OptionalLong.empty();
            }
            double doubleValue = Double.longBitsToDouble(readLong(value));
            return Double.isNaN(doubleValue) ? OptionalLong.empty() : OptionalLong.of(StatsKeys.ofDouble(doubleValue));
        }
    },
    /** TIME(MILLIS) in INT32 to picoseconds of the day. */
    TIME_MILLIS {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Integer.BYTES ? scaled(readInt(value), 1_000_000_000L) : OptionalLong.empty();
        }
    },
    /** TIME(MICROS) in INT64 to picoseconds of the day. */
    TIME_MICROS {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Long.BYTES ? scaled(readLong(value), 1_000_000L) : OptionalLong.empty();
        }
    },
    /** TIME(NANOS) in INT64 to picoseconds of the day. */
    TIME_NANOS {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Long.BYTES ? scaled(readLong(value), 1_000L) : OptionalLong.empty();
        }
    },
    /** TIMESTAMP(MILLIS) to epoch micros. */
    TIMESTAMP_MILLIS {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Long.BYTES ? scaled(readLong(value), 1_000L) : OptionalLong.empty();
        }
    },
    /** TIMESTAMP(NANOS) floored to epoch micros. */
    TIMESTAMP_NANOS {
        @Override
        OptionalLong decode(byte[] value)
        {
            return value.length == Long.BYTES ? OptionalLong.of(StatsKeys.ofEpochNanosFloorMicros(readLong(value))) : OptionalLong.empty();
        }
    },
    /** varchar/varbinary: the first 8 bytes. */
    BINARY_PREFIX {
        @Override
        OptionalLong decode(byte[] value)
        {
            return OptionalLong.of(StatsKeys.ofBinaryPrefix(value, 0, value.length));
        }
    },
    /** Big-endian two's complement unscaled decimal (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY), saturated to a long. */
    BINARY_DECIMAL {
        @Override
        OptionalLong decode(byte[] value)
        {
            if (value.length == 0) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(decodeBigEndianSaturated(value));
        }
    };

    private static final VarHandle LITTLE_ENDIAN_INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LITTLE_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * The key of a statistics value, or empty when the bytes are malformed or the value has no
     * key (NaN, out of the key's range): the chunk then simply keeps no min/max.
     */
    abstract OptionalLong decode(byte[] value);

    private static int readInt(byte[] value)
    {
        return (int) LITTLE_ENDIAN_INT.get(value, 0);
    }

    private static long readLong(byte[] value)
    {
        return (long) LITTLE_ENDIAN_LONG.get(value, 0);
    }

    private static OptionalLong scaled(long value, long factor)
    {
        try {
            return OptionalLong.of(Math.multiplyExact(value, factor));
        }
        catch (ArithmeticException e) {
            // far outside any real date; rather no min/max than a wrong one
            return OptionalLong.empty();
        }
    }

    static long decodeBigEndianSaturated(byte[] value)
    {
        boolean negative = value[0] < 0;
        int signByte = negative ? 0xFF : 0x00;
        // leading bytes that only extend the sign carry no magnitude
        int start = 0;
        while (start < value.length - Long.BYTES && (value[start] & 0xFF) == signByte) {
            start++;
        }
        int significant = value.length - start;
        if (significant > Long.BYTES) {
            return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        long result = negative ? -1L : 0L;
        for (int i = start; i < value.length; i++) {
            result = (result << 8) | (value[i] & 0xFF);
        }
        if (significant == Long.BYTES && (result < 0) != negative) {
            // the top bit of the remaining 8 bytes disagrees with the sign: the value needs a 9th byte
            return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return result;
    }
}
