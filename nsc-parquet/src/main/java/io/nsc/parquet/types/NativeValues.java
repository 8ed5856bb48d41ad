package io.nsc.parquet.types;

import io.airlift.slice.Slice;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

/**
 * Order of native values for the types min and max accept: signed longs (integers, date, short
 * decimal, short timestamp), unsigned bytes (varchar, varbinary: Trino orders them byte-wise),
 * Int128 (long decimal), and long timestamps by micros then picos.
 */
public final class NativeValues
{
    private NativeValues() {}

    public static boolean isOrderable(Type type)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _, DecimalType _, VarcharType _, VarbinaryType _, TimestampType _ -> true;
            default -> false;
        };
    }

    /**
     * Types whose native values are Java longs ordered as signed longs. Not real (its int bits),
     * not the packed timestamp with time zone, not a long decimal or timestamp (not longs).
     */
    public static boolean isSignedLongOrdered(Type type)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _, TimeType _ -> true;
            case DecimalType decimal -> decimal.isShort();
            case TimestampType timestamp -> timestamp.isShort();
            default -> false;
        };
    }

    public static int compare(Object left, Object right)
    {
        return switch (left) {
            case Long value -> Long.compare(value, (Long) right);
            case Slice value -> value.compareTo((Slice) right);
            case Int128 value -> value.compareTo((Int128) right);
            case LongTimestamp value -> {
                LongTimestamp other = (LongTimestamp) right;
                int micros = Long.compare(value.getEpochMicros(), other.getEpochMicros());
                yield micros != 0 ? micros : Integer.compare(value.getPicosOfMicro(), other.getPicosOfMicro());
            }
            default -> throw new IllegalArgumentException("cannot compare " + left.getClass().getSimpleName());
        };
    }
}
