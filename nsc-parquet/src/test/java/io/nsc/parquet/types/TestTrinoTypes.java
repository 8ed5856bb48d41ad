package io.nsc.parquet.types;

import org.junit.jupiter.api.Test;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.TimeType.createTimeType;
import static io.trino.spi.type.TimestampType.createTimestampType;
import static io.trino.spi.type.TimestampWithTimeZoneType.createTimestampWithTimeZoneType;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static org.assertj.core.api.Assertions.assertThat;

final class TestTrinoTypes
{
    @Test
    void parsesTheSignaturesNscRegisters()
    {
        assertThat(TrinoTypes.fromSignature("bigint")).contains(BIGINT);
        assertThat(TrinoTypes.fromSignature("date")).contains(DATE);
        assertThat(TrinoTypes.fromSignature("varchar")).contains(VARCHAR);
        assertThat(TrinoTypes.fromSignature("varchar(10)")).contains(createVarcharType(10));
        assertThat(TrinoTypes.fromSignature("decimal(12,2)")).contains(createDecimalType(12, 2));
        assertThat(TrinoTypes.fromSignature("decimal(38, 10)")).contains(createDecimalType(38, 10));
        assertThat(TrinoTypes.fromSignature("time(6)")).contains(createTimeType(6));
        assertThat(TrinoTypes.fromSignature("timestamp(9)")).contains(createTimestampType(9));
        assertThat(TrinoTypes.fromSignature("timestamp(3) with time zone")).contains(createTimestampWithTimeZoneType(3));
    }

    @Test
    void rejectsWhatItCannotMap()
    {
        assertThat(TrinoTypes.fromSignature("array(bigint)")).isEmpty();
        assertThat(TrinoTypes.fromSignature("decimal(40,2)")).isEmpty();
        assertThat(TrinoTypes.fromSignature("varchar(1,2)")).isEmpty();
        assertThat(TrinoTypes.fromSignature("geometry")).isEmpty();
    }
}
