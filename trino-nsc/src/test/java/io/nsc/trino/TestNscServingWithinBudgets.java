package io.nsc.trino;

import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.metrics.Metric;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;
import org.junit.jupiter.api.Test;

import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pushed-down aggregations and top-Ns over many more groups and rows than a storage scan's
 * budget holds: the storage nodes send partial states and rows early and go on, the worker
 * merges them, and the results are Trino's own. No scan passes its budget (the nodes' high-water
 * marks say so), none is refused, and the worker reports what its merge holds to Trino.
 */
final class TestNscServingWithinBudgets
        extends AbstractTestQueryFramework
{
    // half of it for groups or top-N rows: about 7,000 of lineitem's 15,000 order keys
    private static final long SCAN_MEMORY_LIMIT = 4L << 20;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2, Map.of(), Map.of(
                "storage.scan-memory-limit", "4MB",
                // small batches leave the rest of the budget to the groups
                "storage.max-scan-batch", "64kB")));
        TpchTiny.load(cluster);
        return NscQueryRunner.create(cluster, Map.of());
    }

    @Test
    void testAggregationOverMoreGroupsThanAScanHoldsEqualsTrinos()
    {
        // exact aggregates only (whole quantities, averages of bigints): a double sum's last bit depends on the order of its terms
        String sql = "SELECT l_orderkey, count(*), sum(l_quantity), min(l_shipdate), max(l_comment), avg(l_partkey) FROM %s GROUP BY l_orderkey";
        Session session = manyGroups();
        long refusedBefore = nodeCounter("ScansRefusedMemory.TotalCount");
        assertThat(query(session, sql.formatted("lineitem"))).isFullyPushedDown().skippingTypesCheck().matches(sql.formatted("tpch.tiny.lineitem"));

        MaterializedResultWithPlan execution = getDistributedQueryRunner().executeWithPlan(session, sql.formatted("lineitem"));
        assertThat(execution.result().getRowCount()).isEqualTo(15_000);

        OperatorStats scan = aggregationScan(execution);
        long parts = metric(scan, ReadMetrics.AGGREGATION_PARTS);
        assertThat(parts).isPositive();
        // the storage nodes sent early: more partial pages and more group rows than one per part and group
        assertThat(metric(scan, ReadMetrics.STORAGE_EARLY_FLUSHES)).isPositive();
        assertThat(metric(scan, ReadMetrics.AGGREGATION_PAGES_MERGED)).isGreaterThan(parts);
        assertThat(metric(scan, ReadMetrics.STORAGE_ROWS_RETURNED)).isGreaterThan(15_000);
        // the merge of 15,000 groups is Trino's to account for
        assertThat(scan.getPeakUserMemoryReservation().toBytes()).isGreaterThan(1L << 20);
        assertWithinBudget(refusedBefore);
    }

    @Test
    void testTopNOfMoreRowsThanAScanHoldsEqualsTrinos()
    {
        // a total order, so that the first rows are one answer
        String sql = "SELECT l_comment, l_orderkey, l_linenumber FROM %s ORDER BY l_comment DESC, l_orderkey, l_linenumber LIMIT 30000";
        Session session = Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.FILTER.name()).build();
        long refusedBefore = nodeCounter("ScansRefusedMemory.TotalCount");
        long flushesBefore = nodeCounter("EarlyFlushes.TotalCount");
        assertThat(query(session, sql.formatted("lineitem"))).ordered().skippingTypesCheck().matches(sql.formatted("tpch.tiny.lineitem"));
        assertThat(nodeCounter("EarlyFlushes.TotalCount")).isGreaterThan(flushesBefore);
        assertWithinBudget(refusedBefore);
    }

    private Session manyGroups()
    {
        return Session.builder(getSession())
                .setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.FILTER.name())
                .setCatalogSessionProperty("nsc", NscSessionProperties.AGGREGATION_PUSHDOWN_MAX_GROUPS, "100000")
                .build();
    }

    private static void assertWithinBudget(long refusedBefore)
    {
        assertThat(nodeCounter("ScansRefusedMemory.TotalCount")).isEqualTo(refusedBefore);
        // the nodes' high-water marks: the most any one scan held
        assertThat(nodeCounter("PeakScanMemoryBytes")).isPositive();
        for (String node : new String[] {"storage-1", "storage-2"}) {
            assertThat(nodeAttribute(node, "PeakScanMemoryBytes")).as(node).isLessThanOrEqualTo(SCAN_MEMORY_LIMIT);
        }
    }

    private OperatorStats aggregationScan(MaterializedResultWithPlan execution)
    {
        QueryInfo info = getDistributedQueryRunner().getCoordinator().getQueryManager().getFullQueryInfo(execution.queryId());
        return StageInfo.getAllStages(info.getOutputStage()).stream()
                .flatMap(stage -> stage.getStageStats().getOperatorSummaries().stream())
                .filter(operator -> operator.getConnectorMetrics().getMetrics().containsKey(ReadMetrics.AGGREGATION_PARTS))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no operator read a pushed-down aggregation"));
    }

    private static long metric(OperatorStats operator, String name)
    {
        Metric<?> metric = operator.getConnectorMetrics().getMetrics().get(name);
        return metric == null ? 0 : ((LongCount) metric).getTotal();
    }

    /** A scanner counter summed over the storage nodes (they share this JVM's MBean server). */
    private static long nodeCounter(String attribute)
    {
        return nodeAttribute("storage-1", attribute) + nodeAttribute("storage-2", attribute);
    }

    private static long nodeAttribute(String node, String attribute)
    {
        try {
            return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName("io.nsc.storage.scan:name=NearStorageScanner,node=" + node), attribute);
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
