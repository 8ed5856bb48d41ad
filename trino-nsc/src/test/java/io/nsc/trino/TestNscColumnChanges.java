package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ALTER TABLE ... ADD / RENAME / DROP COLUMN through SQL. A column is a slot of the files'
 * schema: files written before a column was added read NULL for it, a dropped column's values
 * never come back (not even under its name, added again), and a rename rewrites no file. Each
 * read is checked in every pushdown mode, since each reads the files its own way.
 */
final class TestNscColumnChanges
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2));
        // the tpch catalog's columns named as H2's copy of TPC-H, which assertQuery compares with
        return NscQueryRunner.builder(cluster).setTpchColumnNaming(SIMPLIFIED).build();
    }

    @Test
    void testAddedColumnReadsNullInOlderFiles()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS changes");
        assertUpdate("CREATE TABLE changes.added WITH (row_group_size = '10') AS SELECT orderkey AS k, comment AS c FROM tpch.tiny.orders WHERE orderkey < 100", 27);
        assertUpdate("ALTER TABLE changes.added ADD COLUMN price double COMMENT 'added later'");
        assertUpdate("INSERT INTO changes.added SELECT orderkey, comment, totalprice FROM tpch.tiny.orders WHERE orderkey BETWEEN 100 AND 199", 28);

        assertEveryMode("SELECT k, c, price FROM changes.added",
                "SELECT orderkey, comment, IF(orderkey >= 100, totalprice) FROM tpch.tiny.orders WHERE orderkey < 200");
        assertEveryMode("SELECT count(*), count(price), min(price), max(price), sum(price) FROM changes.added",
                "SELECT count(*), count_if(orderkey >= 100), min(totalprice) FILTER (WHERE orderkey >= 100), max(totalprice) FILTER (WHERE orderkey >= 100), sum(totalprice) FILTER (WHERE orderkey >= 100) FROM tpch.tiny.orders WHERE orderkey < 200");
        assertEveryMode("SELECT k FROM changes.added WHERE price IS NULL", "SELECT orderkey FROM tpch.tiny.orders WHERE orderkey < 100");
        assertEveryMode("SELECT k, price FROM changes.added WHERE price > 100000 ORDER BY price DESC LIMIT 3",
                "SELECT orderkey, totalprice FROM tpch.tiny.orders WHERE orderkey BETWEEN 100 AND 199 AND totalprice > 100000 ORDER BY totalprice DESC LIMIT 3");
        assertQuery("SELECT k FROM changes.added WHERE price IS NULL AND c LIKE '%the%'", "SELECT orderkey FROM orders WHERE orderkey < 100 AND comment LIKE '%the%'");
        assertThat((String) computeScalar("SHOW CREATE TABLE changes.added")).contains("price double COMMENT 'added later'");

        // the older file's row groups cannot hold a price: pruned from its stats alone
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), getSession(), "SELECT count(*) FROM changes.added WHERE price > 0");
        assertThat(counters.result().getOnlyValue()).isEqualTo(28L);
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isGreaterThanOrEqualTo(3);
        assertThat(counters.splitMetric(ROW_GROUPS_TOTAL)).isGreaterThanOrEqualTo(6);
    }

    @Test
    void testDroppedColumnsValuesNeverComeBack()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS changes");
        assertUpdate("CREATE TABLE changes.dropped AS SELECT orderkey AS k, orderstatus AS s, custkey AS c FROM tpch.tiny.orders WHERE orderkey < 100", 27);
        assertUpdate("ALTER TABLE changes.dropped DROP COLUMN s");
        assertQuery("SELECT * FROM changes.dropped", "SELECT orderkey, custkey FROM orders WHERE orderkey < 100");
        // a write after the drop writes NULL where s was, and the columns after it keep their place
        assertUpdate("INSERT INTO changes.dropped VALUES (1000, 7)", 1);
        assertEveryMode("SELECT k, c FROM changes.dropped WHERE k >= 1000", "VALUES (BIGINT '1000', BIGINT '7')");
        // the name is free again: a new column, NULL in every file written before it
        assertUpdate("ALTER TABLE changes.dropped ADD COLUMN s varchar");
        assertEveryMode("SELECT count(*), count(s) FROM changes.dropped", "VALUES (BIGINT '28', BIGINT '0')");
        assertUpdate("INSERT INTO changes.dropped VALUES (1001, 8, 'new')", 1);
        assertEveryMode("SELECT k, c, s FROM changes.dropped WHERE s IS NOT NULL", "VALUES (BIGINT '1001', BIGINT '8', 'new')");
        assertQuery("SELECT column_name FROM information_schema.columns WHERE table_schema = 'changes' AND table_name = 'dropped'", "VALUES 'k', 'c', 's'");
        assertQueryFails("ALTER TABLE changes.dropped DROP COLUMN nope", ".*Column 'nope' does not exist");
    }

    @Test
    void testRenamedColumnKeepsItsValuesAndProperties()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS changes");
        assertUpdate("CREATE TABLE changes.renamed WITH (sorted_by = ARRAY['d'], bloom_filter_columns = ARRAY['k']) AS " +
                "SELECT orderkey AS k, orderdate AS d FROM tpch.tiny.orders WHERE orderkey < 100", 27);
        assertUpdate("ALTER TABLE changes.renamed RENAME COLUMN k TO order_key");
        assertUpdate("ALTER TABLE changes.renamed RENAME COLUMN d TO order_date");
        assertEveryMode("SELECT order_key, order_date FROM changes.renamed WHERE order_key = 7", "SELECT orderkey, orderdate FROM tpch.tiny.orders WHERE orderkey = 7");
        String created = (String) computeScalar("SHOW CREATE TABLE changes.renamed");
        assertThat(created).contains("sorted_by = ARRAY['order_date']").contains("bloom_filter_columns = ARRAY['order_key']");
        // a write after the rename sorts by the renamed column and filters the renamed one
        assertUpdate("INSERT INTO changes.renamed VALUES (500, DATE '1990-01-01'), (499, DATE '1999-01-01')", 2);
        assertQuery("SELECT order_key FROM changes.renamed WHERE order_key IN (499, 500)", "VALUES 499, 500");
        // dropping a column the properties name removes it from them
        assertUpdate("ALTER TABLE changes.renamed DROP COLUMN order_date");
        assertThat((String) computeScalar("SHOW CREATE TABLE changes.renamed")).doesNotContain("sorted_by").contains("bloom_filter_columns = ARRAY['order_key']");
        assertUpdate("INSERT INTO changes.renamed VALUES 501", 1);
        assertQuery("SELECT count(*) FROM changes.renamed", "VALUES 30");
        assertQueryFails("ALTER TABLE changes.renamed RENAME COLUMN order_key TO \"Bad Name\"", ".*Invalid column name.*");
    }

    @Test
    void testRefusedChangesChangeNothing()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS changes");
        assertUpdate("CREATE TABLE changes.refused (a bigint, b varchar)");
        assertQueryFails("ALTER TABLE changes.refused ADD COLUMN c bigint NOT NULL", ".*Catalog 'nsc' does not support NOT NULL for column 'c'");
        assertQueryFails("ALTER TABLE changes.refused ADD COLUMN c bigint FIRST", "This connector does not support adding columns with FIRST clause");
        assertQueryFails("ALTER TABLE changes.refused ADD COLUMN c bigint AFTER a", "This connector does not support adding columns with AFTER clause");
        assertQueryFails("ALTER TABLE changes.refused ADD COLUMN c array(bigint)", ".*array\\(bigint\\).*");
        assertQueryFails("ALTER TABLE changes.refused RENAME COLUMN a TO b", ".*Column 'b' already exists");
        assertQuery("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'changes' AND table_name = 'refused'",
                "VALUES ('a', 'bigint'), ('b', 'varchar')");
    }

    private void assertEveryMode(String sql, String expected)
    {
        EveryPushdownMode.assertSameRows(getQueryRunner(), getSession(), sql, expected);
    }
}
