package io.nsc.trino;

import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.Map;

import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Needle pruning through SQL: lineitem sorted by ship date, so order keys spread over every row
 * group's min/max, and an equality on them prunes only with the row groups' Bloom filters. The
 * same rows without filters are the baseline; every result is checked against Trino's tpch.
 */
@TestInstance(PER_CLASS)
final class TestNscBloomFilters
        extends AbstractTestQueryFramework
{
    // 60,175 rows in row groups of 2,000: 31 row groups, each spanning nearly all order keys
    private static final String PROPERTIES = "sorted_by = ARRAY['l_shipdate'], row_group_size = '2000'";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.create(cluster, Map.of());
    }

    @BeforeAll
    void createTables()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS needles");
        assertUpdate(spreadWriters(), "CREATE TABLE needles.filtered WITH (%s, bloom_filter_columns = ARRAY['l_orderkey', 'l_comment']) AS SELECT * FROM tpch.tiny.lineitem".formatted(PROPERTIES), 60_175);
        assertUpdate(spreadWriters(), "CREATE TABLE needles.plain WITH (%s) AS SELECT * FROM tpch.tiny.lineitem".formatted(PROPERTIES), 60_175);
    }

    @Test
    void testPointLookupScansOnlyRowGroupsHoldingTheKey()
    {
        String lookup = "SELECT l_linenumber, l_partkey, l_quantity FROM %s WHERE l_orderkey = 35271";
        QueryCounters plain = run(lookup.formatted("needles.plain"));
        QueryCounters filtered = run(lookup.formatted("needles.filtered"));
        assertThat(filtered.result().getMaterializedRows()).containsExactlyInAnyOrderElementsOf(tpch(lookup.formatted("tpch.tiny.lineitem")).getMaterializedRows());
        assertThat(filtered.result().getMaterializedRows()).containsExactlyInAnyOrderElementsOf(plain.result().getMaterializedRows());

        long total = filtered.splitMetric(ROW_GROUPS_TOTAL);
        assertThat(total).isGreaterThan(25);
        // min/max alone keep almost every row group: the key lies within nearly all of their ranges
        long keptByStats = total - plain.splitMetric(ROW_GROUPS_PRUNED_BY_STATS);
        assertThat(keptByStats).isGreaterThan(total / 2);
        assertThat(plain.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER)).isZero();
        // the filters keep the few row groups holding the order's lines (shipped within months
        // of each other), and a false positive now and then
        long scanned = total - filtered.splitMetric(ROW_GROUPS_PRUNED_BY_STATS) - filtered.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER);
        assertThat(scanned).isBetween(1L, 5L);
    }

    @Test
    void testInListAndStrings()
    {
        assertNeedle("SELECT l_orderkey, l_linenumber FROM needles.filtered WHERE l_orderkey IN (1, 35271, 59973)", 1, 12);
        String comment = (String) computeScalar("SELECT l_comment FROM tpch.tiny.lineitem WHERE l_orderkey = 35271 AND l_linenumber = 1");
        assertNeedle("SELECT l_orderkey, l_linenumber FROM needles.filtered WHERE l_comment = '%s'".formatted(comment.replace("'", "''")), 1, 6);
        // a key that lies within most row groups' min/max but in no row: every row group pruned
        QueryCounters absent = assertNeedle("SELECT * FROM needles.filtered WHERE l_orderkey = 10", 0, 0);
        assertThat(absent.result().getRowCount()).isZero();
        assertThat(absent.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER)).isPositive();
    }

    @Test
    void testPredicatesTheFiltersCannotDecideScanAsBefore()
    {
        // NULL may match: the filters hold no NULL, so they must not prune
        for (String predicate : new String[] {"l_orderkey = 35271 OR l_orderkey IS NULL", "l_orderkey BETWEEN 35271 AND 35300", "l_partkey = 1", "l_orderkey <> 35271"}) {
            String sql = "SELECT count(*), sum(l_quantity) FROM needles.filtered WHERE " + predicate;
            QueryCounters counters = run(sql);
            assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER)).as(predicate).isZero();
            assertThat(counters.result().getMaterializedRows()).as(predicate).isEqualTo(tpch(sql.replace("needles.filtered", "tpch.tiny.lineitem")).getMaterializedRows());
        }
    }

    @Test
    void testDynamicFilterPrunesWithTheFilters()
    {
        String sql = "SELECT count(*), sum(l.l_quantity) FROM needles.filtered l JOIN tpch.tiny.orders o ON l.l_orderkey = o.o_orderkey WHERE o.o_custkey = 370";
        Session session = Session.builder(getSession())
                .setSystemProperty("join_distribution_type", "BROADCAST")
                .setCatalogSessionProperty("nsc", NscSessionProperties.DYNAMIC_FILTERING_WAIT_TIMEOUT, "20s")
                .build();
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), session, sql);
        assertThat(counters.result().getMaterializedRows()).isEqualTo(tpch(sql.replace("needles.filtered", "tpch.tiny.lineitem")).getMaterializedRows());
        // the orders' keys lie within the min/max of row groups that hold none of them
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER)).isPositive();
    }

    @Test
    void testInsertedFilesHaveFiltersToo()
    {
        long firstHalf = (long) computeScalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE l_orderkey < 30000");
        assertUpdate(spreadWriters(), "CREATE TABLE needles.grown WITH (%s, bloom_filter_columns = ARRAY['l_orderkey']) AS SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 30000".formatted(PROPERTIES), firstHalf);
        assertUpdate(spreadWriters(), "INSERT INTO needles.grown SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey >= 30000", 60_175 - firstHalf);
        QueryCounters counters = run("SELECT count(*) FROM needles.grown WHERE l_orderkey = 59973");
        assertThat(counters.result().getOnlyValue()).isEqualTo(computeScalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE l_orderkey = 59973"));
        long total = counters.splitMetric(ROW_GROUPS_TOTAL);
        assertThat(total - counters.splitMetric(ROW_GROUPS_PRUNED_BY_STATS) - counters.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER)).isBetween(1L, 4L);
        assertThat((String) computeScalar("SHOW CREATE TABLE needles.grown")).contains("bloom_filter_columns = ARRAY['l_orderkey']");
    }

    @Test
    void testBloomFilterColumnsMustBeColumnsOfAFilterableType()
    {
        assertQueryFails("CREATE TABLE needles.bad (a bigint, d double) WITH (bloom_filter_columns = ARRAY['d'])",
                "bloom_filter_columns names column 'd' of type double; Bloom filters are supported for bigint, integer, smallint, tinyint, date, varchar and varbinary columns");
        assertQueryFails("CREATE TABLE needles.bad (a bigint) WITH (bloom_filter_columns = ARRAY['a'], row_group_size = '64MB')",
                "bloom_filter_columns needs a row_group_size in rows, such as '100000', not '64MB'");
        assertQueryFails("CREATE TABLE needles.bad (a bigint) WITH (bloom_filter_columns = ARRAY['nope'])",
                "bloom_filter_columns names column 'nope', which the table does not have \\(columns: a\\)");
        assertQueryFails("CREATE TABLE needles.bad (a bigint) WITH (bloom_filter_columns = ARRAY['a', 'A'])",
                ".*bloom_filter_columns names column 'a' more than once");
        assertQueryReturnsEmptyResult("SHOW TABLES FROM needles LIKE 'bad'");
    }

    /**
     * tpch generates lineitem in order-key order, one key range per split. With writer scaling a
     * writer that starts late sees only the later keys, so its file's min/max would prune by
     * order key on its own. A fixed set of writers fed page by page in turn gives every file keys
     * from the whole range, the layout the tests need.
     */
    private Session spreadWriters()
    {
        return Session.builder(getSession())
                .setSystemProperty("redistribute_writes", "true")
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
    }

    private QueryCounters assertNeedle(String sql, long minScanned, long maxScanned)
    {
        QueryCounters counters = run(sql);
        assertThat(counters.result().getMaterializedRows()).containsExactlyInAnyOrderElementsOf(tpch(sql.replace("needles.filtered", "tpch.tiny.lineitem")).getMaterializedRows());
        long scanned = counters.splitMetric(ROW_GROUPS_TOTAL) - counters.splitMetric(ROW_GROUPS_PRUNED_BY_STATS) - counters.splitMetric(ROW_GROUPS_PRUNED_BY_FILTER);
        assertThat(scanned).as(sql).isBetween(minScanned, maxScanned);
        return counters;
    }

    private QueryCounters run(String sql)
    {
        return QueryCounters.run(getDistributedQueryRunner(), getSession(), sql);
    }

    private MaterializedResult tpch(String sql)
    {
        return computeActual(sql);
    }
}
