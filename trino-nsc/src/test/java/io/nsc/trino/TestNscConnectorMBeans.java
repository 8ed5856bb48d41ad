package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

import static io.trino.tpch.TpchTable.NATION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connector's caches in the JVM's MBeanServer under Trino's names for a catalog's MBeans,
 * counting what queries do. Trino's {@code jmx} connector shows these MBeans; it is not published
 * to Maven Central, so the test reads the MBeanServer it reads. Catalog {@code nsc_jmx} is this
 * test's alone: a name registered twice in the JVM (the connectors of other tests, other nodes)
 * keeps the first MBean. A coordinator alone (no workers) both plans and reads, so one instance
 * of each cache sees a query's every lookup.
 */
final class TestNscConnectorMBeans
        extends AbstractTestQueryFramework
{
    private static final String CATALOG = "nsc_jmx";
    private static final String QUERY = "SELECT sum(n_nationkey) FROM " + CATALOG + ".tpch.nation";

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        return NscQueryRunner.builder(closeAfterClass(TestingNscCluster.start(2)))
                .setWorkerCount(0)
                .setInitialTables(List.of(NATION))
                // raw reads, so that the coordinator's own page sources read (and cache) the footers;
                // a lifetime that outlasts a slow machine's pause between the queries
                .addNscCatalog(CATALOG, Map.of("nsc.pushdown", "RAW", "nsc.table-files-cache-ttl", "1h"))
                .build();
    }

    @Test
    void testCachesAreExportedUnderTrinoNames()
            throws JMException
    {
        assertThat(server.queryNames(ObjectName.getInstance("trino.plugin.nsc.*:name=" + CATALOG + ",*"), null))
                .containsExactlyInAnyOrder(
                        ObjectName.getInstance("trino.plugin.nsc.metadata:type=TableFilesCache,name=" + CATALOG),
                        ObjectName.getInstance("trino.plugin.nsc.read:type=FooterCache,name=" + CATALOG),
                        ObjectName.getInstance("trino.plugin.nsc.read:type=BusyStorageNodes,name=" + CATALOG),
                        ObjectName.getInstance("trino.plugin.nsc.client:type=StorageNodeLoad,name=" + CATALOG));
        assertThat(attribute("client", "StorageNodeLoad", "CacheStats.RequestCount")).isNotNegative();
    }

    @Test
    void testRepeatedQueryHitsTheCaches()
            throws JMException
    {
        computeActual(QUERY);
        long fileListingMisses = attribute("metadata", "TableFilesCache", "FilesCacheStats.MissCount");
        long fileListingHits = attribute("metadata", "TableFilesCache", "FilesCacheStats.HitCount");
        long footerMisses = attribute("read", "FooterCache", "CacheStats.MissCount");
        long footerHits = attribute("read", "FooterCache", "CacheStats.HitCount");
        assertThat(fileListingMisses).isPositive();
        assertThat(footerMisses).isPositive();
        assertThat(attribute("metadata", "TableFilesCache", "FilesCacheStats.Size")).isPositive();
        assertThat(attribute("read", "FooterCache", "CacheStats.Size")).isPositive();

        // the same scan again: its files listed from the cache, its footers not read again
        computeActual(QUERY);
        assertThat(attribute("metadata", "TableFilesCache", "FilesCacheStats.MissCount")).isEqualTo(fileListingMisses);
        assertThat(attribute("metadata", "TableFilesCache", "FilesCacheStats.HitCount")).isGreaterThan(fileListingHits);
        assertThat(attribute("read", "FooterCache", "CacheStats.MissCount")).isEqualTo(footerMisses);
        assertThat(attribute("read", "FooterCache", "CacheStats.HitCount")).isGreaterThan(footerHits);
    }

    private long attribute(String domain, String type, String attribute)
            throws JMException
    {
        ObjectName name = ObjectName.getInstance("trino.plugin.nsc.%s:type=%s,name=%s".formatted(domain, type, CATALOG));
        return ((Number) server.getAttribute(name, attribute)).longValue();
    }
}
