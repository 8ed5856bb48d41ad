package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * One live storage node: the default replication is not lowered to fit it (a table would then
 * hold fewer copies than it says), so a write needs an explicit {@code replication = 1}.
 */
final class TestNscSingleNodeWrites
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return NscQueryRunner.create(closeAfterClass(TestingNscCluster.start(1)), Map.of());
    }

    @Test
    void testDefaultReplicationNeedsTwoNodes()
    {
        assertUpdate("CREATE SCHEMA nsc.single");
        String error = "replication 2 (the default) needs 2 live storage nodes, but only 1 is live";
        assertThat(query("CREATE TABLE nsc.single.t AS SELECT * FROM tpch.tiny.nation")).failure().hasErrorCode(NSC_NOT_ENOUGH_STORAGE_NODES).hasMessage(error);
        assertThat(query("CREATE TABLE nsc.single.t (a bigint)")).failure().hasErrorCode(NSC_NOT_ENOUGH_STORAGE_NODES).hasMessage(error);
        assertThat(query("CREATE TABLE nsc.single.t (a bigint) WITH (replication = 2)")).failure().hasErrorCode(NSC_NOT_ENOUGH_STORAGE_NODES)
                .hasMessage("replication 2 needs 2 live storage nodes, but only 1 is live");
        assertThat(query("SHOW TABLES FROM nsc.single")).returnsEmptyResult();

        // asked for, one replica is fine
        assertUpdate("CREATE TABLE nsc.single.nation WITH (replication = 1) AS SELECT * FROM tpch.tiny.nation", 25);
        assertThat(query("SELECT * FROM nsc.single.nation")).matches("SELECT * FROM tpch.tiny.nation");
        assertUpdate("INSERT INTO nsc.single.nation SELECT * FROM tpch.tiny.nation", 25);
        assertThat(query("SELECT count(*) FROM nsc.single.nation")).matches("VALUES BIGINT '50'");
        assertUpdate("DROP TABLE nsc.single.nation");
        assertUpdate("DROP SCHEMA nsc.single");
    }
}
