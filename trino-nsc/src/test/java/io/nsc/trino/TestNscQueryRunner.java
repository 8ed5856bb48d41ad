package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static io.trino.tpch.TpchTable.NATION;
import static io.trino.tpch.TpchTable.REGION;
import static org.assertj.core.api.Assertions.assertThat;

/** The builder's initial tables are written into nsc.tpch through Trino, with the chosen TPC-H column names. */
final class TestNscQueryRunner
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return NscQueryRunner.builder(closeAfterClass(TestingNscCluster.start(2)))
                .setTpchColumnNaming(SIMPLIFIED)
                .setInitialTables(List.of(NATION, REGION))
                .addNscCatalog("nsc_other", Map.of())
                .build();
    }

    @Test
    void testInitialTablesCopied()
    {
        assertThat(getQueryRunner().getNodeCount()).isEqualTo(3);
        assertThat(computeActual("SHOW TABLES FROM nsc.tpch").getOnlyColumnAsSet()).containsExactlyInAnyOrder("nation", "region");
        assertThat(query("SELECT count(*) FROM nation")).matches("VALUES BIGINT '25'");
        // simplified names on both sides, and the rows equal to the source's
        assertThat(query("SELECT nationkey, name, regionkey, comment FROM nsc.tpch.nation")).matches("SELECT nationkey, name, regionkey, comment FROM tpch.tiny.nation");
        assertThat(query("SELECT * FROM nsc_other.tpch.region")).matches("SELECT * FROM tpch.tiny.region");
    }
}
