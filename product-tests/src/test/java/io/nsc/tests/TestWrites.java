package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Writes through SQL over JDBC: CTAS, INSERT and DROP round trips with every writable type, clear
 * errors for bad input, and a cancelled write that leaves nothing behind.
 */
@ExtendWith(NscClusterExtension.class)
final class TestWrites
{
    private static final String COLUMNS = "c_boolean, c_tinyint, c_smallint, c_integer, c_bigint, c_real, c_double, c_decimal_short, c_decimal_long, "
            + "c_varchar, c_char, c_varbinary, c_date, c_time, c_timestamp_ms, c_timestamp_us, c_timestamp_ns, c_timestamptz_ms, c_timestamptz_us, c_uuid";
    private static final String ROWS = """
            VALUES
              (true, TINYINT '-128', SMALLINT '32767', -2147483648, BIGINT '9223372036854775807', REAL '1.5', DOUBLE '-0.25',
               DECIMAL '12345.67', CAST('-12345678901234567890123.4567' AS decimal(30, 4)), 'héllo 🙂', CAST('ab' AS char(3)), X'00ff10',
               DATE '1970-01-01', TIME '23:59:59.999999', TIMESTAMP '2024-02-29 12:34:56.789', TIMESTAMP '1969-12-31 23:59:59.999999',
               TIMESTAMP '2262-04-11 23:47:16.854775000', TIMESTAMP '2024-02-29 12:34:56.789 UTC', TIMESTAMP '1900-01-01 00:00:00.000001 UTC',
               UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59'),
              (false, TINYINT '0', SMALLINT '0', 0, BIGINT '0', REAL '-0.0', DOUBLE 'Infinity',
               DECIMAL '0.00', CAST('0' AS decimal(30, 4)), '', CAST('' AS char(3)), X'',
               DATE '9999-12-31', TIME '00:00:00.000000', TIMESTAMP '0001-01-01 00:00:00.000', TIMESTAMP '2000-01-01 00:00:00.000001',
               TIMESTAMP '1677-09-21 00:12:43.145225001', TIMESTAMP '1970-01-01 00:00:00.000 UTC', TIMESTAMP '2020-06-01 12:00:00.123456 UTC',
               UUID '00000000-0000-0000-0000-000000000000'),
              (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
            """;

