package io.nsc.trino;

import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.Map;

import static io.trino.testing.QueryAssertions.assertEqualsIgnoreOrder;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Storage nodes whose memory pool holds one scan's first reservation and no more: a scan of
 * lineitem (a row group of its rows, or its footer, is more than that) is refused as busy by every
 * replica before it returns a row, and the worker reads the split raw instead. Queries answer as Trino does, the
 * fallbacks are counted, and the nodes' pools are empty once the queries end.
 */
final class TestNscAdmission
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2, Map.of(), Map.of(
                "storage.memory-pool-size", "64kB",
                "storage.scan-admission-reservation", "64kB",
                // footers and page indexes are charged to the scans that read them: lineitem's footer is bigger than the pool
                "storage.scan-footer-cache-size", "0B",
                "storage.scan-page-index-cache-size", "0B")));
        TpchTiny.load(cluster);
        // every scan asks its node, so that each refusal is seen here; leaving a busy node alone is TestStorageScanPageSource's
        return NscQueryRunner.create(cluster, Map.of("nsc.busy-node-back-off", "0s"));
    }

    @Test
    void testFilterScansOfBusyNodesFallBackToRawReads()
    {
        Session filter = Session.builder(getSession())
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.FILTER.name())
                .build();
        long busyBefore = nodeCounter("ScansRefusedBusy.TotalCount");
        // every column of every row: a row group's page alone is more than the pool, so each scan is refused before its
        // first batch is sent, and only then (a scan that returned rows cannot move to a raw read)
        String sql = "SELECT l_orderkey, l_partkey, l_suppkey, l_linenumber, l_quantity, l_extendedprice, l_discount, l_tax, l_returnflag, l_linestatus, " +
                "l_shipdate, l_commitdate, l_receiptdate, l_shipinstruct, l_shipmode, l_comment FROM %s";
        // all 60,175 rows, compared as multisets in linear time: query(...).matches(...) compares
        // unordered rows with AssertJ's containsExactlyInAnyOrder, which is quadratic (over a minute here)
        assertEqualsIgnoreOrder(
                computeActual(filter, sql.formatted("lineitem")).getMaterializedRows(),
                computeActual(sql.formatted("tpch.tiny.lineitem")).getMaterializedRows(),
                "lineitem read with every split refused as busy");

        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), filter, sql.formatted("lineitem"));
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.STORAGE_SCANS_REFUSED_BUSY)).isGreaterThanOrEqualTo(counters.connectorMetric(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW));
        assertThat(counters.connectorMetric(ReadMetrics.STORAGE_BUSY_NODES_SKIPPED)).isZero();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_RAW)).isPositive();
        assertThat(nodeCounter("ScansRefusedBusy.TotalCount")).isGreaterThan(busyBefore);
        assertPoolsEmpty();
    }

    @Test
    void testAggregationPartsOfBusyNodesAreComputedFromRawReads()
    {
        Session session = Session.builder(getSession())
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.FILTER.name())
                .build();
        // three groups never fill a scan's share: a node sends them when its input ends, so a refusal comes before its first row.
        // Exact aggregates only: a double sum's last bit depends on the order of its terms
        String sql = "SELECT l_returnflag, count(*), sum(l_quantity), min(l_shipdate), max(l_comment) FROM %s WHERE l_discount > 0.03 GROUP BY l_returnflag";
        assertThat(query(session, sql.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(sql.formatted("tpch.tiny.lineitem"));

        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), session, sql.formatted("lineitem"));
        assertThat(counters.connectorMetric(ReadMetrics.AGGREGATION_PARTS)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).isPositive();
        assertPoolsEmpty();
    }

    @Test
    void testScansThatFitStillRunOnTheNodes()
    {
        // nation's footer is small: its scan fits in the pool and is not refused
        Session filter = Session.builder(getSession())
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.FILTER.name())
                .build();
        String sql = "SELECT n_name FROM %s WHERE n_regionkey = 1";
        assertThat(query(filter, sql.formatted("nation"))).skippingTypesCheck().matches(sql.formatted("tpch.tiny.nation"));
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), filter, sql.formatted("nation"));
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FILTER)).isPositive();
        assertThat(counters.connectorMetric(ReadMetrics.SPLITS_FALLEN_BACK_TO_RAW)).isZero();
    }

    /** Every scan gave back what it held: the nodes' pools are empty (no footer cache is reserved). */
    private static void assertPoolsEmpty()
    {
        for (String node : new String[] {"storage-1", "storage-2"}) {
            assertThat(poolAttribute(node, "ReservedBytes")).as(node).isZero();
            assertThat(poolAttribute(node, "QueuedRequests")).as(node).isZero();
        }
    }

    private static long nodeCounter(String attribute)
    {
        return attribute("io.nsc.storage.scan:name=NearStorageScanner,node=storage-1", attribute)
                + attribute("io.nsc.storage.scan:name=NearStorageScanner,node=storage-2", attribute);
    }

    private static long poolAttribute(String node, String attribute)
    {
        return attribute("io.nsc.storage.memory:name=NodeMemoryPool,node=" + node, attribute);
    }

    private static long attribute(String name, String attribute)
    {
        try {
            return ((Number) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(name), attribute)).longValue();
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
