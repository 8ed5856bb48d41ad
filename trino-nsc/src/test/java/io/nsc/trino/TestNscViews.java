package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * SQL views through SQL: kept in the metadata service's catalog (they outlive a restart of the
 * service), in one namespace with the tables of their schema, moved and dropped with their schema.
 * One test at a time: one of them restarts the metadata service under the others.
 */
@Execution(SAME_THREAD)
final class TestNscViews
        extends AbstractTestQueryFramework
{
    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.builder(cluster).setTpchColumnNaming(SIMPLIFIED).build();
    }

    @Test
    void testViewSurvivesAMetadataServiceRestart()
    {
        assertUpdate("CREATE SCHEMA restart");
        assertUpdate("CREATE TABLE restart.t AS SELECT nationkey, name FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE VIEW restart.v COMMENT 'kept' AS SELECT name FROM restart.t WHERE nationkey < 5");
        assertUpdate("COMMENT ON COLUMN restart.v.name IS 'a name'");

        cluster.restartMetadataService();
        cluster.awaitLiveNodes(2);

        assertQuery("SELECT * FROM restart.v", "SELECT name FROM nation WHERE nationkey < 5");
        assertThat((String) computeScalar("SHOW CREATE VIEW restart.v")).isEqualTo("""
                CREATE VIEW nsc.restart.v COMMENT 'kept' SECURITY DEFINER AS
                SELECT name
                FROM
                  restart.t
                WHERE (nationkey < 5)""");
        assertQuery("SELECT comment FROM information_schema.columns WHERE table_schema = 'restart' AND table_name = 'v'", "VALUES 'a name'");
        assertUpdate("DROP SCHEMA restart CASCADE");
    }

    @Test
    void testViewInListingsAndMetadata()
    {
        assertUpdate("CREATE SCHEMA listed");
        assertUpdate("CREATE TABLE listed.t (k bigint, s varchar)");
        assertUpdate("CREATE VIEW listed.v AS SELECT k, upper(s) AS u FROM listed.t");

        assertQuery("SHOW TABLES FROM listed", "VALUES 't', 'v'");
        assertQuery("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'listed'", "VALUES ('t', 'BASE TABLE'), ('v', 'VIEW')");
        assertQuery("SELECT table_name FROM information_schema.views WHERE table_schema = 'listed'", "VALUES 'v'");
        assertQuery("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'listed'",
                "VALUES ('t', 'k', 'bigint'), ('t', 's', 'varchar'), ('v', 'k', 'bigint'), ('v', 'u', 'varchar')");
        assertQuery("SELECT table_name, table_type FROM system.jdbc.tables WHERE table_cat = 'nsc' AND table_schem = 'listed'", "VALUES ('t', 'TABLE'), ('v', 'VIEW')");

        assertUpdate("COMMENT ON VIEW listed.v IS 'the view'");
        assertUpdate("COMMENT ON COLUMN listed.v.u IS 'upper case'");
        assertQuery("SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'listed' AND table_name = 'v'", "VALUES 'the view'");
        assertQuery("SELECT column_name, comment FROM information_schema.columns WHERE table_schema = 'listed' AND table_name = 'v'", "VALUES ('k', NULL), ('u', 'upper case')");
        assertUpdate("COMMENT ON VIEW listed.v IS NULL");
        assertQuery("SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'listed' AND table_name = 'v'", "VALUES CAST(NULL AS varchar)");

        assertUpdate("CREATE OR REPLACE VIEW listed.v AS SELECT k FROM listed.t");
        assertQuery("SELECT column_name FROM information_schema.columns WHERE table_schema = 'listed' AND table_name = 'v'", "VALUES 'k'");

        assertUpdate("CREATE SCHEMA listed_other");
        assertUpdate("ALTER VIEW listed.v RENAME TO listed_other.w");
        assertQuery("SHOW TABLES FROM listed", "VALUES 't'");
        assertQuery("SHOW TABLES FROM listed_other", "VALUES 'w'");
        assertUpdate("INSERT INTO listed.t VALUES (1, 'a')", 1);
        assertQuery("SELECT * FROM listed_other.w", "VALUES 1");

        assertUpdate("DROP VIEW listed_other.w");
        assertQuery("SHOW TABLES FROM listed_other", "SELECT 'x' WHERE false");
        assertQueryFails("DROP VIEW listed_other.w", ".*View 'nsc.listed_other.w' does not exist");
        assertUpdate("DROP SCHEMA listed CASCADE");
        assertUpdate("DROP SCHEMA listed_other");
    }

    @Test
    void testNamesAreSharedWithTables()
    {
        assertUpdate("CREATE SCHEMA clash");
        assertUpdate("CREATE TABLE clash.t (k bigint)");
        assertUpdate("CREATE VIEW clash.v AS SELECT 1 AS k");

        // Trino checks first; the metadata service refuses the same in the transaction that would change the name
        assertQueryFails("CREATE VIEW clash.t AS SELECT 1 AS k", ".*(Table already exists: 'nsc.clash.t'|Table clash.t already exists: a view cannot have its name).*");
        assertQueryFails("CREATE OR REPLACE VIEW clash.t AS SELECT 1 AS k", ".*(Table already exists: 'nsc.clash.t'|Table clash.t already exists: a view cannot have its name).*");
        assertQueryFails("CREATE TABLE clash.v (k bigint)", ".*(View 'nsc.clash.v' already exists|View clash.v already exists: a table cannot have its name).*");
        assertQueryFails("CREATE TABLE clash.v AS SELECT 1 AS k", ".*(View 'nsc.clash.v' already exists|View clash.v already exists: a table cannot have its name).*");
        assertQueryFails("ALTER TABLE clash.t RENAME TO clash.v", ".*(Target table 'nsc.clash.v' does not exist, but a view with that name exists|View clash.v already exists: a table cannot have its name).*");
        assertQueryFails("ALTER VIEW clash.v RENAME TO clash.t", ".*(clash.t' already exists|Table clash.t already exists: a view cannot have its name|a table with that name exists).*");

        // nothing changed
        assertQuery("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'clash'", "VALUES ('t', 'BASE TABLE'), ('v', 'VIEW')");
        assertQuery("SELECT * FROM clash.v", "VALUES 1");
        assertUpdate("DROP SCHEMA clash CASCADE");
    }

    @Test
    void testDropSchemaWithViews()
    {
        assertUpdate("CREATE SCHEMA dropped");
        assertUpdate("CREATE VIEW dropped.v AS SELECT name FROM tpch.tiny.region");
        assertQueryFails("DROP SCHEMA dropped", ".*Cannot drop non-empty schema 'dropped'");
        assertQuery("SELECT count(*) FROM dropped.v", "VALUES 5");

        // a schema's views move with it
        assertUpdate("ALTER SCHEMA dropped RENAME TO dropped_renamed");
        assertQuery("SELECT count(*) FROM dropped_renamed.v", "VALUES 5");

        assertUpdate("DROP SCHEMA dropped_renamed CASCADE");
        assertThat(computeActual("SHOW SCHEMAS").getOnlyColumnAsSet()).doesNotContain("dropped_renamed");
        // a new schema of the name holds no view from before
        assertUpdate("CREATE SCHEMA dropped_renamed");
        assertQuery("SHOW TABLES FROM dropped_renamed", "SELECT 'x' WHERE false");
        assertUpdate("DROP SCHEMA dropped_renamed");
    }

    @Test
    void testViewOverADroppedTableFailsWhenQueried()
    {
        assertUpdate("CREATE SCHEMA stale");
        assertUpdate("CREATE TABLE stale.t AS SELECT 1 AS k", 1);
        assertUpdate("CREATE VIEW stale.v AS SELECT k FROM stale.t");
        assertUpdate("DROP TABLE stale.t");
        assertQueryFails("SELECT * FROM stale.v", ".*Failed analyzing stored view 'nsc.stale.v': .*Table 'nsc.stale.t' does not exist");
        // the view is still there, to be fixed or dropped
        assertQuery("SHOW TABLES FROM stale", "VALUES 'v'");
        assertUpdate("CREATE TABLE stale.t AS SELECT 2 AS k", 1);
        assertQuery("SELECT * FROM stale.v", "VALUES 2");
        assertUpdate("DROP SCHEMA stale CASCADE");
    }

    @Test
    void testBadInputIsRefusedClearly()
    {
        assertUpdate("CREATE SCHEMA bad");
        assertQueryFails("CREATE VIEW bad.\"a-b\" AS SELECT 1 AS k", ".*Invalid view name 'a-b'.*");
        assertQueryFails("CREATE VIEW missing_schema.v AS SELECT 1 AS k", ".*Schema 'missing_schema' does not exist|.*Schema missing_schema not found");

        // a definition over 1 MiB: comments on its columns that would take it past the limit are refused, the view kept as it was
        String columns = IntStream.range(0, 20).mapToObj(i -> i + " AS c" + i).collect(Collectors.joining(", "));
        assertUpdate("CREATE VIEW bad.wide AS SELECT " + columns);
        String comment = "x".repeat(60_000);
        int commented = 0;
        for (int i = 0; i < 20; i++) {
            try {
                assertUpdate("COMMENT ON COLUMN bad.wide.c%s IS '%s'".formatted(i, comment));
                commented++;
            }
            catch (RuntimeException e) {
                assertThat(e).hasMessageMatching("The definition of view 'bad.wide' takes \\d+ bytes, over the limit of 1048576 bytes");
                break;
            }
        }
        assertThat(commented).isBetween(15, 17);
        MaterializedResult comments = computeActual("SELECT column_name, length(comment) FROM information_schema.columns WHERE table_schema = 'bad' AND table_name = 'wide' AND comment IS NOT NULL");
        assertThat(comments.getRowCount()).isEqualTo(commented);
        assertQuery("SELECT c0, c19 FROM bad.wide", "VALUES (0, 19)");
        assertUpdate("DROP SCHEMA bad CASCADE");
    }
}