    @Test
    void testCtasInsertDropRoundTripWithEveryType(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_writes");
            statement.execute("CREATE TABLE nsc.product_writes.all_types WITH (replication = 2) AS SELECT * FROM (%s) t(%s)".formatted(ROWS, COLUMNS));
            Jdbc.assertSameRows(connection, "nsc.product_writes.all_types", "(%s) t(%s)".formatted(ROWS, COLUMNS), 3);

            statement.execute("INSERT INTO nsc.product_writes.all_types SELECT * FROM (%s) t(%s)".formatted(ROWS, COLUMNS));
            assertThat(Jdbc.rows(connection, "SELECT count(*), count(c_uuid) FROM nsc.product_writes.all_types")).containsExactly(List.of(6L, 4L));
            Jdbc.assertSameRows(connection, "(SELECT DISTINCT * FROM nsc.product_writes.all_types)", "(%s) t(%s)".formatted(ROWS, COLUMNS), 3);

            String showCreate = (String) Jdbc.rows(connection, "SHOW CREATE TABLE nsc.product_writes.all_types").getFirst().getFirst();
            assertThat(showCreate).contains("c_char char(3)", "c_timestamp_ns timestamp(9)", "replication = 2");

            statement.execute("DROP TABLE nsc.product_writes.all_types");
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM nsc.product_writes")).isEmpty();
            statement.execute("DROP SCHEMA nsc.product_writes");
            assertThat(Jdbc.rows(connection, "SHOW SCHEMAS FROM nsc")).doesNotContain(List.of("product_writes"));
        }
    }

    @Test
    void testCtasFromTpchMatchesTheSource(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_ctas");
            statement.execute("CREATE TABLE nsc.product_ctas.orders WITH (sorted_by = ARRAY['o_orderdate'], row_group_size = '1000') AS SELECT * FROM tpch.tiny.orders");
            Jdbc.assertSameRows(connection, "nsc.product_ctas.orders", "tpch.tiny.orders", 15000);
            String query = "SELECT o_orderpriority, count(*), sum(o_totalprice) FROM %s WHERE o_orderdate BETWEEN DATE '1995-03-01' AND DATE '1995-03-31' GROUP BY 1 ORDER BY 1";
            assertThat(Jdbc.sameRows(Jdbc.rows(connection, query.formatted("nsc.product_ctas.orders")), Jdbc.rows(connection, query.formatted("tpch.tiny.orders")))).isTrue();
            statement.execute("DROP TABLE nsc.product_ctas.orders");
            statement.execute("DROP SCHEMA nsc.product_ctas");
        }
    }

    @Test
    void testTimeTravelRecoversDeletedRows(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_travel");
            statement.execute("CREATE TABLE nsc.product_travel.orders WITH (version_retention = '1d') AS SELECT * FROM tpch.tiny.orders");
            String created = (String) Jdbc.rows(connection, "SELECT CAST(committed_at AS varchar) FROM nsc.product_travel.\"orders$history\" WHERE version = 1").getFirst().getFirst();
            statement.execute("DELETE FROM nsc.product_travel.orders WHERE o_orderpriority = '1-URGENT'");
            assertThat(Jdbc.rows(connection, "SELECT count(*) FROM nsc.product_travel.orders WHERE o_orderpriority = '1-URGENT'")).containsExactly(List.of(0L));

            // the version before the DELETE, by number and by time, is the table as it was
            Jdbc.assertSameRows(connection, "(SELECT * FROM nsc.product_travel.orders FOR VERSION AS OF 1)", "tpch.tiny.orders", 15000);
            Jdbc.assertSameRows(connection, "(SELECT * FROM nsc.product_travel.orders FOR TIMESTAMP AS OF TIMESTAMP '%s')".formatted(created), "tpch.tiny.orders", 15000);
            assertThat(Jdbc.rows(connection, "SELECT version, operation, row_count, is_current FROM nsc.product_travel.\"orders$history\" ORDER BY version"))
                    .containsExactly(List.of(1L, "CREATE TABLE AS", 15000L, false), List.of(2L, "DELETE", 15000L - urgentOrders(connection), true));

            // and what the DELETE took goes back in
            statement.execute("INSERT INTO nsc.product_travel.orders SELECT * FROM nsc.product_travel.orders FOR VERSION AS OF 1 WHERE o_orderpriority = '1-URGENT'");
            Jdbc.assertSameRows(connection, "nsc.product_travel.orders", "tpch.tiny.orders", 15000);

            assertThatThrownBy(() -> Jdbc.rows(connection, "SELECT * FROM nsc.product_travel.orders FOR VERSION AS OF 99"))
                    .hasMessageContaining("Table product_travel.orders is at version 3: version 99 does not exist");
            // back to the cluster's retention, which a dropped table keeps: a day would keep its
            // files on the storage nodes that long, and TestDurability's drain waits for them
            statement.execute("ALTER TABLE nsc.product_travel.orders SET PROPERTIES version_retention = DEFAULT");
            assertThat((String) Jdbc.rows(connection, "SHOW CREATE TABLE nsc.product_travel.orders").getFirst().getFirst()).doesNotContain("version_retention");
            statement.execute("DROP TABLE nsc.product_travel.orders");
            statement.execute("DROP SCHEMA nsc.product_travel");
        }
    }

    private static long urgentOrders(Connection connection)
            throws SQLException
    {
        return (long) Jdbc.rows(connection, "SELECT count(*) FROM tpch.tiny.orders WHERE o_orderpriority = '1-URGENT'").getFirst().getFirst();
    }

    @Test
    void testBadInputGetsClearErrors(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_errors");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE nsc.product_errors.t (a bigint) WITH (no_such_property = 1)"))
                    .hasMessageContaining("table property 'no_such_property' does not exist");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE nsc.product_errors.t (m map(varchar, bigint))"))
                    .hasMessageContaining("Unsupported column type: map(varchar, bigint)");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE nsc.product_errors.t (a bigint) WITH (replication = 7)"))
                    .hasMessageContaining("replication 7 needs 7 live storage nodes, but only 3 are live");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE nsc.no_such_schema.t AS SELECT 1 AS a"))
                    .hasMessageContaining("Schema no_such_schema not found");
            assertThatThrownBy(() -> statement.execute("CREATE TABLE nsc.product_errors.t (a bigint) WITH (row_group_size = 'lots')"))
                    .hasMessageContaining("Invalid row_group_size 'lots'");
            // nothing of the refused statements is left behind
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM nsc.product_errors")).isEmpty();
            statement.execute("DROP SCHEMA nsc.product_errors");
        }
    }

    @Test
    void testCancelledWriteLeavesNothingBehind(NscCluster cluster)
            throws Exception
    {
        long baseline = awaitSteadyFileCount(cluster);
        long uploadedBefore = sum(cluster, "bytes_uploaded");
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_cancel");
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    statement.execute("CREATE TABLE nsc.product_cancel.big AS SELECT * FROM tpch.sf1.lineitem");
                }
                catch (SQLException e) {
                    throw new RuntimeException(e);
                }
            });
            // cancel only once the write has stored whole files on storage nodes
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (sum(cluster, "file_count") <= baseline && !write.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(write).as("the write must still run when files have been uploaded").isNotDone();
            assertThat(sum(cluster, "bytes_uploaded")).isGreaterThan(uploadedBefore);
            statement.cancel();
            // the JDBC driver reports a cancelled query as a failed fetch
            assertThatThrownBy(write::join).cause().cause().isInstanceOf(SQLException.class);

            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM nsc.product_cancel")).isEmpty();
            statement.execute("DROP SCHEMA nsc.product_cancel");
        }
        // the uploaded files are never committed: once their allocations expire, the nodes reclaim them
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (sum(cluster, "file_count") != baseline && System.nanoTime() < deadline) {
            Thread.sleep(500);
        }
        assertThat(sum(cluster, "file_count")).as("files on storage nodes after the orphan timeout").isEqualTo(baseline);
        assertThat(sum(cluster, "files_deleted")).isPositive();
        assertThat(sum(cluster, "cluster_id_mismatch")).isZero();
    }

    /**
     * The files on all storage nodes once no reclaim is pending: the count holds still for longer
     * than an orphan check takes to delete what earlier tests dropped.
     */
    private static long awaitSteadyFileCount(NscCluster cluster)
            throws InterruptedException
    {
        long count = sum(cluster, "file_count");
        long stableSince = System.nanoTime();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (System.nanoTime() - stableSince < Duration.ofSeconds(15).toNanos()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the storage nodes' file count never settled");
            }
            Thread.sleep(1000);
            long now = sum(cluster, "file_count");
            if (now != count) {
                count = now;
                stableSince = System.nanoTime();
            }
        }
        return count;
    }

    private static long sum(NscCluster cluster, String metric)
    {
        return cluster.storageNodeIds().stream()
                .mapToLong(node -> cluster.metrics(node).getOrDefault(metric, 0L))
                .sum();
    }
}
