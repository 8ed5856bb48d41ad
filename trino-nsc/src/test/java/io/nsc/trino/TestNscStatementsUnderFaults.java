package io.nsc.trino;

import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements that rewrite files (UPDATE, DELETE, MERGE, optimize, REFRESH MATERIALIZED VIEW)
 * when a component dies in the middle of one: the metadata service restarted while the statement
 * lists the files it rewrites, or a storage node stopped there (and still counted live, as a node
 * that died moments ago is). Each either commits all of its change or fails and leaves the table
 * as it was; run again, it gives the table a twin got from the same statement without a fault. A
 * {@link FileListingHook} stops the statement at an exact point of its listing, so nothing depends
 * on timing.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class TestNscStatementsUnderFaults
        extends AbstractTestQueryFramework
{
    private static final String SCHEMA = "faults";
    // exact and independent of row order
    private static final String CHECK = "SELECT count(*), checksum(o_orderkey), checksum(o_custkey), checksum(o_totalprice), checksum(o_comment) FROM %s";
    private static final String UPDATE = "UPDATE %s SET o_totalprice = o_totalprice + 1, o_comment = 'updated' WHERE mod(o_custkey, 7) = 0";
    private static final String DELETE = "DELETE FROM %s WHERE mod(o_custkey, 5) = 0";
    private static final String MERGE = """
            MERGE INTO %s t USING (SELECT o_orderkey AS k FROM tpch.tiny.orders WHERE mod(o_orderkey, 3) = 0) s ON t.o_orderkey = s.k
            WHEN MATCHED AND mod(t.o_custkey, 2) = 0 THEN DELETE
            WHEN MATCHED THEN UPDATE SET o_comment = 'merged'""";
    private static final String OPTIMIZE = "ALTER TABLE %s EXECUTE optimize(file_size_threshold => '100MB')";

    private final FileListingHook hook = new FileListingHook();
    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        // a stopped storage node stays live to the metadata service: placements keep choosing it
        cluster = closeAfterClass(TestingNscCluster.start(3, Map.of("metadata.node-timeout", "1h")));
        // one file per batch of a listing, read from the service each time: the hook stops a statement between files
        return NscQueryRunner.create(cluster, hook.plugin(), Map.of(
                "nsc.table-files-batch-size", "1",
                "nsc.table-files-cache-ttl", "0s"), Map.of());
    }

    @Test
    @Order(1)
    void testRowRewritesWhileTheMetadataServiceRestarts()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
        assertWholeOrNothing("restart_update", UPDATE, this::restartMetadataService);
        assertWholeOrNothing("restart_delete", DELETE, this::restartMetadataService);
        assertWholeOrNothing("restart_merge", MERGE, this::restartMetadataService);
    }

    @Test
    @Order(2)
    void testOptimizeWhileTheMetadataServiceRestarts()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
        assertWholeOrNothing("restart_optimize", OPTIMIZE, this::restartMetadataService);
        assertThat(lastOperation("restart_optimize")).isEqualTo("OPTIMIZE");
    }

    @Test
    @Order(3)
    void testRefreshWhileTheMetadataServiceRestarts()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
        createOrders("nsc.faults.refresh_base");
        assertUpdate("CREATE MATERIALIZED VIEW nsc.faults.refresh_mv AS SELECT o_custkey, count(*) AS orders, sum(o_orderkey) AS total FROM nsc.faults.refresh_base GROUP BY o_custkey");
        String view = "SELECT count(*), checksum(o_custkey), checksum(orders), checksum(total) FROM nsc.faults.refresh_mv";
        String query = "SELECT count(*), checksum(o_custkey), checksum(orders), checksum(total) FROM (SELECT o_custkey, count(*) AS orders, sum(o_orderkey) AS total FROM nsc.faults.refresh_base GROUP BY o_custkey)";

        FileListingHook.PendingAction restart = hook.beforeBatch(new SchemaTableName(SCHEMA, "refresh_base"), 1, this::restartMetadataService);
        Optional<RuntimeException> failure = run("REFRESH MATERIALIZED VIEW nsc.faults.refresh_mv");
        assertThat(restart.ran()).isTrue();
        if (failure.isPresent()) {
            // never refreshed: still stale, and nothing half-written is read as the view's rows
            assertThat(freshness("refresh_mv")).isEqualTo("STALE");
            run("REFRESH MATERIALIZED VIEW nsc.faults.refresh_mv").ifPresent(e -> {
                throw e;
            });
        }
        assertThat(freshness("refresh_mv")).isEqualTo("FRESH");
        assertThat(query(view)).matches(query);
    }

    @Test
    @Order(4)
    void testRewritesWhileAStorageNodeDies()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
        // the node stops in the middle of the UPDATE; the statements after it place files on it
        // (the service still counts it live) and read replicas it held
        assertWholeOrNothing("dead_update", UPDATE, () -> cluster.stopStorageNode("storage-3"));
        assertWholeOrNothing("dead_merge", MERGE, () -> {});
        assertWholeOrNothing("dead_optimize", OPTIMIZE, () -> {});
        assertThat(lastOperation("dead_optimize")).isEqualTo("OPTIMIZE");
    }

    /**
     * Creates the table and its twin, applies the statement to the twin, then to the table with
     * {@code fault} run when the statement is about to list the table's second file: all of the
     * change or none of it, and the table equals its twin once the statement has run whole.
     */
    private void assertWholeOrNothing(String name, String statement, Runnable fault)
    {
        String table = "nsc.%s.%s".formatted(SCHEMA, name);
        String twin = table + "_twin";
        createOrders(table);
        createOrders(twin);
        run(statement.formatted(twin)).ifPresent(e -> {
            throw e;
        });
        MaterializedResult before = computeActual(CHECK.formatted(table));
        long versionBefore = latestVersion(name);

        FileListingHook.PendingAction action = hook.beforeBatch(new SchemaTableName(SCHEMA, name), 1, fault);
        Optional<RuntimeException> failure = run(statement.formatted(table));
        assertThat(action.ran()).as("the fault happened during %s", name).isTrue();
        if (failure.isPresent()) {
            assertThat(computeActual(CHECK.formatted(table))).as("%s failed (%s) and changed nothing", name, failure.get().getMessage()).isEqualTo(before);
            assertThat(latestVersion(name)).as("%s failed and committed no version", name).isEqualTo(versionBefore);
            run(statement.formatted(table)).ifPresent(e -> {
                throw e;
            });
        }
        assertThat(query(CHECK.formatted(table))).as(name).matches(CHECK.formatted(twin));
    }

    /**
     * A quarter of the orders in four files, one per INSERT, so that a listing of one file per
     * batch has batches to stop between (few rows: the statements' cost is their commits).
     */
    private void createOrders(String table)
    {
        assertUpdate("CREATE TABLE %s AS SELECT o_orderkey, o_custkey, o_totalprice, o_comment FROM tpch.tiny.orders WITH NO DATA".formatted(table), 0);
        for (List<Integer> range : List.of(List.of(0, 4_000), List.of(4_000, 8_000), List.of(8_000, 12_000), List.of(12_000, 16_000))) {
            getQueryRunner().execute("INSERT INTO %s SELECT o_orderkey, o_custkey, o_totalprice, o_comment FROM tpch.tiny.orders WHERE o_orderkey >= %s AND o_orderkey < %s"
                    .formatted(table, range.get(0), range.get(1)));
        }
    }

    private void restartMetadataService()
    {
        cluster.restartMetadataService();
    }

    private Optional<RuntimeException> run(String sql)
    {
        try {
            getQueryRunner().execute(sql);
            return Optional.empty();
        }
        catch (RuntimeException e) {
            return Optional.of(e);
        }
    }

    private long latestVersion(String table)
    {
        return (long) computeScalar("SELECT max(version) FROM nsc.%s.\"%s$history\"".formatted(SCHEMA, table));
    }

    private String lastOperation(String table)
    {
        return (String) computeScalar("SELECT operation FROM nsc.%s.\"%s$history\" ORDER BY version DESC LIMIT 1".formatted(SCHEMA, table));
    }

    private String freshness(String view)
    {
        return (String) computeScalar("SELECT freshness FROM system.metadata.materialized_views WHERE catalog_name = 'nsc' AND schema_name = '%s' AND name = '%s'".formatted(SCHEMA, view));
    }
}
