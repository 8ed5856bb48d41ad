package io.nsc.parquet.types;

import io.nsc.protocol.parquet.DecodedTypes;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.Type;

import java.util.Optional;
import java.util.function.UnaryOperator;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static java.lang.Math.floorDiv;
import static java.lang.Math.floorMod;
import static java.util.Objects.requireNonNull;

/**
 * How one column is decoded: the type trino-parquet is asked for and, where that differs from the
 * column's type, the conversion of each decoded block (see {@link DecodedTypes}).
 */
public record ColumnDecoding(Type readType, Optional<UnaryOperator<Block>> conversion)
{
    private static final long NANOS_PER_MILLI = 1_000_000;
    private static final int PICOS_PER_NANO = 1_000;

    public ColumnDecoding
    {
        requireNonNull(readType, "readType is null");
        requireNonNull(conversion, "conversion is null");
    }

    public static ColumnDecoding forType(Type type)
    {
        if (!DecodedTypes.isNanosAsBigint(type.getTypeSignature().toString())) {
            return new ColumnDecoding(type, Optional.empty());
        }
        return switch (type) {
            case TimeType time -> new ColumnDecoding(BIGINT, Optional.of(block -> convert(block, time, (builder, nanos) -> time.writeLong(builder, nanos * PICOS_PER_NANO))));
            case TimestampWithTimeZoneType timestamp -> new ColumnDecoding(BIGINT, Optional.of(block -> convert(block, timestamp, (builder, nanos) ->
                    timestamp.writeObject(builder, LongTimestampWithTimeZone.fromEpochMillisAndFraction(
                            floorDiv(nanos, NANOS_PER_MILLI),
                            (int) floorMod(nanos, NANOS_PER_MILLI) * PICOS_PER_NANO,
                            UTC_KEY)))));
            default -> throw new IllegalArgumentException("no nanosecond conversion for " + type);
        };
    }

    private interface NanosWriter
    {
        void write(BlockBuilder builder, long nanos);
    }

    private static Block convert(Block nanos, Type type, NanosWriter writer)
    {
        int positions = nanos.getPositionCount();
        BlockBuilder builder = type.createBlockBuilder(null, positions);
        for (int position = 0; position < positions; position++) {
            if (nanos.isNull(position)) {
                builder.appendNull();
            }
            else {
                writer.write(builder, BIGINT.getLong(nanos, position));
            }
        }
        return builder.build();
    }
}
