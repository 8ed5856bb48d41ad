package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The local cluster as a user drives it with {@code ./nsc}: the demo prints how to connect, SQL
 * over JDBC answers, running the demo again changes nothing, status and load behave.
 */
@ExtendWith(NscClusterExtension.class)
final class TestDemoCluster
{
    @Test
    void testQueriesOverJdbcMatchTheTpchCatalog(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc")) {
            assertThat(Jdbc.rows(connection, "SHOW SCHEMAS FROM nsc")).contains(List.of("tpch"));
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM nsc.tpch")).hasSize(8);
            String query = "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM %s.lineitem "
                    + "WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25' GROUP BY 1, 2 ORDER BY 1, 2";
            List<List<Object>> nsc = Jdbc.rows(connection, query.formatted("nsc.tpch"));
            assertThat(nsc).isNotEmpty();
            assertThat(Jdbc.sameRows(nsc, Jdbc.rows(connection, query.formatted("tpch.tiny")))).isTrue();
            assertThat(Jdbc.rows(connection, "SELECT count(*) FROM tpch.lineitem")).containsExactly(List.of(60175L));
        }
    }

    @Test
    void testDemoPrintsHowToConnect(NscCluster cluster)
    {
        ProcessCluster process = processCluster(cluster);
        assertThat(process.demoOutput()).contains("jdbc:trino://localhost:%s/nsc".formatted(process.trinoPort()), "./nsc cli");
    }

    @Test
    void testDemoAgainChangesNothing(NscCluster cluster)
    {
        ProcessCluster process = processCluster(cluster);
        NscCommand.Result again = process.demo(5);
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(again.output()).contains("already running");
        NscCommand.Result status = process.command().run(1, "status");
        assertThat(status.exitCode()).as(status.output()).isZero();
        // metadata, three storage nodes, the coordinator and each worker on a line of its own
        assertThat(status.output().lines().filter(line -> line.endsWith(" healthy"))).hasSize(5 + process.trinoWorkers().size());
        for (String worker : process.trinoWorkers()) {
            assertThat(status.output()).containsPattern("(?m)^%s +\\d+ +\\d+ .* healthy$".formatted(worker));
        }
    }

    @Test
    void testDemoRefusesABadWorkerCountAndChangesNothing(NscCluster cluster)
    {
        ProcessCluster process = processCluster(cluster);
        for (String count : List.of("nine", "-1", "9")) {
            NscCommand.Result refused = process.command().run(1, "demo", "--workers", count);
            assertThat(refused.exitCode()).as(refused.output()).isNotZero();
            assertThat(refused.output()).contains("--workers must be a whole number from 0 to 8", "got '%s'".formatted(count));
        }
        // another number of workers only for a stopped cluster: the running one keeps its workers
        NscCommand.Result other = process.command().run(1, "demo", "--workers", String.valueOf(process.trinoWorkers().size() + 1));
        assertThat(other.exitCode()).as(other.output()).isNotZero();
        assertThat(other.output()).contains("Trino runs with %s workers; stop the cluster first to change that".formatted(process.trinoWorkers().size()));
        NscCommand.Result status = process.command().run(1, "status");
        assertThat(status.output().lines().filter(line -> line.endsWith(" healthy"))).hasSize(5 + process.trinoWorkers().size());
    }

    @Test
    void testWorkerStopsAndStartsByName(NscCluster cluster)
            throws SQLException
    {
        ProcessCluster process = processCluster(cluster);
        String worker = process.trinoWorkers().getFirst();
        NscCommand.Result stop = process.command().run(2, "stop", worker);
        assertThat(stop.exitCode()).as(stop.output()).isZero();
        assertThat(stop.output()).contains("stopped " + worker);
        NscCommand.Result stopped = process.command().run(1, "status");
        assertThat(stopped.output()).containsPattern("(?m)^%s +- .* stopped$".formatted(worker));

        NscCommand.Result start = process.command().run(5, "start");
        assertThat(start.exitCode()).as(start.output()).isZero();
        assertThat(start.output()).contains("started " + worker);
        // ./nsc start returns only once the coordinator schedules on every worker again
        try (Connection connection = cluster.connect("nsc")) {
            assertThat(Jdbc.rows(connection, "SELECT node_id FROM system.runtime.nodes WHERE NOT coordinator AND state = 'active' ORDER BY 1"))
                    .containsExactlyElementsOf(process.trinoWorkers().stream().map(List::<Object>of).toList());
        }
    }

    @Test
    void testLoadRefusesANonParquetFileAndNamesIt(NscCluster cluster)
            throws IOException
    {
        ProcessCluster process = processCluster(cluster);
        Path notParquet = Files.createTempFile("not-parquet", ".parquet");
        try {
            Files.writeString(notParquet, "hello, not a parquet file\n");
            NscCommand.Result load = process.command().run(5, "load", "demo.bad", notParquet.toString());
            assertThat(load.exitCode()).isNotZero();
            assertThat(load.output()).contains(notParquet.getFileName().toString()).contains("nothing was loaded");
            NscCommand.Result sql = process.command().run(2, "sql", "SHOW SCHEMAS FROM nsc");
            assertThat(sql.exitCode()).as(sql.output()).isZero();
            assertThat(sql.output()).contains("tpch").doesNotContain("demo");
        }
        finally {
            Files.delete(notParquet);
        }
    }

    private static ProcessCluster processCluster(NscCluster cluster)
    {
        assumeTrue(cluster instanceof ProcessCluster, "tests ./nsc itself, which only the process cluster runs");
        return (ProcessCluster) cluster;
    }
}
