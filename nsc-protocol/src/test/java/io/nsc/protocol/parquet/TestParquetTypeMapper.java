package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.KeyKind;
import org.apache.parquet.format.BsonType;
import org.apache.parquet.format.ConvertedType;
import org.apache.parquet.format.DateType;
import org.apache.parquet.format.DecimalType;
import org.apache.parquet.format.EnumType;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.Float16Type;
import org.apache.parquet.format.IntType;
import org.apache.parquet.format.JsonType;
import org.apache.parquet.format.ListType;
import org.apache.parquet.format.LogicalType;
import org.apache.parquet.format.MicroSeconds;
import org.apache.parquet.format.MilliSeconds;
import org.apache.parquet.format.NanoSeconds;
import org.apache.parquet.format.NullType;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.StringType;
import org.apache.parquet.format.TimeType;
import org.apache.parquet.format.TimeUnit;
import org.apache.parquet.format.TimestampType;
import org.apache.parquet.format.Type;
import org.apache.parquet.format.UUIDType;
import org.junit.jupiter.api.Test;

import static org.apache.parquet.format.Type.BOOLEAN;
import static org.apache.parquet.format.Type.BYTE_ARRAY;
import static org.apache.parquet.format.Type.DOUBLE;
import static org.apache.parquet.format.Type.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.format.Type.FLOAT;
import static org.apache.parquet.format.Type.INT32;
import static org.apache.parquet.format.Type.INT64;
import static org.apache.parquet.format.Type.INT96;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestParquetTypeMapper
{
    private static final TimeUnit MILLIS = TimeUnit.MILLIS(new MilliSeconds());
    private static final TimeUnit MICROS = TimeUnit.MICROS(new MicroSeconds());
    private static final TimeUnit NANOS = TimeUnit.NANOS(new NanoSeconds());

    @Test
    void testPlainPhysicalTypes()
    {
        assertMapped(primitive(BOOLEAN), "boolean", KeyKind.EXACT);
        assertMapped(primitive(INT32), "integer", KeyKind.EXACT);
        assertMapped(primitive(INT64), "bigint", KeyKind.EXACT);
        assertMapped(primitive(INT96), "timestamp(9)", KeyKind.NONE);
        assertMapped(primitive(FLOAT), "real", KeyKind.FLOATING);
        assertMapped(primitive(DOUBLE), "double", KeyKind.FLOATING);
        assertMapped(primitive(BYTE_ARRAY), "varbinary", KeyKind.LOSSY);
        assertMapped(primitive(FIXED_LEN_BYTE_ARRAY).setType_length(3), "varbinary", KeyKind.LOSSY);
    }

    @Test
    void testLogicalTypes()
    {
        assertMapped(logical(INT32, LogicalType.INTEGER(new IntType((byte) 8, true))), "tinyint", KeyKind.EXACT);
        assertMapped(logical(INT32, LogicalType.INTEGER(new IntType((byte) 16, true))), "smallint", KeyKind.EXACT);
        assertMapped(logical(INT32, LogicalType.INTEGER(new IntType((byte) 32, true))), "integer", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.INTEGER(new IntType((byte) 64, true))), "bigint", KeyKind.EXACT);
        assertMapped(logical(INT32, LogicalType.DATE(new DateType())), "date", KeyKind.EXACT);
        assertMapped(logical(INT32, LogicalType.DECIMAL(new DecimalType(2, 9))), "decimal(9,2)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.DECIMAL(new DecimalType(4, 18))), "decimal(18,4)", KeyKind.EXACT);
        assertMapped(logical(BYTE_ARRAY, LogicalType.DECIMAL(new DecimalType(0, 20))), "decimal(20,0)", KeyKind.LOSSY);
        assertMapped(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.DECIMAL(new DecimalType(10, 38))).setType_length(16), "decimal(38,10)", KeyKind.LOSSY);
        assertMapped(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.DECIMAL(new DecimalType(2, 5))).setType_length(3), "decimal(5,2)", KeyKind.EXACT);
        assertMapped(logical(INT32, LogicalType.TIME(new TimeType(false, MILLIS))), "time(3)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIME(new TimeType(true, MICROS))), "time(6)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIME(new TimeType(false, NANOS))), "time(9)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(false, MILLIS))), "timestamp(3)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(false, MICROS))), "timestamp(6)", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(false, NANOS))), "timestamp(9)", KeyKind.LOSSY);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(true, MILLIS))), "timestamp(3) with time zone", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(true, MICROS))), "timestamp(6) with time zone", KeyKind.EXACT);
        assertMapped(logical(INT64, LogicalType.TIMESTAMP(new TimestampType(true, NANOS))), "timestamp(9) with time zone", KeyKind.LOSSY);
        assertMapped(logical(BYTE_ARRAY, LogicalType.STRING(new StringType())), "varchar", KeyKind.LOSSY);
        assertMapped(logical(BYTE_ARRAY, LogicalType.ENUM(new EnumType())), "varchar", KeyKind.LOSSY);
        assertMapped(logical(BYTE_ARRAY, LogicalType.JSON(new JsonType())), "varchar", KeyKind.LOSSY);
        assertMapped(logical(BYTE_ARRAY, LogicalType.BSON(new BsonType())), "varbinary", KeyKind.LOSSY);
        assertMapped(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.UUID(new UUIDType())).setType_length(16), "uuid", KeyKind.NONE);
    }

    @Test
    void testLegacyConvertedTypes()
    {
        assertMapped(converted(BYTE_ARRAY, ConvertedType.UTF8), "varchar", KeyKind.LOSSY);
        assertMapped(converted(BYTE_ARRAY, ConvertedType.ENUM), "varchar", KeyKind.LOSSY);
        assertMapped(converted(BYTE_ARRAY, ConvertedType.JSON), "varchar", KeyKind.LOSSY);
        assertMapped(converted(BYTE_ARRAY, ConvertedType.BSON), "varbinary", KeyKind.LOSSY);
        assertMapped(converted(INT32, ConvertedType.INT_8), "tinyint", KeyKind.EXACT);
        assertMapped(converted(INT32, ConvertedType.INT_16), "smallint", KeyKind.EXACT);
        assertMapped(converted(INT32, ConvertedType.INT_32), "integer", KeyKind.EXACT);
        assertMapped(converted(INT64, ConvertedType.INT_64), "bigint", KeyKind.EXACT);
        assertMapped(converted(INT32, ConvertedType.DATE), "date", KeyKind.EXACT);
        assertMapped(converted(INT32, ConvertedType.TIME_MILLIS), "time(3)", KeyKind.EXACT);
        assertMapped(converted(INT64, ConvertedType.TIME_MICROS), "time(6)", KeyKind.EXACT);
        // the legacy timestamps are defined as instants (isAdjustedToUTC = true)
        assertMapped(converted(INT64, ConvertedType.TIMESTAMP_MILLIS), "timestamp(3) with time zone", KeyKind.EXACT);
        assertMapped(converted(INT64, ConvertedType.TIMESTAMP_MICROS), "timestamp(6) with time zone", KeyKind.EXACT);
        assertMapped(converted(INT64, ConvertedType.DECIMAL).setPrecision(12).setScale(2), "decimal(12,2)", KeyKind.EXACT);
        assertMapped(converted(FIXED_LEN_BYTE_ARRAY, ConvertedType.DECIMAL).setType_length(16).setPrecision(30), "decimal(30,0)", KeyKind.LOSSY);
    }

    @Test
    void testLogicalTypeWinsOverConvertedType()
    {
        SchemaElement element = logical(INT64, LogicalType.TIMESTAMP(new TimestampType(false, MICROS))).setConverted_type(ConvertedType.TIMESTAMP_MICROS);
        assertMapped(element, "timestamp(6)", KeyKind.EXACT);
    }

    @Test
    void testUnknownLogicalTypeFallsBackToConvertedType()
    {
        // a LogicalType union member newer than this reader reads back with no field set
        assertMapped(logical(BYTE_ARRAY, new LogicalType()).setConverted_type(ConvertedType.UTF8), "varchar", KeyKind.LOSSY);
        assertRefused(logical(BYTE_ARRAY, new LogicalType()), "column c: unknown logical type annotation on BYTE_ARRAY");
    }

    @Test
    void testRefusals()
    {
        assertRefused(logical(INT32, LogicalType.INTEGER(new IntType((byte) 32, false))), "column c: unsigned integer type INT(32, false) is not supported");
        assertRefused(logical(INT64, LogicalType.INTEGER(new IntType((byte) 64, false))), "column c: unsigned integer type INT(64, false) is not supported");
        assertRefused(converted(INT32, ConvertedType.UINT_8), "column c: unsigned integer type INT(8, false) is not supported");
        assertRefused(converted(INT64, ConvertedType.UINT_64), "column c: unsigned integer type INT(64, false) is not supported");
        assertRefused(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.FLOAT16(new Float16Type())).setType_length(2), "column c: FLOAT16 is not supported");
        assertRefused(converted(FIXED_LEN_BYTE_ARRAY, ConvertedType.INTERVAL).setType_length(12), "column c: INTERVAL is not supported");
        assertRefused(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.DECIMAL(new DecimalType(0, 39))).setType_length(17), "column c: decimal(39,0) exceeds the maximum precision 38");
        assertRefused(converted(BYTE_ARRAY, ConvertedType.DECIMAL).setPrecision(40).setScale(2), "column c: decimal(40,2) exceeds the maximum precision 38");
        assertRefused(logical(INT32, LogicalType.DECIMAL(new DecimalType(5, 4))), "column c: invalid decimal(4,5)");
        assertRefused(logical(INT32, LogicalType.UNKNOWN(new NullType())), "column c: logical type UNKNOWN (always null) is not supported");
        assertRefused(logical(INT64, LogicalType.DATE(new DateType())), "column c: DATE annotation requires INT32, found INT64");
        assertRefused(logical(INT64, LogicalType.TIME(new TimeType(false, MILLIS))), "column c: TIME(MILLIS) annotation requires INT32, found INT64");
        assertRefused(logical(INT32, LogicalType.TIMESTAMP(new TimestampType(false, MILLIS))), "column c: TIMESTAMP annotation requires INT64, found INT32");
        assertRefused(logical(INT64, LogicalType.INTEGER(new IntType((byte) 8, true))), "column c: INT(8, true) annotation requires INT32, found INT64");
        assertRefused(logical(FIXED_LEN_BYTE_ARRAY, LogicalType.UUID(new UUIDType())).setType_length(8), "column c: UUID annotation on FIXED_LEN_BYTE_ARRAY(8), expected length 16");
        assertRefused(logical(INT32, LogicalType.STRING(new StringType())), "column c: STRING annotation requires BYTE_ARRAY, found INT32");
    }

    @Test
    void testNestedIsRefused()
    {
        assertRefused(new SchemaElement("c").setNum_children(2).setRepetition_type(FieldRepetitionType.OPTIONAL), "column c: nested type (struct/list/map) is not supported");
        assertRefused(new SchemaElement("c").setNum_children(1).setLogicalType(LogicalType.LIST(new ListType())), "column c: nested type (struct/list/map) is not supported");
        // a legacy list: a repeated top-level primitive
        assertRefused(primitive(INT32).setRepetition_type(FieldRepetitionType.REPEATED), "column c: nested type (struct/list/map) is not supported");
    }

    @Test
    void testNamesAreLowerCased()
    {
        ColumnSpec spec = mapUnchecked(new SchemaElement("MixedCase").setType(INT32).setRepetition_type(FieldRepetitionType.REQUIRED));
        assertThat(spec).isEqualTo(new ColumnSpec("mixedcase", "integer"));
    }

    private static SchemaElement primitive(Type type)
    {
        return new SchemaElement("c").setType(type).setRepetition_type(FieldRepetitionType.OPTIONAL);
    }

    private static SchemaElement logical(Type type, LogicalType logicalType)
    {
        return primitive(type).setLogicalType(logicalType);
    }

    private static SchemaElement converted(Type type, ConvertedType convertedType)
    {
        return primitive(type).setConverted_type(convertedType);
    }

    private static void assertMapped(SchemaElement element, String trinoType, KeyKind keyKind)
    {
        try {
            assertThat(ParquetTypeMapper.toTrinoType(element, "test.parquet")).isEqualTo(trinoType);
            ParquetColumn column = ParquetTypeMapper.map(element, "test.parquet");
            assertThat(column.keyKind()).as(trinoType).isEqualTo(keyKind);
            if (keyKind != KeyKind.NONE) {
                // the mapper's key kind is what the connector derives from the type alone
                assertThat(KeyKind.forType(trinoType)).isEqualTo(keyKind);
            }
        }
        catch (InvalidParquetFileException e) {
            throw new AssertionError(e);
        }
    }

    private static ColumnSpec mapUnchecked(SchemaElement element)
    {
        try {
            return ParquetTypeMapper.toColumnSpec(element, "test.parquet");
        }
        catch (InvalidParquetFileException e) {
            throw new AssertionError(e);
        }
    }

    private static void assertRefused(SchemaElement element, String reason)
    {
        assertThatThrownBy(() -> ParquetTypeMapper.toTrinoType(element, "test.parquet"))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessage("Invalid Parquet file test.parquet: " + reason);
    }
}
