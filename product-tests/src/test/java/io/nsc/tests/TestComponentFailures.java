package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Components die and come back; SQL keeps answering correctly. Each test leaves the cluster
 * whole again for the tests after it.
 */
@ExtendWith(NscClusterExtension.class)
final class TestComponentFailures
{
    private static final List<String> CHECKS = List.of(
            "SELECT count(*), sum(l_quantity), min(l_shipdate), max(l_shipdate) FROM %s.lineitem",
            "SELECT o_orderpriority, count(*) FROM %s.orders WHERE o_orderdate >= DATE '1995-01-01' GROUP BY 1 ORDER BY 1",
            "SELECT n_name, count(*) FROM %s.customer JOIN %s.nation ON c_nationkey = n_nationkey GROUP BY 1 ORDER BY 1");
    private static final String PROBE = "SELECT * FROM "
            + "(SELECT sum(l_quantity) FROM nsc.tpch.lineitem), (SELECT sum(o_totalprice) FROM nsc.tpch.orders), "
            + "(SELECT sum(c_acctbal) FROM nsc.tpch.customer), (SELECT sum(p_retailprice) FROM nsc.tpch.part), "
            + "(SELECT sum(ps_supplycost) FROM nsc.tpch.partsupp), (SELECT sum(s_acctbal) FROM nsc.tpch.supplier), "
            + "(SELECT sum(n_regionkey) FROM nsc.tpch.nation), (SELECT sum(r_regionkey) FROM nsc.tpch.region)";
    private static final Pattern FAILOVERS = Pattern.compile("\"storage_replica_failovers\"\\s*:\\s*\\{[^}]*\"total\"\\s*:\\s*(\\d+)");

    @Test
    void testQueriesSurviveAKilledStorageNode(NscCluster cluster)
            throws Exception
    {
        String victim = cluster.storageNodeIds().get(1);
        try (Connection connection = cluster.connect("nsc")) {
            assertChecksMatchTpch(connection);
            long killed = System.nanoTime();
            cluster.kill(victim);
            // every query right after the kill still returns correct rows (reads fail over to the other replica)
            assertChecksMatchTpch(connection);

            // Reads whose first replica is the dead node fail over to the next one until the
            // metadata service notices the node is gone and the coordinator's file list is refreshed.
            // The probe reads a column of every table, so some of its files have the victim first.
            Jdbc.QueryResult first = Jdbc.query(connection, PROBE);
            assertThat(replicaFailovers(cluster, first.queryId())).as("failovers right after the kill").isPositive();
            Duration withoutRetries = null;
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (withoutRetries == null && System.nanoTime() < deadline) {
                Jdbc.QueryResult result = Jdbc.query(connection, PROBE);
                assertThat(Jdbc.sameRows(result.rows(), first.rows())).as("probe rows %s vs %s", result.rows(), first.rows()).isTrue();
                if (replicaFailovers(cluster, result.queryId()) == 0) {
                    withoutRetries = Duration.ofNanos(System.nanoTime() - killed);
                }
            }
            assertThat(withoutRetries).as("a query without replica failovers within 2 minutes of the kill").isNotNull();
            // the figure the issue asks for; the README quotes it from this output
            System.out.printf("nsc figure: first query without replica retries %.1f s after killing %s%n", withoutRetries.toMillis() / 1000.0, victim);
        }
        finally {
            cluster.startStopped();
        }
        try (Connection connection = cluster.connect("nsc")) {
            assertChecksMatchTpch(connection);
        }
        assertThat(cluster.metrics("metadata")).containsEntry("live_nodes", 3L);
    }

    @Test
    void testMetadataRestartKeepsEveryTable(NscCluster cluster)
            throws Exception
    {
        List<List<Object>> tablesBefore;
        try (Connection connection = cluster.connect("nsc")) {
            tablesBefore = Jdbc.rows(connection, "SELECT table_schema, table_name FROM nsc.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2");
            assertThat(tablesBefore).hasSizeGreaterThanOrEqualTo(8);
        }
        cluster.kill("metadata");
        cluster.startStopped();
        try (Connection connection = cluster.connect("nsc")) {
            assertThat(Jdbc.rows(connection, "SELECT table_schema, table_name FROM nsc.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2"))
                    .isEqualTo(tablesBefore);
            assertChecksMatchTpch(connection);
        }
    }

    private static void assertChecksMatchTpch(Connection connection)
            throws SQLException
    {
        for (String check : CHECKS) {
            List<List<Object>> actual = Jdbc.rows(connection, check.replace("%s", "nsc.tpch"));
            List<List<Object>> expected = Jdbc.rows(connection, check.replace("%s", "tpch.tiny"));
            assertThat(Jdbc.sameRows(actual, expected)).as("%s%nnsc:  %s%ntpch: %s", check, actual, expected).isTrue();
        }
    }

    /** storage_replica_failovers summed over the query's operators, from Trino's REST API. */
    private static long replicaFailovers(NscCluster cluster, String queryId)
    {
        String info = cluster.trinoRest("/v1/query/" + queryId);
        Matcher matcher = FAILOVERS.matcher(info);
        long total = 0;
        boolean found = false;
        while (matcher.find()) {
            found = true;
            total += Long.parseLong(matcher.group(1));
        }
        if (!found) {
            throw new IllegalStateException("query %s reports no storage_replica_failovers metric".formatted(queryId));
        }
        return total;
    }
}
