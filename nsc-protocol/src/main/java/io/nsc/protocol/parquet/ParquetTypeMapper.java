package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.KeyKind;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.DecimalType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.IntType;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.MicroSeconds;
import org.apache.parquet.format.MilliSeconds;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.TimeUnit;
import org.apache.parquet.format.TimestampType;
import org.apache.parquet.format.Type;

import java.util.Locale;

import static io.nsc.protocol.parquet.InvalidParquetFileException.invalidFile;
import static java.util.Objects.requireNonNull;

/**
 * Maps a top-level Parquet column (its {@link SchemaElement}) to the Trino type nsc serves it
 * as, and to how its statistics become stats keys. The new {@link LogicalType} annotation wins
 * over the legacy {@link ConvertedType} when a file has both. Anything nsc cannot serve
 * faithfully (nested, unsigned, FLOAT16, INTERVAL, decimals beyond 38 digits, unknown
 * annotations) is refused rather than guessed.
 */
public final class ParquetTypeMapper
{
    private static final int MAX_DECIMAL_PRECISION = 38;
    private static final int UUID_BYTES = 16;

    private ParquetTypeMapper() {}

    /**
     * The Trino type signature for a top-level primitive column.
     *
     * @throws InvalidParquetFileException naming the file, the column and why it cannot be served
     */
    public static String toTrinoType(SchemaElement element, String displayName)
            throws InvalidParquetFileException
    {
        return map(element, displayName).spec().type();
    }

    /**
     * The column as nsc serves it (lower-cased name, Trino type).
     *
     * @throws InvalidParquetFileException naming the file, the column and why it cannot be served
     */
    public static ColumnSpec toColumnSpec(SchemaElement element, String displayName)
            throws InvalidParquetFileException
    {
        return map(element, displayName).spec();
    }

    static ParquetColumn map(SchemaElement element, String displayName)
            throws InvalidParquetFileException
    {
        requireNonNull(element, "element is null");
        requireNonNull(displayName, "displayName is null");
        String name = element.getName();
        if (name == null || name.isEmpty()) {
            throw invalidFile(displayName, "a column has no name");
        }
        Mapping mapping;
        try {
            mapping = mapType(element);
        }
        catch (UnsupportedColumnException e) {
            throw invalidFile(displayName, "column %s: %s".formatted(name, e.getMessage()));
        }
        ColumnSpec spec = new ColumnSpec(name.toLowerCase(Locale.ENGLISH), mapping.trinoType());
        // INT96 and uuid have a Trino type with an order nsc does not derive keys for
        KeyKind keyKind = mapping.decoder() == StatsDecoder.NONE ? KeyKind.NONE : KeyKind.forType(mapping.trinoType());
        return new ParquetColumn(spec, element.getType(), keyKind, mapping.decoder());
    }

    private record Mapping(String trinoType, StatsDecoder decoder) {}

    private static Mapping mapType(SchemaElement element)
            throws UnsupportedColumnException
    {
        if ((element.isSetNum_children() && element.getNum_children() > 0) || !element.isSetType()
                || element.getRepetition_type() == FieldRepetitionType.REPEATED) {
            throw new UnsupportedColumnException("nested type (struct/list/map) is not supported");
        }
        if (element.isSetLogicalType()) {
            LogicalType logicalType = element.getLogicalType();
            if (logicalType.getSetField() != null) {
                return fromLogicalType(element, logicalType);
            }
            // an annotation newer than this reader: its converted type, written for old readers, is the safe fallback
            if (!element.isSetConverted_type()) {
                throw new UnsupportedColumnException("unknown logical type annotation on %s".formatted(element.getType()));
            }
        }
        if (element.isSetConverted_type()) {
            return fromConvertedType(element, element.getConverted_type());
        }
        return fromPhysicalType(element.getType());
    }

    private static Mapping fromPhysicalType(Type type)
    {
        return switch (type) {
            case BOOLEAN -> new Mapping("boolean", StatsDecoder.BOOLEAN);
            case INT32 -> new Mapping("integer", StatsDecoder.INT32);
            case INT64 -> new Mapping("bigint", StatsDecoder.INT64);
            // INT96 statistics were written with an undefined order: keep null counts only
            case INT96 -> new Mapping("timestamp(9)", StatsDecoder.NONE);
            case FLOAT -> new Mapping("real", StatsDecoder.FLOAT);
            case DOUBLE -> new Mapping("double", StatsDecoder.DOUBLE);
            case BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY -> new Mapping("varbinary", StatsDecoder.BINARY_PREFIX);
        };
    }

