package io.nsc.trino;

import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Materialized views through SQL: the definition in the metadata service, the data in an nsc
 * storage table that REFRESH MATERIALIZED VIEW replaces in one commit, fresh while the nsc tables
 * the refresh read are at the versions it read. What Trino does with a stale view is Trino's: it
 * runs the query when no grace period covers the last refresh, and reads the storage table when
 * one does (without GRACE PERIOD, always). Each test has a schema of its own.
 */
final class TestNscMaterializedViews
        extends AbstractTestQueryFramework
{
    private static final String TOTALS = "SELECT orderstatus, count(*) AS orders, sum(totalprice) AS total FROM %s GROUP BY orderstatus";

    private final FileListingHook hook = new FileListingHook();

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.builder(cluster)
                .setTpchColumnNaming(SIMPLIFIED)
                .setNscPlugin(hook.plugin())
                .build();
    }

    @Test
    void testRefreshMakesItFreshAndABaseTableChangeStale()
    {
        assertUpdate("CREATE SCHEMA mv_fresh");
        assertUpdate("CREATE TABLE mv_fresh.orders AS SELECT * FROM tpch.tiny.orders", 15000);
        // no grace period: a stale view is computed from its query
        assertUpdate("CREATE MATERIALIZED VIEW mv_fresh.totals GRACE PERIOD INTERVAL '0' SECOND AS " + TOTALS.formatted("mv_fresh.orders"));

        // never refreshed: stale, and the answer is the query's
        assertThat(freshness("mv_fresh", "totals")).isEqualTo("STALE");
        assertQuery("SELECT * FROM mv_fresh.totals", TOTALS.formatted("orders"));
        assertQuery("SELECT count(*) FROM mv_fresh." + storageTable("mv_fresh", "totals"), "VALUES 0");

        assertUpdate("REFRESH MATERIALIZED VIEW mv_fresh.totals", 3);
        assertThat(freshness("mv_fresh", "totals")).isEqualTo("FRESH");
        assertQuery("SELECT * FROM mv_fresh.totals", TOTALS.formatted("orders"));
        assertQuery("SELECT * FROM mv_fresh." + storageTable("mv_fresh", "totals"), TOTALS.formatted("orders"));

        // a base table change: stale, and still the right answer
        assertUpdate("INSERT INTO mv_fresh.orders SELECT * FROM tpch.tiny.orders WHERE orderstatus = 'P'", 363);
        assertThat(freshness("mv_fresh", "totals")).isEqualTo("STALE");
        String changed = TOTALS.formatted("(SELECT * FROM orders UNION ALL SELECT * FROM orders WHERE orderstatus = 'P')");
        assertQuery("SELECT * FROM mv_fresh.totals", changed);

        // a refresh replaces the data, it does not add to it
        assertUpdate("REFRESH MATERIALIZED VIEW mv_fresh.totals", 3);
        assertThat(freshness("mv_fresh", "totals")).isEqualTo("FRESH");
        assertQuery("SELECT * FROM mv_fresh." + storageTable("mv_fresh", "totals"), changed);
        assertQuery("SELECT * FROM mv_fresh.totals", changed);
        // each refresh is one new version of the storage table: readers see the old rows or the new, never half
        assertQuery("SELECT count(*) FROM mv_fresh.\"" + storageTable("mv_fresh", "totals") + "$history\"", "VALUES 3");

        // a DELETE moves the base table on too
        assertUpdate("DELETE FROM mv_fresh.orders WHERE orderstatus = 'F'", 7304);
        assertThat(freshness("mv_fresh", "totals")).isEqualTo("STALE");
        assertQuery("SELECT * FROM mv_fresh.totals", TOTALS.formatted("(SELECT * FROM orders WHERE orderstatus <> 'F' UNION ALL SELECT * FROM orders WHERE orderstatus = 'P')"));
        assertUpdate("DROP SCHEMA mv_fresh CASCADE");
    }

    /**
     * A refresh commits the storage table's rows and the view's record of the versions it read in
     * one metadata transaction: when the metadata service refuses either part, the storage table
     * keeps its rows and the view its freshness. The refusals are made exact by a change that
     * lands when the refresh lists the storage table's files, just before it commits.
     */
    @Test
    void testRefreshRefusedAtItsCommitChangesNothing()
    {
        assertUpdate("CREATE SCHEMA mv_atomic");
        assertUpdate("CREATE TABLE mv_atomic.orders AS SELECT * FROM tpch.tiny.orders", 15000);
        assertUpdate("CREATE MATERIALIZED VIEW mv_atomic.totals GRACE PERIOD INTERVAL '0' SECOND AS " + TOTALS.formatted("mv_atomic.orders"));
        assertUpdate("REFRESH MATERIALIZED VIEW mv_atomic.totals", 3);
        String storage = storageTable("mv_atomic", "totals");
        SchemaTableName storageName = new SchemaTableName("mv_atomic", storage);
        String storageHistory = "SELECT count(*) FROM mv_atomic.\"" + storage + "$history\"";
        assertQuery(storageHistory, "VALUES 2");
        assertUpdate("INSERT INTO mv_atomic.orders SELECT * FROM tpch.tiny.orders WHERE orderstatus = 'P'", 363);
        assertThat(freshness("mv_atomic", "totals")).isEqualTo("STALE");
        String changed = TOTALS.formatted("(SELECT * FROM orders UNION ALL SELECT * FROM orders WHERE orderstatus = 'P')");

        // the view changed after the refresh read it (COMMENT ON COLUMN): its record is refused, and with it the new rows
        FileListingHook.PendingAction comment = hook.beforeBatch(storageName, 0, () -> assertUpdate("COMMENT ON COLUMN mv_atomic.totals.orders IS 'of the status'"));
        assertThatThrownBy(() -> getQueryRunner().execute("REFRESH MATERIALIZED VIEW mv_atomic.totals"))
                .hasMessageMatching("REFRESH MATERIALIZED VIEW mv_atomic.totals conflicts with a change made since it began: " +
                        "View mv_atomic.totals is at version \\d+, but the change expects version \\d+: it was changed meanwhile; nothing was changed");
        assertThat(comment.ran()).isTrue();
        assertQuery("SELECT * FROM mv_atomic." + storage, TOTALS.formatted("orders"));
        assertQuery(storageHistory, "VALUES 2");
        assertThat(freshness("mv_atomic", "totals")).isEqualTo("STALE");
        assertQuery("SELECT comment FROM information_schema.columns WHERE table_schema = 'mv_atomic' AND table_name = 'totals' AND column_name = 'orders'", "VALUES 'of the status'");

        // the storage table changed after the refresh read it: its files are refused, and with them the view's record
        FileListingHook.PendingAction delete = hook.beforeBatch(storageName, 0, () -> assertUpdate("DELETE FROM mv_atomic." + storage, 3));
        assertThatThrownBy(() -> getQueryRunner().execute("REFRESH MATERIALIZED VIEW mv_atomic.totals"))
                .hasMessageMatching("REFRESH MATERIALIZED VIEW mv_atomic.totals conflicts with a change made since it began: " +
                        "File \\w+ of table mv_atomic.st_\\w+ was removed by a commit at version 3, after version 2 that the statement read; nothing was committed");
        assertThat(delete.ran()).isTrue();
        assertThat(freshness("mv_atomic", "totals")).isEqualTo("STALE");
        assertQuery("SELECT count(*) FROM mv_atomic." + storage, "VALUES 0");
        assertQuery(storageHistory, "VALUES 3");

        // run again, it commits both
        assertUpdate("REFRESH MATERIALIZED VIEW mv_atomic.totals", 3);
        assertThat(freshness("mv_atomic", "totals")).isEqualTo("FRESH");
        assertQuery("SELECT * FROM mv_atomic." + storage, changed);
        assertQuery("SELECT * FROM mv_atomic.totals", changed);
        assertQuery(storageHistory, "VALUES 4");
        assertThat(hook.isPending()).isFalse();
        assertUpdate("DROP SCHEMA mv_atomic CASCADE");
    }

    @Test
    void testWithoutGracePeriodTrinoReadsTheLastRefresh()
    {
        assertUpdate("CREATE SCHEMA mv_grace");
        assertUpdate("CREATE TABLE mv_grace.nation AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE MATERIALIZED VIEW mv_grace.counts AS SELECT regionkey, count(*) AS nations FROM mv_grace.nation GROUP BY regionkey");
        assertUpdate("REFRESH MATERIALIZED VIEW mv_grace.counts", 5);
        assertUpdate("INSERT INTO mv_grace.nation SELECT * FROM tpch.tiny.nation WHERE regionkey = 0", 5);

        // stale, but within the (unbounded) grace period: the storage table answers, as of the refresh
        assertThat(freshness("mv_grace", "counts")).isEqualTo("STALE");
        assertQuery("SELECT * FROM mv_grace.counts", "SELECT regionkey, count(*) FROM nation GROUP BY regionkey");
        assertUpdate("REFRESH MATERIALIZED VIEW mv_grace.counts", 5);
        assertQuery("SELECT nations FROM mv_grace.counts WHERE regionkey = 0", "VALUES 10");
        assertUpdate("DROP SCHEMA mv_grace CASCADE");
    }

    @Test
    void testOtherCatalogsTablesMakeFreshnessUnknown()
    {
        assertUpdate("CREATE SCHEMA mv_federated");
        assertUpdate("CREATE TABLE mv_federated.nation AS SELECT * FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE MATERIALIZED VIEW mv_federated.joined AS SELECT n.name, r.name AS region FROM mv_federated.nation n JOIN tpch.tiny.region r ON n.regionkey = r.regionkey");
        assertUpdate("REFRESH MATERIALIZED VIEW mv_federated.joined", 25);
        // tpch has no versions nsc could check
        assertThat(freshness("mv_federated", "joined")).isEqualTo("UNKNOWN");
        assertQuery("SELECT * FROM mv_federated.joined", "SELECT n.name, r.name FROM nation n JOIN region r ON n.regionkey = r.regionkey");
        assertUpdate("INSERT INTO mv_federated.nation SELECT * FROM tpch.tiny.nation WHERE nationkey = 0", 1);
        assertThat(freshness("mv_federated", "joined")).isEqualTo("STALE");
        assertUpdate("DROP SCHEMA mv_federated CASCADE");
    }

    @Test
    void testListingsShowCreateAndProperties()
    {
        assertUpdate("CREATE SCHEMA mv_listed");
        assertUpdate("CREATE TABLE mv_listed.t AS SELECT nationkey, name, regionkey FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE MATERIALIZED VIEW mv_listed.m COMMENT 'by region' WITH (sorted_by = ARRAY['regionkey'], bloom_filter_columns = ARRAY['name']) AS SELECT regionkey, name FROM mv_listed.t");
        String storage = storageTable("mv_listed", "m");
        assertThat(storage).startsWith("st_");

        assertQuery("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'mv_listed' AND table_name <> '" + storage + "'",
                "VALUES ('t', 'BASE TABLE'), ('m', 'BASE TABLE')");
        assertQuery("SELECT table_name, table_type FROM system.jdbc.tables WHERE table_cat = 'nsc' AND table_schem = 'mv_listed' AND table_name <> '" + storage + "'",
                "VALUES ('t', 'TABLE'), ('m', 'TABLE')");
        assertQuery("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'mv_listed' AND table_name = 'm'",
                "VALUES ('regionkey', 'bigint'), ('name', 'varchar(25)')");
        assertQuery("SELECT name, storage_table, comment FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = 'mv_listed'",
                "VALUES ('m', '" + storage + "', 'by region')");
        assertThat((String) computeScalar("SHOW CREATE MATERIALIZED VIEW mv_listed.m"))
                .contains("CREATE MATERIALIZED VIEW nsc.mv_listed.m")
                .contains("COMMENT 'by region'")
                .contains("bloom_filter_columns = ARRAY['name']")
                .contains("sorted_by = ARRAY['regionkey']");
        assertThat((String) computeScalar("SHOW CREATE TABLE mv_listed." + storage)).contains("sorted_by = ARRAY['regionkey']");

        assertUpdate("COMMENT ON COLUMN mv_listed.m.name IS 'the nation'");
        assertQuery("SELECT column_name, comment FROM information_schema.columns WHERE table_schema = 'mv_listed' AND table_name = 'm'", "VALUES ('regionkey', NULL), ('name', 'the nation')");

        assertUpdate("REFRESH MATERIALIZED VIEW mv_listed.m", 25);
        assertUpdate("ALTER MATERIALIZED VIEW mv_listed.m RENAME TO mv_listed.renamed");
        assertThat(storageTable("mv_listed", "renamed")).isEqualTo(storage);
        assertThat(freshness("mv_listed", "renamed")).isEqualTo("FRESH");
        assertQuery("SELECT count(*) FROM mv_listed.renamed", "VALUES 25");
        assertUpdate("CREATE SCHEMA mv_listed_other");
        assertQueryFails("ALTER MATERIALIZED VIEW mv_listed.renamed RENAME TO mv_listed_other.m", "Materialized View rename across schemas is not supported");
        assertUpdate("DROP SCHEMA mv_listed_other");
        assertUpdate("DROP SCHEMA mv_listed CASCADE");
    }

    @Test
    void testDropAndReplaceTakeTheStorageTable()
    {
        assertUpdate("CREATE SCHEMA mv_drop");
        assertUpdate("CREATE TABLE mv_drop.t AS SELECT nationkey FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE MATERIALIZED VIEW mv_drop.m AS SELECT nationkey FROM mv_drop.t");
        String first = storageTable("mv_drop", "m");
        assertUpdate("REFRESH MATERIALIZED VIEW mv_drop.m", 25);

        assertUpdate("CREATE OR REPLACE MATERIALIZED VIEW mv_drop.m AS SELECT nationkey * 2 AS doubled FROM mv_drop.t");
        String second = storageTable("mv_drop", "m");
        assertThat(second).isNotEqualTo(first);
        assertQuery("SHOW TABLES FROM mv_drop", "VALUES 't', 'm', '" + second + "'");
        assertQuery("SELECT max(doubled) FROM mv_drop.m", "VALUES 48");

        // IF NOT EXISTS leaves the view as it is
        assertUpdate("CREATE MATERIALIZED VIEW IF NOT EXISTS mv_drop.m AS SELECT 1 AS x");
        assertThat(storageTable("mv_drop", "m")).isEqualTo(second);

        assertUpdate("DROP MATERIALIZED VIEW mv_drop.m");
        assertQuery("SHOW TABLES FROM mv_drop", "VALUES 't'");
        assertQueryReturnsEmptyResult("SELECT * FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = 'mv_drop'");
        assertQueryFails("SELECT * FROM mv_drop.m", ".*Table 'nsc.mv_drop.m' does not exist");
        assertUpdate("DROP SCHEMA mv_drop CASCADE");
    }

    @Test
    void testErrorsLeaveNothingBehind()
    {
        assertUpdate("CREATE SCHEMA mv_errors");
        assertUpdate("CREATE TABLE mv_errors.t AS SELECT nationkey, name FROM tpch.tiny.nation", 25);
        assertUpdate("CREATE VIEW mv_errors.v AS SELECT name FROM mv_errors.t");
        assertUpdate("CREATE MATERIALIZED VIEW mv_errors.m AS SELECT name FROM mv_errors.t");
        String storage = storageTable("mv_errors", "m");

        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.t AS SELECT 1 AS x", ".*Table 'nsc.mv_errors.t' already exists|.*Table 'mv_errors.t' already exists.*");
        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.v AS SELECT 1 AS x", ".*View 'mv_errors.v' already exists.*|.*'nsc.mv_errors.v' already exists.*");
        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.m AS SELECT 1 AS x", ".*Materialized view 'nsc.mv_errors.m' already exists|.*Materialized view 'mv_errors.m' already exists");
        assertQueryFails("CREATE TABLE mv_errors.m (x bigint)", ".*'nsc.mv_errors.m' already exists.*|.*Materialized view mv_errors.m already exists.*");
        assertQueryFails("CREATE VIEW mv_errors.m AS SELECT 1 AS x", ".*'nsc.mv_errors.m' already exists.*|.*Materialized view.*");
        assertQueryFails("REFRESH MATERIALIZED VIEW mv_errors.missing", ".*Materialized view 'nsc.mv_errors.missing' does not exist");
        assertQueryFails("DROP MATERIALIZED VIEW mv_errors.v", ".*Materialized view 'nsc.mv_errors.v' does not exist.*");
        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.bad WITH (no_such_property = 1) AS SELECT 1 AS x", ".*'no_such_property' does not exist");
        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.bad WITH (sorted_by = ARRAY['missing']) AS SELECT nationkey FROM mv_errors.t", ".*sorted_by.*'missing'.*");
        assertQueryFails("CREATE MATERIALIZED VIEW mv_errors.bad WITH (bloom_filter_columns = ARRAY['name'], row_group_size = '64MB') AS SELECT name FROM mv_errors.t", "bloom_filter_columns needs a row_group_size in rows, such as '100000', not '64MB'");

        // nothing half-made: no view, no orphaned storage table
        assertQuery("SHOW TABLES FROM mv_errors", "VALUES 't', 'v', 'm', '" + storage + "'");
        assertQuery("SELECT name FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = 'mv_errors'", "VALUES 'm'");
        assertUpdate("DROP SCHEMA mv_errors CASCADE");
    }

    private String freshness(String schema, String name)
    {
        return (String) computeScalar("SELECT freshness FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = '%s' AND name = '%s'".formatted(schema, name));
    }

    private String storageTable(String schema, String name)
    {
        return (String) computeScalar("SELECT storage_table FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = '%s' AND name = '%s'".formatted(schema, name));
    }
}
