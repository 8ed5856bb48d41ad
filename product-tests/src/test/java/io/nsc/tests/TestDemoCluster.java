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
        NscCommand.Result again = process.command().run(5, "demo", "--scale", "0.01", "--trino-port", String.valueOf(process.trinoPort()), "--secure");
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(again.output()).contains("already running");
        NscCommand.Result status = process.command().run(1, "status");
        assertThat(status.exitCode()).as(status.output()).isZero();
        assertThat(status.output().lines().filter(line -> line.endsWith(" healthy"))).hasSize(5);
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
