package io.nsc.trino.split;

import io.airlift.slice.Slice;
import io.nsc.protocol.stats.StatsKeys;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.OptionalLong;

import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static java.lang.Float.intBitsToFloat;
import static java.lang.Math.toIntExact;

/**
 * Turns a Trino value of a column's type into the same 64-bit stats key the storage side derived
 * from the Parquet statistics (see {@link StatsKeys}). Types without a key (char, uuid, ...)
 * answer empty: the coordinator then never prunes on their values.
 */
public final class StatsKeyEncoder
{
    private StatsKeyEncoder() {}

    public static boolean hasKeys(Type type)
    {
        return type instanceof BooleanType
                || type instanceof TinyintType
                || type instanceof SmallintType
                || type instanceof IntegerType
                || type instanceof BigintType
                || type instanceof DateType
                || type instanceof DecimalType
                || type instanceof RealType
                || type instanceof DoubleType
                || type instanceof VarcharType
                || type instanceof VarbinaryType
                || type instanceof TimeType
                || type instanceof TimestampType
                || type instanceof TimestampWithTimeZoneType;
    }

    public static OptionalLong keyOf(Type type, Object value)
    {
        return switch (type) {
            case BooleanType _ -> OptionalLong.of(StatsKeys.ofBoolean((Boolean) value));
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _, TimeType _ -> OptionalLong.of(StatsKeys.ofLong((Long) value));
            case DecimalType decimal when decimal.isShort() -> OptionalLong.of(StatsKeys.ofLong((Long) value));
            case DecimalType _ -> OptionalLong.of(StatsKeys.ofDecimal128(((Int128) value).getHigh(), ((Int128) value).getLow()));
            case RealType _ -> floatingKey(intBitsToFloat(toIntExact((Long) value)));
            case DoubleType _ -> floatingKey((Double) value);
            case VarcharType _, VarbinaryType _ -> binaryKey((Slice) value);
            case TimestampType timestamp when timestamp.isShort() -> OptionalLong.of(StatsKeys.ofLong((Long) value));
            // picos below a micro are dropped: the key is monotone (floor), the column's key kind is lossy
            case TimestampType _ -> OptionalLong.of(StatsKeys.ofLong(((LongTimestamp) value).getEpochMicros()));
            case TimestampWithTimeZoneType timestamp when timestamp.isShort() -> OptionalLong.of(StatsKeys.ofLong(Math.multiplyExact(unpackMillisUtc((Long) value), 1000L)));
            case TimestampWithTimeZoneType _ -> OptionalLong.of(StatsKeys.ofLong(longTimestampWithTimeZoneMicros((LongTimestampWithTimeZone) value)));
            default -> OptionalLong.empty();
        };
    }

    private static OptionalLong floatingKey(double value)
    {
        if (Double.isNaN(value)) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(StatsKeys.ofDouble(value));
    }

    private static OptionalLong binaryKey(Slice slice)
    {
        return OptionalLong.of(StatsKeys.ofBinaryPrefix(slice.byteArray(), slice.byteArrayOffset(), slice.length()));
    }

    private static long longTimestampWithTimeZoneMicros(LongTimestampWithTimeZone value)
    {
        return Math.addExact(Math.multiplyExact(value.getEpochMillis(), 1000L), value.getPicosOfMilli() / 1_000_000);
    }
}
