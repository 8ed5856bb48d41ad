package io.nsc.trino;

import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.sql.planner.plan.FilterNode;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_ANSWERED_FROM_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_TOP_N;
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
    // a partitioned join whose filter on l_orderkey (spread over every row group) reaches the workers after the probe splits are planned
    private static final String LATE_FILTER_JOIN = "SELECT count(*), sum(l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey WHERE o.o_totalprice > 400000";

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
        // a predicate nsc cannot evaluate exactly as Trino does stays with Trino
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT l_orderkey FROM lineitem WHERE length(l_comment) = 30"))
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
    void testRawSplitsPlannedBeforeTheDynamicFilterBecomeStorageScansOnceItStands()
    {
        // TPC-H Q18's shape: lineitem joined with a few orders. Planning does not wait for the
        // filter, so auto plans lineitem's splits raw (no predicate); by the time the join reads
        // them the filter on l_orderkey stands, and they are scanned at the storage nodes with it.
        String sql = "SELECT count(*), sum(l_quantity) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey WHERE o.o_totalprice > 400000";
        Session late = Session.builder(pushdown(PushdownMode.AUTO))
                .setSystemProperty("join_distribution_type", "BROADCAST")
                .setCatalogSessionProperty("nsc", NscSessionProperties.DYNAMIC_FILTERING_WAIT_TIMEOUT, "0s")
                .build();
        MaterializedRow expected = computeActual(tpchSession(), sql).getMaterializedRows().getFirst();
        assertThat((long) expected.getField(0)).isBetween(1L, 500L);
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), late, sql);
        assertThat(counters.result().getMaterializedRows()).containsExactly(expected);
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER)).isZero();
        long rescanned = counters.connectorMetric(ReadMetrics.SPLITS_FILTER_AFTER_DYNAMIC_FILTER);
        assertThat(rescanned).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FILTER)).isGreaterThanOrEqualTo(rescanned);
        // only the joining rows crossed the network
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), Session.builder(late).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, "RAW").build(), sql);
        assertThat(counters.physicalInputBytes() * 4).isLessThan(raw.physicalInputBytes());
    }

    @Test
    void testSplitsWaitOnTheWorkerForAFilterPlanningDidNotWaitFor()
    {
        // l_orderkey is spread over every row group of lineitem (sorted by l_shipdate): a filter on
        // it prunes nothing, so planning does not wait for it; a partitioned join's filter reaches
        // the workers through the coordinator after the build side is done, and each split waits
        // for it there before it chooses its mode
        // (tiny's lineitem is far below the probe size a wait needs by default: 0B makes any probe side wait)
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), partitionedJoin("0B"), LATE_FILTER_JOIN);
        assertThat(counters.result().getMaterializedRows()).containsExactlyElementsOf(computeActual(tpchSession(), LATE_FILTER_JOIN).getMaterializedRows());
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER)).isZero();
        assertThat(counters.splitMetric(SPLITS_RAW)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_RAW)).isZero();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FILTER_AFTER_DYNAMIC_FILTER)).isEqualTo(counters.splitMetric(SPLITS_RAW));
    }

    @Test
    void testSmallProbeSidesAreReadWithoutWaitingForTheFilter()
    {
        // the probe side's columns hold less than dynamic_filtering_min_probe_size (8MB by default):
        // the filter could save only milliseconds of link, so the splits are read raw as they come
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), partitionedJoin("8MB"), LATE_FILTER_JOIN);
        assertThat(counters.result().getMaterializedRows()).containsExactlyElementsOf(computeActual(tpchSession(), LATE_FILTER_JOIN).getMaterializedRows());
        assertThat(counters.splitMetric(SPLITS_RAW)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_RAW)).isEqualTo(counters.splitMetric(SPLITS_RAW));
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FILTER_AFTER_DYNAMIC_FILTER)).isZero();
    }

    private Session partitionedJoin(String minProbeSize)
    {
        return Session.builder(pushdown(PushdownMode.AUTO))
                .setSystemProperty("join_distribution_type", "PARTITIONED")
                .setCatalogSessionProperty("nsc", NscSessionProperties.DYNAMIC_FILTERING_PROBE_WAIT_TIMEOUT, "30s")
                .setCatalogSessionProperty("nsc", NscSessionProperties.DYNAMIC_FILTERING_MIN_PROBE_SIZE, minProbeSize)
                .build();
    }

    @Test
    void testAdaptiveAutoReadsEverySplitOnceInSomeModeWithTheSameRows()
    {
        Session adaptive = Session.builder(pushdown(PushdownMode.AUTO))
                .setCatalogSessionProperty("nsc", NscSessionProperties.ADAPTIVE_SCAN_MODES, "true")
                .build();
        // the same query three times: later ones start from what the earlier ones measured
        for (int run = 0; run < 3; run++) {
            QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), adaptive, UNSORTED_ONE_PERCENT);
            assertThat(counters.result().getMaterializedRows())
                    .containsExactlyInAnyOrderElementsOf(computeActual(UNSORTED_ONE_PERCENT.replace("FROM lineitem", "FROM tpch.tiny.lineitem")).getMaterializedRows());
            long planned = counters.splitMetric(SPLITS_FILTER) + counters.splitMetric(SPLITS_RAW);
            assertThat(planned).isPositive();
            assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FILTER) + counters.connectorMetric(ReadMetrics.SPLITS_RAW)).isEqualTo(planned);
            assertThat(counters.connectorMetric(ReadMetrics.SPLITS_MODE_CHANGED)).isBetween(0L, planned);
        }
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

    @Test
    void testGroupedAggregationIsComputedByStorageNodes()
    {
        // TPC-H Q1's shape, with plain columns as aggregate inputs
        String sql = "SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), avg(l_discount), count(*), count(l_comment), min(l_shipdate), max(l_receiptdate) " +
                "FROM %s WHERE l_shipdate <= DATE '1998-09-02' GROUP BY l_returnflag, l_linestatus";
        String expected = sql.formatted("tpch.tiny.lineitem");
        for (PushdownMode mode : PushdownMode.values()) {
            assertThat(query(pushdown(mode), sql.formatted("lineitem"))).as("pushdown " + mode).skippingTypesCheck().matches(expected);
        }
        assertThat(query(pushdown(PushdownMode.FILTER), sql.formatted("lineitem"))).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.AUTO), sql.formatted("lineitem"))).isFullyPushedDown();
        assertAggregatesInTrino(pushdown(PushdownMode.RAW), sql.formatted("lineitem"));
        assertAggregatesInTrino(pushdown(PushdownMode.NONE), sql.formatted("lineitem"));

        // what crossed the network: a few groups per part, not rows
        QueryCounters pushed = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), sql.formatted("lineitem"));
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), sql.formatted("lineitem"));
        long parts = pushed.connectorMetric(ReadMetrics.AGGREGATION_PARTS);
        assertThat(parts).isPositive();
        assertThat(pushed.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isLessThanOrEqualTo(4 * parts);
        // every row group the coordinator could not prune (the latest ship dates it could)
        assertThat(pushed.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED)).isBetween(50_000L, 60_175L);
        assertThat(pushed.physicalInputBytes()).isLessThan(4_000 * parts);
        assertThat(pushed.physicalInputBytes() * 100).isLessThan(raw.physicalInputBytes());
    }

    @Test
    void testGlobalAggregationsAndDistinct()
    {
        Session filter = pushdown(PushdownMode.FILTER);
        String empty = "SELECT count(*), count(l_quantity), sum(l_quantity), sum(l_orderkey), min(l_shipdate), max(l_comment), avg(l_orderkey) FROM %s WHERE l_shipdate > DATE '2001-01-01'";
        assertThat(query(filter, empty.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(empty.formatted("tpch.tiny.lineitem"));
        String all = "SELECT count(*), sum(l_orderkey), min(l_comment), max(l_shipdate), avg(l_quantity) FROM %s";
        assertThat(query(filter, all.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(all.formatted("tpch.tiny.lineitem"));
        String distinct = "SELECT DISTINCT l_shipmode FROM %s WHERE l_quantity > 45";
        assertThat(query(filter, distinct.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(distinct.formatted("tpch.tiny.lineitem"));
        // a join's dynamic filter on a pushed aggregate's result names no table column
        String joinOnAggregate = "SELECT a.l_returnflag, a.c FROM (SELECT l_returnflag, count(*) c FROM %1$s GROUP BY 1) a " +
                "JOIN (SELECT count(*) v FROM %1$s WHERE l_returnflag = 'R') b ON a.c = b.v";
        Session broadcast = Session.builder(filter).setSystemProperty("join_distribution_type", "BROADCAST").build();
        assertThat(query(broadcast, joinOnAggregate.formatted("lineitem"))).skippingTypesCheck().matches(joinOnAggregate.formatted("tpch.tiny.lineitem"));
        String decimals = "SELECT sum(CAST(l_quantity AS decimal(12, 2))) FROM %s";
        assertThat(query(filter, decimals.formatted("lineitem"))).skippingTypesCheck().matches(decimals.formatted("tpch.tiny.lineitem"));
    }

    @Test
    void testFullyMatchingRowGroupsAreAnsweredFromStats()
    {
        // lineitem is sorted by l_shipdate: the row groups inside the year match entirely and are
        // answered from their row counts, null counts and exact min/max; the two at its edges are scanned
        String sql = "SELECT count(*), count(l_comment), min(l_orderkey), max(l_shipdate), min(l_partkey) FROM %s WHERE l_shipdate BETWEEN DATE '1994-01-01' AND DATE '1994-12-31'";
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), sql.formatted("lineitem"));
        assertThat(counters.result().getMaterializedRows()).isEqualTo(computeActual(sql.formatted("tpch.tiny.lineitem")).getMaterializedRows());
        long fromStats = counters.splitMetric(ROW_GROUPS_ANSWERED_FROM_STATS);
        assertThat(fromStats).isGreaterThanOrEqualTo(5);
        assertThat(counters.connectorMetric(ReadMetrics.AGGREGATION_ROW_GROUPS_FROM_STATS)).isEqualTo(fromStats);
        assertThat(counters.connectorMetric(ReadMetrics.AGGREGATION_PARTS)).isBetween(1L, 2L);
        // only the edge row groups were decoded
        assertThat(counters.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED)).isLessThan(3 * 1000);

        // without a predicate, count(*) is the row count: nothing is read at all
        QueryCounters count = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT count(*) FROM lineitem");
        assertThat(count.result().getOnlyValue()).isEqualTo(60175L);
        assertThat(count.physicalInputBytes()).isZero();
        // sum needs every value: no stats answer
        QueryCounters sum = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT count(*), sum(l_orderkey) FROM lineitem");
        assertThat(sum.splitMetric(ROW_GROUPS_ANSWERED_FROM_STATS)).isZero();
        assertThat(sum.connectorMetric(ReadMetrics.STORAGE_ROWS_SCANNED)).isEqualTo(60175);
    }

    @Test
    void testTopNReturnsEachSplitsFirstRowsAndPrunesByTheStatsBound()
    {
        List<String> queries = List.of(
                // the sorted column: the stats bound leaves only the last row groups
                "SELECT l_orderkey, l_linenumber, l_shipdate FROM %s ORDER BY l_shipdate DESC, l_orderkey, l_linenumber LIMIT 10",
                "SELECT l_orderkey, l_linenumber, l_shipdate FROM %s WHERE l_quantity > 20 ORDER BY l_shipdate, l_orderkey DESC, l_linenumber LIMIT 7",
                // an unsorted column, strings, and a limit larger than a row group
                "SELECT l_partkey, l_orderkey, l_linenumber FROM %s ORDER BY l_partkey, l_orderkey, l_linenumber LIMIT 1500",
                "SELECT l_comment, l_orderkey, l_linenumber FROM %s ORDER BY l_comment DESC, l_orderkey, l_linenumber LIMIT 3");
        for (String sql : queries) {
            List<MaterializedRow> expected = computeActual(sql.formatted("tpch.tiny.lineitem")).getMaterializedRows();
            for (PushdownMode mode : PushdownMode.values()) {
                assertThat(computeActual(pushdown(mode), sql.formatted("lineitem")).getMaterializedRows()).as("%s: %s", mode, sql).containsExactlyElementsOf(expected);
            }
        }

        QueryCounters latest = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), queries.getFirst().formatted("lineitem"));
        assertThat(latest.splitMetric(ROW_GROUPS_PRUNED_BY_TOP_N)).isGreaterThanOrEqualTo(55);
        assertThat(latest.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isLessThanOrEqualTo(10 * latest.connectorMetric(ReadMetrics.SPLITS_FILTER));
        // with NULLS FIRST no bound holds
        QueryCounters nullsFirst = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT l_shipdate FROM lineitem ORDER BY l_shipdate DESC NULLS FIRST LIMIT 10");
        assertThat(nullsFirst.splitMetric(ROW_GROUPS_PRUNED_BY_TOP_N)).isZero();
        assertThat(nullsFirst.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isLessThanOrEqualTo(10 * nullsFirst.connectorMetric(ReadMetrics.SPLITS_FILTER));
    }

    @Test
    void testFiltersNoDomainExpressesAreEvaluatedWhereTheDataIs()
    {
        List<String> queries = List.of(
                "SELECT count(*), sum(l_quantity) FROM %s WHERE l_comment LIKE '%%special%%'",
                "SELECT l_orderkey, l_linenumber FROM %s WHERE l_shipmode = 'AIR' OR l_quantity > 49",
                "SELECT count(*) FROM %s WHERE NOT (l_comment LIKE 'a%%' OR l_returnflag = 'R')",
                "SELECT count(*) FROM %s WHERE l_comment LIKE '%%!_%%' ESCAPE '!' OR l_comment LIKE '__e%%'",
                "SELECT count(*) FROM %s WHERE l_shipdate < DATE '1993-01-01' OR l_partkey IN (1, 2, 3) OR l_comment IS NULL",
                "SELECT count(*) FROM %s WHERE (l_quantity > 45 AND l_shipmode <> 'MAIL') OR l_discount < 0.01",
                // a function of a column is Trino's to evaluate
                "SELECT count(*) FROM %s WHERE lower(l_comment) LIKE '%%special%%' OR l_quantity > 49");
        for (String sql : queries) {
            for (PushdownMode mode : PushdownMode.values()) {
                assertThat(query(pushdown(mode), sql.formatted("lineitem"))).as("%s: %s", mode, sql).skippingTypesCheck().matches(sql.formatted("tpch.tiny.lineitem"));
            }
        }
        assertThat(query(pushdown(PushdownMode.FILTER), queries.get(0).formatted("lineitem"))).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.FILTER), queries.get(1).formatted("lineitem"))).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.AUTO), queries.get(1).formatted("lineitem"))).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.FILTER), queries.getLast().formatted("lineitem"))).isNotFullyPushedDown(FilterNode.class);

        // LIKE is applied next to the data: only matching rows cross the network
        String like = "SELECT l_orderkey, l_comment FROM lineitem WHERE l_comment LIKE '%special%'";
        QueryCounters filter = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), like);
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), like);
        assertThat(filter.result().getMaterializedRows()).containsExactlyInAnyOrderElementsOf(raw.result().getMaterializedRows());
        assertThat(filter.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isEqualTo(filter.result().getRowCount());
        assertThat(filter.physicalInputBytes() * 10).isLessThan(raw.physicalInputBytes());
    }

    @Test
    void testAggregationsStorageCannotComputeExactlyStayWithTrino()
    {
        Session filter = pushdown(PushdownMode.FILTER);
        // an argument nsc does not compute, DISTINCT, and a floating-point min (NaN and -0.0 rules)
        for (String sql : List.of(
                "SELECT l_returnflag, sum(length(l_comment) * l_quantity) FROM %s GROUP BY 1",
                "SELECT l_returnflag, count(DISTINCT l_suppkey) FROM %s GROUP BY 1",
                "SELECT min(l_extendedprice) FROM %s")) {
            assertThat(query(filter, sql.formatted("lineitem"))).skippingTypesCheck().matches(sql.formatted("tpch.tiny.lineitem"));
            assertAggregatesInTrino(filter, sql.formatted("lineitem"));
        }
        // l_orderkey has 15,000 distinct values: more groups than the default bound of 10,000 ...
        String manyGroups = "SELECT l_orderkey, count(*) FROM %s GROUP BY 1";
        assertAggregatesInTrino(filter, manyGroups.formatted("lineitem"));
        // ... which a session may raise
        Session moreGroups = Session.builder(filter).setCatalogSessionProperty("nsc", NscSessionProperties.AGGREGATION_PUSHDOWN_MAX_GROUPS, "100000").build();
        assertThat(query(moreGroups, manyGroups.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(manyGroups.formatted("tpch.tiny.lineitem"));
    }

    private void assertAggregatesInTrino(Session session, String sql)
    {
        String plan = (String) computeActual(session, "EXPLAIN " + sql).getOnlyValue();
        assertThat(plan).as(sql).contains("Aggregate[");
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
