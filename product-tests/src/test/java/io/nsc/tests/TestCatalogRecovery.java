package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import io.nsc.tests.cluster.ProcessCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The catalog keeps what it acknowledged: through SIGKILLs of the metadata service right after
 * commits, and through the loss of its database, restored from {@code ./nsc backup}. Each test
 * leaves the cluster whole for the tests after it.
 */
@ExtendWith(NscClusterExtension.class)
final class TestCatalogRecovery
{
    // each kill and restart takes about 11 s on the 2-core CI machine: the build kills 4 times,
    // -Dnsc.recovery.kills=10 as many times as this suite did before
    private static final int KILLS = Integer.getInteger("nsc.recovery.kills", 4);
    private static final String ROWS = "SELECT count(*), sum(n_nationkey), sum(n_regionkey), max(n_name) FROM %s";

    @Test
    void testEveryAcknowledgedTableSurvivesSigkill(NscCluster cluster)
            throws Exception
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_durability");
        }
        List<List<Object>> expected;
        try (Connection connection = cluster.connect("nsc")) {
            expected = Jdbc.rows(connection, ROWS.formatted("tpch.tiny.nation"));
        }
        for (int i = 0; i < KILLS; i++) {
            try (Connection connection = cluster.connect("nsc");
                    Statement statement = connection.createStatement()) {
                // execute returns once Trino finished the CTAS, which it does only after the metadata service acknowledged the commit
                statement.execute("CREATE TABLE nsc.product_durability.t%s AS SELECT * FROM tpch.tiny.nation".formatted(i));
            }
            cluster.kill("metadata");
            restartMetadata(cluster);
            try (Connection connection = cluster.connect("nsc")) {
                // every table acknowledged so far, not just the last one, with all its rows
                for (int table = 0; table <= i; table++) {
                    assertThat(Jdbc.rows(connection, ROWS.formatted("nsc.product_durability.t" + table)))
                            .as("table t%s after SIGKILL %s", table, i + 1)
                            .isEqualTo(expected);
                }
            }
        }
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            for (int i = 0; i < KILLS; i++) {
                statement.execute("DROP TABLE nsc.product_durability.t" + i);
            }
            statement.execute("DROP SCHEMA nsc.product_durability");
        }
    }

    @Test
    void testCatalogRestoredFromBackupAfterItsLoss(NscCluster nscCluster)
            throws Exception
    {
        // ./nsc backup and ./nsc restore work on the process cluster's state directory
        assumeTrue(nscCluster instanceof ProcessCluster, "./nsc backup and restore manage the process cluster");
        ProcessCluster cluster = (ProcessCluster) nscCluster;
        NscCommand nsc = cluster.command();
        Path backups = Files.createTempDirectory("nsc-catalog-backups");
        Path backup = backups.resolve("catalog.backup");

        List<List<Object>> expected;
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc.product_backup");
            statement.execute("CREATE TABLE nsc.product_backup.kept AS SELECT * FROM tpch.tiny.nation");
            expected = Jdbc.rows(connection, ROWS.formatted("tpch.tiny.nation"));
        }

        NscCommand.Result backedUp = nsc.run(5, "backup", backup.toString());
        assertThat(backedUp.exitCode()).as(backedUp.output()).isZero();
        assertThat(backedUp.output()).containsPattern("nsc backup: catalog of cluster [0-9a-f-]{36} \\(schema version \\d+, [\\d,]+ database bytes\\) written to " + backup);
        // a backup never overwrites a file
        NscCommand.Result again = nsc.run(5, "backup", backup.toString());
        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.output()).contains("exists; a backup never overwrites a file");

        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE nsc.product_backup.later AS SELECT * FROM tpch.tiny.region");
        }
        // never under a running service
        NscCommand.Result refused = nsc.run(5, "restore", backup.toString());
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.output()).contains("the metadata service is running: stop it with ./nsc stop metadata");

        // the catalog is lost: its database file is gone
        NscCommand.Result stopped = nsc.run(5, "stop", "metadata");
        assertThat(stopped.exitCode()).as(stopped.output()).isZero();
        Path database = cluster.metadataDirectory().resolve("data/metadata.mv.db");
        Files.delete(database);

        NscCommand.Result restored = nsc.run(5, "restore", backup.toString());
        assertThat(restored.exitCode()).as(restored.output()).isZero();
        assertThat(restored.output()).contains("restore-catalog: restored the catalog of cluster");
        assertThat(database).exists();
        restartMetadata(cluster);

        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            // the catalog as the backup saw it: the table from before, not the one from after
            assertThat(Jdbc.rows(connection, ROWS.formatted("nsc.product_backup.kept"))).isEqualTo(expected);
            assertThat(Jdbc.rows(connection, "SHOW TABLES FROM nsc.product_backup")).containsExactly(List.of("kept"));
            assertThat(Jdbc.rows(connection, "SELECT count(*) FROM nsc.tpch.lineitem")).isEqualTo(Jdbc.rows(connection, "SELECT count(*) FROM tpch.tiny.lineitem"));
            statement.execute("DROP TABLE nsc.product_backup.kept");
            statement.execute("DROP SCHEMA nsc.product_backup");
        }
        // the restored service answers the cluster id the storage nodes registered with, so they keep reclaiming
        for (String node : cluster.storageNodeIds()) {
            assertThat(cluster.metrics(node)).containsEntry("cluster_id_mismatch", 0L);
        }
        Files.delete(backup);
        Files.delete(backups);
    }

    private static void restartMetadata(NscCluster cluster)
            throws Exception
    {
        if (cluster instanceof ProcessCluster processCluster) {
            // what the README tells operators; startStopped (./nsc demo) also re-checks the TPC-H load, for half a minute
            NscCommand.Result started = processCluster.command().run(5, "start", "metadata");
            assertThat(started.exitCode()).as(started.output()).isZero();
        }
        else {
            cluster.startStopped();
        }
        awaitMetadataReachable(cluster);
    }

    /**
     * Waits until the restarted service has heard from every storage node (after a restart nodes
     * are known but get no files until their next heartbeat) and Trino reaches it again: its gRPC
     * channel reconnects after a backoff of a few seconds, and calls in between fail as
     * UNAVAILABLE. Only that failure is waited out; any other answer fails the test at once.
     */
    private static void awaitMetadataReachable(NscCluster cluster)
            throws Exception
    {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (cluster.metrics("metadata").getOrDefault("live_nodes", 0L) < cluster.storageNodeIds().size()) {
            assertThat(System.nanoTime()).as("every storage node live within a minute of the restart").isLessThan(deadline);
            Thread.sleep(200);
        }
        while (true) {
            try (Connection connection = cluster.connect("nsc")) {
                Jdbc.rows(connection, "SHOW SCHEMAS FROM nsc");
                return;
            }
            catch (SQLException e) {
                if (!String.valueOf(e.getMessage()).contains("UNAVAILABLE") || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }
}
