package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.spi.TrinoException;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimeType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Types;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MICROS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit.MILLIS;
import static org.apache.parquet.schema.LogicalTypeAnnotation.timeType;
import static org.apache.parquet.schema.LogicalTypeAnnotation.timestampType;
import static org.apache.parquet.schema.LogicalTypeAnnotation.uuidType;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;

/**
 * The column types nsc tables can be written with, and the Parquet type each is written as: every
 * type nsc reads that trino-parquet's writer can encode. The storage nodes map each Parquet type
 * back to the same Trino type, except char(n): Parquet has no char, so it is stored as a string
 * (trailing spaces trimmed, as Trino keeps char values) and the table's column type says char(n).
 */
public final class WriteTypes
{
    private static final String SCHEMA_NAME = "trino_schema";
    private static final int UUID_BYTES = 16;

    // the precisions trino-parquet writes (TIME as MICROS only), ascending
    private static final List<Integer> TIME_PRECISIONS = List.of(6);
    private static final List<Integer> TIMESTAMP_PRECISIONS = List.of(3, 6, 9);
    private static final List<Integer> TIMESTAMP_TZ_PRECISIONS = List.of(3, 6);

    private WriteTypes() {}

    public static boolean isSupported(Type type)
    {
        return switch (type) {
            case BooleanType _, TinyintType _, SmallintType _, IntegerType _, BigintType _, RealType _, DoubleType _, DecimalType _ -> true;
            case VarcharType _, CharType _, VarbinaryType _, DateType _, UuidType _ -> true;
            case TimeType time -> TIME_PRECISIONS.contains(time.getPrecision());
            case TimestampType timestamp -> TIMESTAMP_PRECISIONS.contains(timestamp.getPrecision());
            case TimestampWithTimeZoneType timestamp -> TIMESTAMP_TZ_PRECISIONS.contains(timestamp.getPrecision());
            default -> false;
        };
    }

    /**
     * The type nsc stores a column declared with {@code type} as, when that is another type: the
     * next precision it stores for times and timestamps, so that no value is rounded. Trino then
     * creates the column with that type and casts what is written into it.
     */
    public static Optional<Type> storedType(Type type)
    {
        Optional<? extends Type> stored = switch (type) {
            case TimeType time -> nextPrecision(TIME_PRECISIONS, time.getPrecision()).map(TimeType::createTimeType);
            case TimestampType timestamp -> nextPrecision(TIMESTAMP_PRECISIONS, timestamp.getPrecision()).map(TimestampType::createTimestampType);
            case TimestampWithTimeZoneType timestamp -> nextPrecision(TIMESTAMP_TZ_PRECISIONS, timestamp.getPrecision()).map(TimestampWithTimeZoneType::createTimestampWithTimeZoneType);
            default -> Optional.empty();
        };
        return stored.filter(storedType -> !storedType.equals(type)).map(Type.class::cast);
    }

    private static Optional<Integer> nextPrecision(List<Integer> precisions, int precision)
    {
        return precisions.stream().filter(stored -> stored >= precision).findFirst();
    }

    /**
     * @throws TrinoException NOT_SUPPORTED in the words Trino's connectors use (docs/connector/writing.md lists the types nsc stores)
     */
    public static void checkSupported(Type type)
    {
        if (!isSupported(type)) {
            throw new TrinoException(NOT_SUPPORTED, "Unsupported column type: " + type.getDisplayName());
        }
    }

    /** A Parquet file schema with its Trino type per primitive column, as trino-parquet's writer takes them. */
    public record ParquetSchema(MessageType messageType, Map<List<String>, Type> primitiveTypes) {}

    public static ParquetSchema parquetSchema(List<String> names, List<Type> types)
    {
        checkArgument(names.size() == types.size(), "%s names for %s types", names.size(), types.size());
        ImmutableList.Builder<org.apache.parquet.schema.Type> fields = ImmutableList.builder();
        ImmutableMap.Builder<List<String>, Type> primitiveTypes = ImmutableMap.builder();
        for (int i = 0; i < names.size(); i++) {
            checkSupported(types.get(i));
            fields.add(parquetType(names.get(i), types.get(i)));
            primitiveTypes.put(List.of(names.get(i)), writerType(types.get(i)));
        }
        return new ParquetSchema(new MessageType(SCHEMA_NAME, fields.build()), primitiveTypes.buildOrThrow());
    }

    /**
     * trino-parquet writes a varchar(n) exactly as a varchar, but writes Bloom filters only for
     * the unbounded type, so it is given that.
     */
    private static Type writerType(Type type)
    {
        return type instanceof VarcharType ? VarcharType.VARCHAR : type;
    }

    private static org.apache.parquet.schema.Type parquetType(String name, Type type)
    {
        return switch (type) {
            // trino-parquet's schema converter (Hive's mapping) refuses these three; its writer
            // takes them with the annotations Trino's Iceberg connector declares
            case TimeType _ -> Types.optional(INT64).as(timeType(false, MICROS)).named(name);
            case TimestampWithTimeZoneType timestamp -> Types.optional(INT64).as(timestampType(true, timestamp.getPrecision() == 3 ? MILLIS : MICROS)).named(name);
            case UuidType _ -> Types.optional(FIXED_LEN_BYTE_ARRAY).length(UUID_BYTES).as(uuidType()).named(name);
            // new decimal encoding (INT32/INT64 for short decimals), INT64 timestamps
            default -> new ParquetSchemaConverter(List.of(type), List.of(name), false, false).getMessageType().getType(0);
        };
    }
}
