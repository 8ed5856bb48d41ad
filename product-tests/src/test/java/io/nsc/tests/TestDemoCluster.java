package io.nsc.tests;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The local cluster as a user runs it: {@code ./nsc demo} at a small scale starts the services
 * and a real Trino 476 server, which then answers SQL over JDBC; {@code ./nsc stop} ends it.
 */
@TestInstance(PER_CLASS)
final class TestDemoCluster
{
    private NscCommand nsc;
    private Path var;
    private int trinoPort;
    private String demoOutput;

    @BeforeAll
    void startDemo()
            throws IOException
    {
        var = Files.createTempDirectory("nsc-demo-test");
        trinoPort = freePort();
        nsc = new NscCommand(NscCommand.repositoryRoot(), Map.of(
                "NSC_VAR", var.toString(),
                "NSC_PORT_BASE", "27070",
                // the enclosing Maven build has just built everything
                "NSC_SKIP_BUILD", "1"));
        NscCommand.Result demo = nsc.run(20, "demo", "--scale", "0.01", "--trino-port", String.valueOf(trinoPort));
        demoOutput = demo.output();
        assertThat(demo.exitCode()).as(demo.output()).isZero();
    }

    @AfterAll
    void stopDemo()
            throws IOException
    {
        if (nsc == null) {
            return;
        }
        NscCommand.Result stop = nsc.run(5, "stop");
        assertThat(stop.exitCode()).as(stop.output()).isZero();
        NscCommand.Result status = nsc.run(1, "status");
        assertThat(status.exitCode()).as("status after stop: " + status.output()).isNotZero();
        assertThat(status.output()).doesNotContain("healthy");
        deleteRecursively(var);
    }

    private static void deleteRecursively(Path directory)
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    @Test
    void testDemoPrintsHowToConnect()
    {
        assertThat(demoOutput).contains("jdbc:trino://localhost:%s/nsc".formatted(trinoPort), "./nsc cli");
    }

    @Test
    void testQueriesOverJdbcMatchTheTpchCatalog()
            throws SQLException
    {
        try (Connection connection = DriverManager.getConnection("jdbc:trino://localhost:%s/nsc".formatted(trinoPort), "product-test", null);
                Statement statement = connection.createStatement()) {
            assertThat(rows(statement, "SHOW SCHEMAS FROM nsc")).contains(List.of("tpch"));
            assertThat(rows(statement, "SHOW TABLES FROM nsc.tpch")).hasSize(8);
            String query = "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity) FROM %s.lineitem "
                    + "WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25' GROUP BY 1, 2 ORDER BY 1, 2";
            List<List<Object>> nsc = rows(statement, query.formatted("nsc.tpch"));
            assertThat(nsc).isNotEmpty().isEqualTo(rows(statement, query.formatted("tpch.tiny")));
            assertThat(rows(statement, "SELECT count(*) FROM tpch.lineitem")).containsExactly(List.of(60175L));
        }
    }

    @Test
    void testDemoAgainChangesNothing()
    {
        NscCommand.Result again = nsc.run(5, "demo", "--scale", "0.01", "--trino-port", String.valueOf(trinoPort));
        assertThat(again.exitCode()).as(again.output()).isZero();
        assertThat(again.output()).contains("already running");
        NscCommand.Result status = nsc.run(1, "status");
        assertThat(status.exitCode()).as(status.output()).isZero();
        assertThat(status.output().lines().filter(line -> line.endsWith("healthy") && !line.endsWith("unhealthy"))).hasSize(5);
    }

    @Test
    void testLoadRefusesANonParquetFileAndNamesIt()
            throws IOException
    {
        Path notParquet = Files.createTempFile("not-parquet", ".parquet");
        Files.writeString(notParquet, "hello, not a parquet file\n");
        NscCommand.Result load = nsc.run(5, "load", "demo.bad", notParquet.toString());
        assertThat(load.exitCode()).isNotZero();
        assertThat(load.output()).contains(notParquet.getFileName().toString()).contains("nothing was loaded");
        NscCommand.Result sql = nsc.run(2, "sql", "SHOW SCHEMAS FROM nsc");
        assertThat(sql.exitCode()).as(sql.output()).isZero();
        assertThat(sql.output()).contains("tpch").doesNotContain("demo");
    }

    private static List<List<Object>> rows(Statement statement, String sql)
            throws SQLException
    {
        List<List<Object>> rows = new ArrayList<>();
        try (ResultSet resultSet = statement.executeQuery(sql)) {
            int columns = resultSet.getMetaData().getColumnCount();
            while (resultSet.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns; column++) {
                    row.add(resultSet.getObject(column));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
