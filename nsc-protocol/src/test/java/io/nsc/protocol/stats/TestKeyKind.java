package io.nsc.protocol.stats;

import org.junit.jupiter.api.Test;

import static io.nsc.protocol.stats.KeyKind.EXACT;
import static io.nsc.protocol.stats.KeyKind.FLOATING;
import static io.nsc.protocol.stats.KeyKind.LOSSY;
import static io.nsc.protocol.stats.KeyKind.NONE;
import static io.nsc.protocol.stats.KeyKind.forType;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestKeyKind
{
    @Test
    void testExact()
    {
        for (String type : new String[] {"boolean", "tinyint", "smallint", "integer", "bigint", "date",
                "decimal(1,0)", "decimal(12,2)", "decimal(18,18)", "decimal(18, 4)",
                "time", "time(0)", "time(3)", "time(9)", "time(12)",
                "timestamp", "timestamp(0)", "timestamp(3)", "timestamp(6)",
                "timestamp(3) with time zone", "timestamp(6) with time zone", "timestamp with time zone",
                "BIGINT", " Decimal(10,2) "}) {
            assertThat(forType(type)).as(type).isEqualTo(EXACT);
        }
    }

    @Test
    void testFloating()
    {
        assertThat(forType("real")).isEqualTo(FLOATING);
        assertThat(forType("double")).isEqualTo(FLOATING);
    }

    @Test
    void testLossy()
    {
        for (String type : new String[] {"varchar", "varchar(25)", "varbinary", "decimal(19,0)", "decimal(38,10)", "decimal",
                "timestamp(7)", "timestamp(9)", "timestamp(12)", "timestamp(9) with time zone"}) {
            assertThat(forType(type)).as(type).isEqualTo(LOSSY);
        }
    }

    @Test
    void testNone()
    {
        for (String type : new String[] {"char(3)", "char", "uuid", "json", "ipaddress", "time(3) with time zone",
                "array(bigint)", "map(varchar,bigint)", "row(a bigint)", "hyperloglog", "unknown"}) {
            assertThat(forType(type)).as(type).isEqualTo(NONE);
        }
    }

    @Test
    void testMalformed()
    {
        assertThatThrownBy(() -> forType("decimal(x,2)")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("decimal(x,2)");
        assertThatThrownBy(() -> forType("timestamp(")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> forType("bigint(3)")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> forType("timestamp(-1)")).isInstanceOf(IllegalArgumentException.class);
    }
}
