package io.nsc.trino;

import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.NscMetadata;
import io.nsc.trino.metadata.NscMetadataFactory;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFilesCache;
import io.trino.Session;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.testing.TestingConnectorSession.SESSION;
import static io.trino.type.InternalTypeManager.TESTING_TYPE_MANAGER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * A query reads the table version it planned, whatever commits while it runs: an INSERT (or a
 * DROP TABLE) committed while a scan lists its files, between two of its batches, is not seen by
 * that scan and is seen by the next query. The scan lists one file per batch from the metadata
 * service (no cache), and a {@link FileListingHook} commits at an exact batch: nothing depends on
 * timing.
 */
// one hook for the query runner: one pending action at a time
@Execution(SAME_THREAD)
final class TestNscSnapshotReads
        extends AbstractTestQueryFramework
{
    private static final int INSERTS = 4;
    private static final int ROWS_PER_INSERT = 10;
    // k = 0 .. 39
    private static final long ROWS = INSERTS * ROWS_PER_INSERT;
    private static final long SUM = ROWS * (ROWS - 1) / 2;

    private final FileListingHook hook = new FileListingHook();
    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.create(cluster, hook.plugin(), Map.of(
                // one file per batch, every batch a page of the metadata service's
                "nsc.table-files-batch-size", "1",
                "nsc.table-files-cache-ttl", "0s"), Map.of());
    }

    @Test
    void testInsertCommittedBetweenBatchesIsSeenByTheNextQueryOnly()
    {
        SchemaTableName table = createTableOfFourFiles("between_batches");
        FileListingHook.PendingAction insert = hook.beforeBatch(table, 2, () -> {
            assertUpdate("INSERT INTO %s VALUES 1000, 1001".formatted(name(table)), 2);
            // a query that starts now, while the first scan is still listing, plans the new version
            assertThat(countAndSum(table)).containsExactly(ROWS + 2, SUM + 2001);
        });

        assertThat(countAndSum(table)).containsExactly(ROWS, SUM);
        assertThat(insert.ran()).isTrue();
        assertThat(countAndSum(table)).containsExactly(ROWS + 2, SUM + 2001);
    }

    @Test
    void testInsertCommittedAfterPlanningIsNotSeenByTheScan()
    {
        SchemaTableName table = createTableOfFourFiles("after_planning");
        // planned (the version pinned), the scan not yet listing
        FileListingHook.PendingAction insert = hook.beforeBatch(table, 0, () -> assertUpdate("INSERT INTO %s VALUES 1000".formatted(name(table)), 1));

        // every row read by the workers, not answered from statistics
        assertThat(computeActual(rawSession(), "SELECT k FROM " + name(table)).getOnlyColumnAsSet())
                .hasSize((int) ROWS)
                .doesNotContain(1000L);
        assertThat(insert.ran()).isTrue();
        assertThat(computeActual(rawSession(), "SELECT k FROM " + name(table)).getOnlyColumnAsSet())
                .hasSize((int) ROWS + 1)
                .contains(1000L);
    }

    @Test
    void testTableDroppedDuringAScanIsReadToTheEnd()
    {
        SchemaTableName table = createTableOfFourFiles("dropped");
        FileListingHook.PendingAction drop = hook.beforeBatch(table, 1, () -> assertUpdate("DROP TABLE " + name(table)));

        // the metadata service keeps the dropped table's version (and its files on the storage nodes) for its retention
        assertThat(countAndSum(table)).containsExactly(ROWS, SUM);
        assertThat(drop.ran()).isTrue();
        assertQueryFails("SELECT count(*) FROM " + name(table), ".*Table '%s' does not exist".formatted(name(table)));
    }

    @Test
    void testEveryReferenceOfATransactionGetsTheVersionItFirstPlanned()
    {
        SchemaTableName table = createTableOfFourFiles("one_version");
        NscConfig config = new NscConfig().setMetadataAddress(cluster.metadataAddress());
        NscMetadataClient client = new NscMetadataClient(config, cluster.clientSecurity());
        try {
            NscMetadataFactory metadataFactory = new NscMetadataFactory(client, TESTING_TYPE_MANAGER, new TableFilesCache(client, config), config, new CatalogName("nsc"));
            NscMetadata transaction = metadataFactory.create();
            NscTableHandle first = tableHandle(transaction, table);
            assertUpdate("INSERT INTO %s VALUES 1000".formatted(name(table)), 1);

            // a second reference in the same transaction (a self-join, a subquery) reads the same version
            assertThat(tableHandle(transaction, table).version()).isEqualTo(first.version());
            assertThat(tableHandle(metadataFactory.create(), table).version()).isEqualTo(first.version() + 1);
        }
        finally {
            client.close();
        }
    }

    @Test
    void testSelfJoinReadsOneVersion()
    {
        SchemaTableName table = createTableOfFourFiles("self_join");
        // the probe side's scan lists after the INSERT: it still reads the version both sides planned
        FileListingHook.PendingAction insert = hook.beforeBatch(table, 1, () -> assertUpdate("INSERT INTO %s VALUES 1000".formatted(name(table)), 1));

        assertThat(computeActual("SELECT count(*) FROM %1$s a JOIN %1$s b ON a.k = b.k".formatted(name(table))).getOnlyValue()).isEqualTo(ROWS);
        assertThat(insert.ran()).isTrue();
        assertThat(computeActual("SELECT count(*) FROM %1$s a JOIN %1$s b ON a.k = b.k".formatted(name(table))).getOnlyValue()).isEqualTo(ROWS + 1);
    }

    /** A table of {@value INSERTS} files, one per INSERT, whose k runs from 0 up. */
    private SchemaTableName createTableOfFourFiles(String tableName)
    {
        SchemaTableName table = new SchemaTableName("snap", tableName);
        assertUpdate("CREATE SCHEMA IF NOT EXISTS nsc.snap");
        assertUpdate("CREATE TABLE %s (k bigint)".formatted(name(table)));
        for (int insert = 0; insert < INSERTS; insert++) {
            long first = (long) insert * ROWS_PER_INSERT;
            assertUpdate("INSERT INTO %s SELECT x FROM UNNEST(sequence(%s, %s)) t(x)".formatted(name(table), first, first + ROWS_PER_INSERT - 1), ROWS_PER_INSERT);
        }
        assertThat(hook.isPending()).isFalse();
        return table;
    }

    private List<Object> countAndSum(SchemaTableName table)
    {
        return computeActual("SELECT count(*), sum(k) FROM " + name(table)).getMaterializedRows().getFirst().getFields();
    }

    private Session rawSession()
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, PushdownMode.RAW.name()).build();
    }

    private static NscTableHandle tableHandle(NscMetadata metadata, SchemaTableName table)
    {
        return (NscTableHandle) metadata.getTableHandle(SESSION, table, Optional.empty(), Optional.empty());
    }

    private static String name(SchemaTableName table)
    {
        return "nsc." + table;
    }
}