    private static Mapping fromLogicalType(SchemaElement element, LogicalType logicalType)
            throws UnsupportedColumnException
    {
        Type type = element.getType();
        return switch (logicalType.getSetField()) {
            case STRING, ENUM, JSON -> {
                requirePhysical(type, "%s annotation".formatted(logicalType.getSetField()), Type.BYTE_ARRAY);
                yield new Mapping("varchar", StatsDecoder.BINARY_PREFIX);
            }
            case BSON -> {
                requirePhysical(type, "BSON annotation", Type.BYTE_ARRAY);
                yield new Mapping("varbinary", StatsDecoder.BINARY_PREFIX);
            }
            case UUID -> {
                requirePhysical(type, "UUID annotation", Type.FIXED_LEN_BYTE_ARRAY);
                if (element.getType_length() != UUID_BYTES) {
                    throw new UnsupportedColumnException("UUID annotation on FIXED_LEN_BYTE_ARRAY(%s), expected length 16".formatted(element.getType_length()));
                }
                yield new Mapping("uuid", StatsDecoder.NONE);
            }
            case DECIMAL -> {
                DecimalType decimal = logicalType.getDECIMAL();
                yield decimal(type, decimal.getPrecision(), decimal.getScale());
            }
            case DATE -> {
                requirePhysical(type, "DATE annotation", Type.INT32);
                yield new Mapping("date", StatsDecoder.INT32);
            }
            case TIME -> time(type, logicalType.getTIME().getUnit());
            case TIMESTAMP -> timestamp(type, logicalType.getTIMESTAMP());
            case INTEGER -> integer(type, logicalType.getINTEGER());
            case UNKNOWN -> throw new UnsupportedColumnException("logical type UNKNOWN (always null) is not supported");
            case FLOAT16 -> throw new UnsupportedColumnException("FLOAT16 is not supported");
            case MAP, LIST -> throw new UnsupportedColumnException("nested type (struct/list/map) is not supported");
        };
    }

    private static Mapping fromConvertedType(SchemaElement element, ConvertedType convertedType)
            throws UnsupportedColumnException
    {
        Type type = element.getType();
        return switch (convertedType) {
            case UTF8, ENUM, JSON -> {
                requirePhysical(type, "%s annotation".formatted(convertedType), Type.BYTE_ARRAY);
                yield new Mapping("varchar", StatsDecoder.BINARY_PREFIX);
            }
            case BSON -> {
                requirePhysical(type, "BSON annotation", Type.BYTE_ARRAY);
                yield new Mapping("varbinary", StatsDecoder.BINARY_PREFIX);
            }
            case DECIMAL -> {
                if (!element.isSetPrecision()) {
                    throw new UnsupportedColumnException("DECIMAL annotation without precision");
                }
                yield decimal(type, element.getPrecision(), element.isSetScale() ? element.getScale() : 0);
            }
            case DATE -> {
                requirePhysical(type, "DATE annotation", Type.INT32);
                yield new Mapping("date", StatsDecoder.INT32);
            }
            case TIME_MILLIS -> time(type, TimeUnit.MILLIS(new MilliSeconds()));
            case TIME_MICROS -> time(type, TimeUnit.MICROS(new MicroSeconds()));
            // the format defines the legacy timestamps as instants (isAdjustedToUTC = true)
            case TIMESTAMP_MILLIS -> timestamp(type, new TimestampType(true, TimeUnit.MILLIS(new MilliSeconds())));
            case TIMESTAMP_MICROS -> timestamp(type, new TimestampType(true, TimeUnit.MICROS(new MicroSeconds())));
            case INT_8 -> integer(type, new IntType((byte) 8, true));
            case INT_16 -> integer(type, new IntType((byte) 16, true));
            case INT_32 -> integer(type, new IntType((byte) 32, true));
            case INT_64 -> integer(type, new IntType((byte) 64, true));
            case UINT_8 -> integer(type, new IntType((byte) 8, false));
            case UINT_16 -> integer(type, new IntType((byte) 16, false));
            case UINT_32 -> integer(type, new IntType((byte) 32, false));
            case UINT_64 -> integer(type, new IntType((byte) 64, false));
            case INTERVAL -> throw new UnsupportedColumnException("INTERVAL is not supported");
            case MAP, MAP_KEY_VALUE, LIST -> throw new UnsupportedColumnException("nested type (struct/list/map) is not supported");
        };
    }

