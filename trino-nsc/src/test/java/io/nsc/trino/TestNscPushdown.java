package io.nsc.trino;

import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.sql.planner.plan.FilterNode;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS_RAW;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Near-storage pushdown through SQL: what each mode sends over the network, what the plan keeps,
 * and that limits and dynamic filters reach the storage nodes. Row-level correctness in every
 * mode is checked by the TPC-H and type suites; here the counters show the effect.
 */
final class TestNscPushdown
        extends AbstractTestQueryFramework
{
    // l_partkey is not the sort column of the loaded lineitem: about 1% of rows, spread over every row group
    private static final String UNSORTED_ONE_PERCENT = "SELECT l_orderkey, l_extendedprice, l_comment FROM lineitem WHERE l_partkey <= 20";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(3));
        TpchTiny.load(cluster);
        return NscQueryRunner.create(cluster, Map.of());
    }

    @Test
    void testFilterModeSendsAFewPercentOfRawBytes()
    {
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), UNSORTED_ONE_PERCENT);
        QueryCounters filter = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), UNSORTED_ONE_PERCENT);
        assertThat(filter.result().getMaterializedRows()).containsExactlyInAnyOrderElementsOf(raw.result().getMaterializedRows());
        assertThat(filter.result().getRowCount()).isBetween(300, 900);

        assertThat(raw.connectorMetric(ReadMetrics.SPLITS_FILTER)).isZero();
        assertThat(filter.connectorMetric(ReadMetrics.SPLITS_RAW)).isZero();
        assertThat(filter.connectorMetric(ReadMetrics.SPLITS_FILTER)).isEqualTo(filter.splitMetric(SPLITS_FILTER)).isPositive();
        // every row decoded at storage, only the matching ones sent
        assertThat(filter.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED)).isEqualTo(60175);
        assertThat(filter.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isEqualTo(filter.result().getRowCount());
        assertThat(filter.connectorMetric(ReadMetrics.STORAGE_BYTES_READ_FROM_DISK)).isPositive();
        assertThat(filter.connectorMetric(ReadMetrics.STORAGE_CPU_NANOS)).isPositive();
        // physical input is what crossed the network: a few percent of raw mode's
        assertThat(filter.physicalInputBytes()).isEqualTo(filter.connectorMetric(ReadMetrics.STORAGE_BYTES_RECEIVED));
        assertThat(filter.physicalInputBytes() * 20).isLessThan(raw.physicalInputBytes());
    }

    @Test
    void testEnforcedPredicateLeavesNoFilterInThePlan()
    {
        String sql = "SELECT l_orderkey FROM lineitem WHERE l_partkey <= 20 AND l_shipmode IN ('MAIL', 'SHIP') AND l_comment IS NOT NULL";
        assertThat(query(pushdown(PushdownMode.FILTER), sql)).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.AUTO), sql)).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.RAW), sql)).isNotFullyPushedDown(FilterNode.class);
        assertThat(query(pushdown(PushdownMode.NONE), sql)).isNotFullyPushedDown(FilterNode.class);
        // a predicate no domain expresses stays with Trino
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT l_orderkey FROM lineitem WHERE l_partkey + l_suppkey = 30"))
                .isNotFullyPushedDown(FilterNode.class);
        // a column used only in the filter is not sent: one output column's bytes
        QueryCounters oneColumn = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT l_orderkey FROM lineitem WHERE l_comment IS NOT NULL");
        QueryCounters twoColumns = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT l_orderkey, l_comment FROM lineitem WHERE l_comment IS NOT NULL");
        assertThat(oneColumn.physicalInputBytes() * 3).isLessThan(twoColumns.physicalInputBytes());
    }

    @Test
    void testLimitStopsEachStorageScan()
    {
        QueryCounters limited = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT * FROM lineitem WHERE l_quantity > 10 LIMIT 5");
        assertThat(limited.result().getRowCount()).isEqualTo(5);
        long splits = limited.connectorMetric(ReadMetrics.SPLITS_FILTER);
        assertThat(limited.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isLessThanOrEqualTo(5 * splits);
        assertThat(limited.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED)).isLessThan(60175);

        QueryCounters rawLimited = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), "SELECT * FROM lineitem LIMIT 5");
        assertThat(rawLimited.result().getRowCount()).isEqualTo(5);
        assertQuery(pushdown(PushdownMode.FILTER), "SELECT count(*) FROM (SELECT * FROM lineitem WHERE l_quantity > 10 LIMIT 100)", "VALUES 100");
    }

    @Test
    void testDynamicFilterPrunesRowGroupsAndRowsAtStorage()
    {
        // lineitem is sorted by l_shipdate: the dynamic filter from one order's date prunes row
        // groups on the coordinator, and the storage node drops the other dates' rows
        String sql = "SELECT count(*) FROM lineitem l JOIN orders o ON l.l_shipdate = o.o_orderdate WHERE o.o_orderkey = 7";
        Session session = Session.builder(pushdown(PushdownMode.FILTER))
                .setSystemProperty("join_distribution_type", "BROADCAST")
                .setCatalogSessionProperty("nsc", NscSessionProperties.DYNAMIC_FILTERING_WAIT_TIMEOUT, "20s")
                .build();
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), session, sql);
        assertThat(counters.result().getOnlyValue()).isEqualTo(computeScalar(tpchSession(), sql));
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED))
                .isLessThan(counters.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED));
    }

    @Test
    void testAutoScansSelectiveSplitsAtStorageAndReadsTheRestRaw()
    {
        QueryCounters selective = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), UNSORTED_ONE_PERCENT);
        assertThat(selective.splitMetric(SPLITS_FILTER)).isPositive();
        assertThat(selective.splitMetric(SPLITS_RAW)).isZero();

        // no predicate and no limit: a storage scan could only send more than the compressed chunks
        QueryCounters everything = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), "SELECT l_comment FROM lineitem");
        assertThat(everything.splitMetric(SPLITS_FILTER)).isZero();
        assertThat(everything.splitMetric(SPLITS_RAW)).isPositive();
        assertThat(everything.result().getRowCount()).isEqualTo(60175);
    }

    @Test
    void testNoneShipsEveryRowGroup()
    {
        String sql = "SELECT count(*) FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25'";
        QueryCounters none = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.NONE), sql);
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), sql);
        assertThat(none.result().getOnlyValue()).isEqualTo(raw.result().getOnlyValue());
        assertThat(none.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isZero();
        // at most 3 of ~60 row groups, plus the footer once per worker that had not read the file
        assertThat(raw.physicalInputBytes() * 4).isLessThan(none.physicalInputBytes());
    }

    private Session pushdown(PushdownMode mode)
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name()).build();
    }

    private Session tpchSession()
    {
        return Session.builder(getSession()).setCatalog("tpch").setSchema("tiny").build();
    }
}
