package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * nsc on a Trino cluster with several workers (both test clusters run a coordinator that runs no
 * splits and two workers): scans, a partitioned join whose dynamic filter the coordinator
 * assembles from both workers, and an aggregation merged across them answer exactly as Trino's
 * {@code tpch} catalog does, and Trino's own task statistics show that every nsc split ran once,
 * on a worker, and that the splits of each scan were spread over more than one worker.
 */
@ExtendWith(NscClusterExtension.class)
final class TestDistributedScheduling
{
    private static final String SCHEMA = "nsc.product_distributed";
    // written by four statements, so that each table has four files or more (each a split or more)
    // whatever size the cluster's writers cut files at
    private static final int PARTS = 4;

    @BeforeAll
    static void createTables(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            statement.execute("CREATE TABLE %s.lineitem AS SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey %% %s = 0".formatted(SCHEMA, PARTS));
            statement.execute("CREATE TABLE %s.orders AS SELECT * FROM tpch.tiny.orders WHERE o_orderkey %% %s = 0".formatted(SCHEMA, PARTS));
            for (int part = 1; part < PARTS; part++) {
                statement.execute("INSERT INTO %s.lineitem SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey %% %s = %s".formatted(SCHEMA, PARTS, part));
                statement.execute("INSERT INTO %s.orders SELECT * FROM tpch.tiny.orders WHERE o_orderkey %% %s = %s".formatted(SCHEMA, PARTS, part));
            }
        }
    }

    @AfterAll
    static void dropTables(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS %s.lineitem".formatted(SCHEMA));
            statement.execute("DROP TABLE IF EXISTS %s.orders".formatted(SCHEMA));
            statement.execute("DROP SCHEMA IF EXISTS " + SCHEMA);
        }
    }

    @Test
    void testScanSplitsRunOnSeveralWorkers(NscCluster cluster)
            throws Exception
    {
        try (Connection connection = cluster.connect("nsc")) {
            Set<String> workers = activeWorkers(connection);
            TrinoQueryInfo info = assertMatchesTpch(cluster, connection, "SELECT l_orderkey, l_linenumber, l_quantity, l_shipdate, l_comment FROM %s.lineitem ORDER BY 1, 2");

            TrinoQueryInfo.Scan scan = info.scan("nsc", SCHEMA + ".lineitem");
            assertRanOnSeveralWorkers(scan, workers);
            assertThat(scan.splitsPlanned()).as("splits of a table written in %s statements", PARTS).isGreaterThanOrEqualTo(PARTS);
            // no split ran twice and none was lost: every row was read exactly once
            assertThat(scan.rowsRead()).isEqualTo(Jdbc.rows(connection, "SELECT count(*) FROM tpch.tiny.lineitem").getFirst().getFirst());
        }
    }

    @Test
    void testPartitionedJoinCollectsItsDynamicFilterFromSeveralWorkers(NscCluster cluster)
            throws Exception
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            Set<String> workers = activeWorkers(connection);
            // partitioned: each worker builds a part of the hash table and of the dynamic filter,
            // and the coordinator merges the parts before the probe side's splits are planned with it
            statement.execute("SET SESSION join_distribution_type = 'PARTITIONED'");
            TrinoQueryInfo info = assertMatchesTpch(cluster, connection, """
                    SELECT o_orderpriority, count(*), sum(l_extendedprice), min(l_shipdate)
                    FROM %s.lineitem JOIN %s.orders ON l_orderkey = o_orderkey
                    WHERE o_orderdate BETWEEN DATE '1995-03-01' AND DATE '1995-03-31'
                    GROUP BY 1 ORDER BY 1""");

            assertThat(info.dynamicFiltersCompleted()).as("dynamic filters the coordinator completed").isEqualTo(1);
            assertThat(info.nodesRunning("DynamicFilterSourceOperator")).as("nodes that built a part of the dynamic filter")
                    .hasSizeGreaterThanOrEqualTo(2)
                    .isSubsetOf(workers);
            assertRanOnSeveralWorkers(info.scan("nsc", SCHEMA + ".lineitem"), workers);
            assertRanOnSeveralWorkers(info.scan("nsc", SCHEMA + ".orders"), workers);
        }
    }

    @Test
    void testAggregationMergesPartialAggregationsOfSeveralWorkers(NscCluster cluster)
            throws Exception
    {
        String query = """
                SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), avg(l_discount), min(l_shipdate), max(l_receiptdate)
                FROM %s.lineitem GROUP BY 1, 2 ORDER BY 1, 2""";
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            Set<String> workers = activeWorkers(connection);
            // aggregated by Trino: each worker's partial aggregation beside its scan, merged by the final one
            statement.execute("SET SESSION nsc.aggregation_pushdown_max_groups = 0");
            TrinoQueryInfo inTrino = assertMatchesTpch(cluster, connection, query);
            assertRanOnSeveralWorkers(inTrino.scan("nsc", SCHEMA + ".lineitem"), workers);
            assertThat(inTrino.nodesRunning("HashAggregationOperator")).hasSizeGreaterThanOrEqualTo(2).isSubsetOf(workers);

            // aggregated by the storage nodes: the scan is one split holding every part (a file's row
            // groups) the split source planned, whose partial states one worker merges
            statement.execute("RESET SESSION nsc.aggregation_pushdown_max_groups");
            TrinoQueryInfo pushedDown = assertMatchesTpch(cluster, connection, query);
            TrinoQueryInfo.Scan scan = pushedDown.scan("nsc", SCHEMA + ".lineitem");
            assertThat(scan.splitsRun()).as("splits run: %s", scan.splitsByNode()).isEqualTo(1);
            assertThat(workers).containsAll(scan.splitsByNode().keySet());
            assertThat(scan.splitsPlanned()).as("parts of the one split").isGreaterThanOrEqualTo(PARTS);
        }
    }

    /** Every split of the scan ran once, each on a worker, and the scan's splits ran on two workers or more. */
    private static void assertRanOnSeveralWorkers(TrinoQueryInfo.Scan scan, Set<String> workers)
    {
        assertThat(scan.splitsRun()).as("splits of %s run (%s), against the splits planned", scan.table(), scan.splitsByNode()).isEqualTo(scan.splitsPlanned());
        assertThat(workers).as("the workers, against the nodes that ran splits of %s", scan.table()).containsAll(scan.splitsByNode().keySet());
        assertThat(scan.splitsByNode()).as("splits of %s per node", scan.table()).hasSizeGreaterThanOrEqualTo(2);
    }

    /**
     * Runs {@code query} (its {@code %s} naming a TPC-H schema) on this test's nsc tables and on
     * {@code tpch.tiny}, asserts the same rows, and returns Trino's info on the nsc query.
     */
    private static TrinoQueryInfo assertMatchesTpch(NscCluster cluster, Connection connection, String query)
            throws SQLException, InterruptedException
    {
        Jdbc.QueryResult actual = Jdbc.query(connection, query.replace("%s", SCHEMA));
        List<List<Object>> expected = Jdbc.rows(connection, query.replace("%s", "tpch.tiny"));
        assertThat(actual.rows()).isNotEmpty();
        assertThat(Jdbc.sameRows(actual.rows(), expected)).as("%s%nnsc:  %s%ntpch: %s", query, actual.rows(), expected).isTrue();
        return TrinoQueryInfo.fetch(cluster, actual.queryId());
    }

    /** The node ids of the workers the coordinator schedules on; the test needs two or more. */
    private static Set<String> activeWorkers(Connection connection)
            throws SQLException
    {
        Set<String> workers = Jdbc.rows(connection, "SELECT node_id FROM system.runtime.nodes WHERE NOT coordinator AND state = 'active'").stream()
                .map(row -> (String) row.getFirst())
                .collect(Collectors.toUnmodifiableSet());
        assertThat(workers).as("active workers of the cluster").hasSizeGreaterThanOrEqualTo(2);
        return workers;
    }
}