    private static Mapping decimal(Type type, int precision, int scale)
            throws UnsupportedColumnException
    {
        if (precision > MAX_DECIMAL_PRECISION) {
            throw new UnsupportedColumnException("decimal(%s,%s) exceeds the maximum precision %s".formatted(precision, scale, MAX_DECIMAL_PRECISION));
        }
        if (precision < 1 || scale < 0 || scale > precision) {
            throw new UnsupportedColumnException("invalid decimal(%s,%s)".formatted(precision, scale));
        }
        String trinoType = "decimal(%s,%s)".formatted(precision, scale);
        return switch (type) {
            // the unscaled value as is; INT32/INT64 always fit the key's long
            case INT32 -> new Mapping(trinoType, StatsDecoder.INT32);
            case INT64 -> new Mapping(trinoType, StatsDecoder.INT64);
            case BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY -> new Mapping(trinoType, StatsDecoder.BINARY_DECIMAL);
            default -> throw new UnsupportedColumnException("DECIMAL annotation on %s is not supported".formatted(type));
        };
    }

    private static Mapping time(Type type, TimeUnit unit)
            throws UnsupportedColumnException
    {
        if (unit.isSetMILLIS()) {
            requirePhysical(type, "TIME(MILLIS) annotation", Type.INT32);
            return new Mapping("time(3)", StatsDecoder.TIME_MILLIS);
        }
        if (unit.isSetMICROS()) {
            requirePhysical(type, "TIME(MICROS) annotation", Type.INT64);
            return new Mapping("time(6)", StatsDecoder.TIME_MICROS);
        }
        if (unit.isSetNANOS()) {
            requirePhysical(type, "TIME(NANOS) annotation", Type.INT64);
            return new Mapping("time(9)", StatsDecoder.TIME_NANOS);
        }
        throw new UnsupportedColumnException("TIME annotation with an unknown unit");
    }

    private static Mapping timestamp(Type type, TimestampType timestamp)
            throws UnsupportedColumnException
    {
        requirePhysical(type, "TIMESTAMP annotation", Type.INT64);
        String suffix = timestamp.isIsAdjustedToUTC() ? " with time zone" : "";
        TimeUnit unit = timestamp.getUnit();
        if (unit.isSetMILLIS()) {
            return new Mapping("timestamp(3)" + suffix, StatsDecoder.TIMESTAMP_MILLIS);
        }
        if (unit.isSetMICROS()) {
            return new Mapping("timestamp(6)" + suffix, StatsDecoder.INT64);
        }
        if (unit.isSetNANOS()) {
            return new Mapping("timestamp(9)" + suffix, StatsDecoder.TIMESTAMP_NANOS);
        }
        throw new UnsupportedColumnException("TIMESTAMP annotation with an unknown unit");
    }

    private static Mapping integer(Type type, IntType integer)
            throws UnsupportedColumnException
    {
        int bitWidth = integer.getBitWidth();
        if (!integer.isIsSigned()) {
            throw new UnsupportedColumnException("unsigned integer type INT(%s, false) is not supported".formatted(bitWidth));
        }
        return switch (bitWidth) {
            case 8 -> {
                requirePhysical(type, "INT(8, true) annotation", Type.INT32);
                yield new Mapping("tinyint", StatsDecoder.INT32);
            }
            case 16 -> {
                requirePhysical(type, "INT(16, true) annotation", Type.INT32);
                yield new Mapping("smallint", StatsDecoder.INT32);
            }
            case 32 -> {
                requirePhysical(type, "INT(32, true) annotation", Type.INT32);
                yield new Mapping("integer", StatsDecoder.INT32);
            }
            case 64 -> {
                requirePhysical(type, "INT(64, true) annotation", Type.INT64);
                yield new Mapping("bigint", StatsDecoder.INT64);
            }
            default -> throw new UnsupportedColumnException("INT(%s, true) is not a valid integer annotation".formatted(bitWidth));
        };
    }

    private static void requirePhysical(Type actual, String what, Type expected)
            throws UnsupportedColumnException
    {
        if (actual != expected) {
            throw new UnsupportedColumnException("%s requires %s, found %s".formatted(what, expected, actual));
        }
    }

    /**
     * Why a column cannot be served; {@link #map} adds the file and column name.
     */
    private static final class UnsupportedColumnException
            extends Exception
    {
        UnsupportedColumnException(String message)
        {
            super(message, null, false, false);
        }
    }
}
