package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Several metadata services over one PostgreSQL catalog ({@code -Dnsc.cluster=process-postgresql}):
 * SIGKILL the one every client tries first and SQL keeps answering correctly, reads and writes,
 * through the other; once it is back it serves again, alone while the other is killed in turn.
 */
@ExtendWith(NscClusterExtension.class)
final class TestMetadataFailover
{
    private static final List<String> CHECKS = List.of(
            "SELECT count(*), sum(l_quantity), min(l_shipdate), max(l_shipdate) FROM %s.lineitem",
            "SELECT o_orderpriority, count(*) FROM %s.orders WHERE o_orderdate >= DATE '1995-01-01' GROUP BY 1 ORDER BY 1",
            "SELECT n_name, count(*) FROM %s.customer JOIN %s.nation ON c_nationkey = n_nationkey GROUP BY 1 ORDER BY 1");
    private static final String SCHEMA = "nsc.product_failover";
    private static final String ORDERS_CHECK = "SELECT count(*), sum(o_orderkey), sum(o_totalprice), max(o_comment) FROM %s";
    // the clients' retries after the kill: a query that failed meanwhile is retried until this passes
    private static final Duration FAILOVER_LIMIT = Duration.ofMinutes(2);
    private static final Duration HEARTBEAT_LIMIT = Duration.ofMinutes(1);

    @Test
    void testSqlSurvivesEachMetadataServiceKilledInTurn(NscCluster cluster)
            throws Exception
    {
        List<String> services = cluster.metadataServices();
        assumeTrue(services.size() >= 2, "needs several metadata services over one catalog: -Dnsc.cluster=process-postgresql");
        String first = services.get(0);
        String second = services.get(1);
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            // committed through the first service: every client tries it first while it runs
            statement.execute("CREATE TABLE %s.before_kill AS SELECT * FROM tpch.tiny.nation".formatted(SCHEMA));
        }

        // the first service dies: every client fails over to the second
        survive(cluster, first, "after_first_kill");
        assertAllServicesSeeEveryStorageNode(cluster);

        // the first is back and serves alone while the second is dead: what the second
        // committed is in the one catalog they share
        survive(cluster, second, "after_second_kill");
        assertAllServicesSeeEveryStorageNode(cluster);

        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM " + SCHEMA))
                    .containsExactlyInAnyOrder(List.of("before_kill"), List.of("after_first_kill"), List.of("after_second_kill"));
            for (String table : List.of("before_kill", "after_first_kill", "after_second_kill")) {
                statement.execute("DROP TABLE %s.%s".formatted(SCHEMA, table));
            }
            statement.execute("DROP SCHEMA " + SCHEMA);
        }
    }

    /**
     * Kills {@code victim}, times the first successful query, then checks reads against the tpch
     * catalog, a CTAS, an INSERT and SHOW TABLES while it is dead; starts it again at the end.
     */
    private static void survive(NscCluster cluster, String victim, String newTable)
            throws Exception
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            long lookups = tableLookups(cluster, victim);
            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            // the victim is the service Trino plans with: a kill of an idle one would prove nothing
            assertThat(tableLookups(cluster, victim)).as("table_lookups of %s", victim).isGreaterThan(lookups);
            long killed = System.nanoTime();
            cluster.kill(victim);
            int failures = 0;
            List<List<Object>> count = null;
            SQLException lastFailure = null;
            while (count == null && System.nanoTime() - killed < FAILOVER_LIMIT.toNanos()) {
                try {
                    count = Jdbc.rows(connection, "SELECT count(*) FROM nsc.tpch.lineitem");
                }
                catch (SQLException e) {
                    failures++;
                    lastFailure = e;
                    Thread.sleep(100);
                }
            }
            assertThat(count).as("a query within %s of killing %s; the last failure: %s", FAILOVER_LIMIT, victim, lastFailure).isNotNull();
            Duration toFirstQuery = Duration.ofNanos(System.nanoTime() - killed);
            // the figure the issue asks for; docs/ quote it from this output
            System.out.printf("nsc figure: first successful query %.2f s after SIGKILL of %s (%s queries failed before it)%n", toFirstQuery.toNanos() / 1e9, victim, failures);
            assertThat(count).isEqualTo(Jdbc.rows(connection, "SELECT count(*) FROM tpch.tiny.lineitem"));

            Jdbc.assertChecksMatchTpch(connection, CHECKS);
            String table = "%s.%s".formatted(SCHEMA, newTable);
            statement.execute("CREATE TABLE %s AS SELECT * FROM tpch.tiny.orders".formatted(table));
            statement.execute("INSERT INTO %s SELECT * FROM tpch.tiny.orders".formatted(table));
            List<List<Object>> written = Jdbc.rows(connection, ORDERS_CHECK.formatted(table));
            List<List<Object>> expected = Jdbc.rows(connection, ORDERS_CHECK.formatted("(SELECT * FROM tpch.tiny.orders UNION ALL SELECT * FROM tpch.tiny.orders)"));
            assertThat(Jdbc.sameRows(written, expected)).as("%s: %s, expected %s", table, written, expected).isTrue();
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM " + SCHEMA)).contains(List.of("before_kill"), List.of(newTable));
            assertThat(Jdbc.rows(connection, "SELECT count(*) FROM %s.before_kill".formatted(SCHEMA))).containsExactly(List.of(25L));
            if (cluster instanceof ProcessCluster process) {
                assertStatusShows(process, victim);
            }
        }
        finally {
            cluster.startStopped();
        }
    }

    private static long tableLookups(NscCluster cluster, String service)
    {
        return cluster.metrics(service).getOrDefault("table_lookups", -1L);
    }

    /** ./nsc status: PostgreSQL and each metadata service on its own line, the victim stopped. */
    private static void assertStatusShows(ProcessCluster cluster, String victim)
    {
        NscCommand.Result status = cluster.command().run(1, "status");
        assertThat(status.exitCode()).as(status.output()).isZero();
        List<String> lines = status.output().lines().toList();
        assertThat(lines).anyMatch(line -> line.startsWith("postgresql ") && line.endsWith(" healthy"));
        for (String service : cluster.metadataServices()) {
            String state = service.equals(victim) ? " stopped" : " healthy";
            assertThat(lines).as(status.output()).anyMatch(line -> line.startsWith(service + " ") && line.endsWith(state));
        }
    }

    /** Node liveness is the catalog's, not one service's: each service sees every storage node alive. */
    private static void assertAllServicesSeeEveryStorageNode(NscCluster cluster)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + HEARTBEAT_LIMIT.toNanos();
        for (String service : cluster.metadataServices()) {
            long live = cluster.metrics(service).getOrDefault("live_nodes", -1L);
            while (live != cluster.storageNodeIds().size() && System.nanoTime() < deadline) {
                Thread.sleep(500);
                live = cluster.metrics(service).getOrDefault("live_nodes", -1L);
            }
            assertThat(live).as("live_nodes of %s", service).isEqualTo(cluster.storageNodeIds().size());
        }
    }
}
