package io.nsc.trino;

import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.Map;

import static io.nsc.trino.split.RowGroupPlanner.FILES_HELD_PEAK;
import static io.nsc.trino.split.RowGroupPlanner.FILES_LISTED;
import static io.nsc.trino.split.RowGroupPlanner.FILE_BATCHES;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_ANSWERED_FROM_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_FULLY_MATCHING;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_TOP_N;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * A table of many files (one per INSERT) planned by two catalogs over the same cluster: {@code nsc}
 * with the default batch of 1000 files and a cache, {@code nsc_batched} reading three files at a
 * time with a cache too small for the table. Every query answers the same, with the same pruning
 * counts; the batched catalog reads the table in batches and holds one, plus what its listing
 * keeps for the cache within the cache's bounds.
 */
// testSmallTableIsCachedAndLargeOneListedEachTime compares the metadata service's counter of files listed before and after its queries
@Execution(SAME_THREAD)
final class TestNscTableFileBatches
        extends AbstractTestQueryFramework
{
    private static final int INSERTS = 40;
    private static final int ROWS_PER_INSERT = 100;
    private static final int BATCH = 3;

    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        // nsc keeps a listed version long enough for the test to see it cached
        return NscQueryRunner.create(cluster, Map.of("nsc.table-files-cache-ttl", "1h"), Map.of("nsc_batched", Map.of(
                "nsc.table-files-batch-size", String.valueOf(BATCH),
                // a quarter of it (8kB) holds a few files: the table is too large to cache
                "nsc.table-files-cache-max-size", "32kB")));
    }

    @BeforeAll
    void createTableOfManyFiles()
    {
        assertUpdate("CREATE SCHEMA nsc.many");
        assertUpdate("CREATE TABLE nsc.many.t (k bigint, v varchar, d double)");
        for (int insert = 0; insert < INSERTS; insert++) {
            long first = (long) insert * ROWS_PER_INSERT;
            // k ascends over the files; every tenth d is NULL
            assertUpdate("INSERT INTO nsc.many.t SELECT x, 'v' || CAST(x %% 7 AS varchar), IF(x %% 10 = 0, NULL, x / 3.0) FROM UNNEST(sequence(%s, %s)) t(x)"
                    .formatted(first, first + ROWS_PER_INSERT - 1), ROWS_PER_INSERT);
        }
    }

    @Test
    void testPruningReadsBatchesAndCountsTheSame()
    {
        String sql = "SELECT count(*), sum(k), count(d) FROM %s.many.t WHERE k BETWEEN 1050 AND 1349";
        Compared compared = compare(PushdownMode.RAW, sql);
        assertThat(compared.batched().result().getMaterializedRows().getFirst().getFields()).containsExactly(300L, 359_850L, 270L);
        compared.assertSameCounts(ROW_GROUPS_TOTAL, ROW_GROUPS_PRUNED_BY_STATS, ROW_GROUPS_FULLY_MATCHING, SPLITS);
        long files = compared.whole().splitMetric(FILES_LISTED);
        assertThat(files).isGreaterThanOrEqualTo(INSERTS);
        assertThat(compared.whole().splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isGreaterThan(files - 10);

        // the batched catalog read the table in batches of three, holding one at a time, and the
        // files its listing kept for the cache until they outgrew what it may take (a quarter: 8kB)
        assertThat(compared.batched().splitMetric(FILES_LISTED)).isEqualTo(files);
        assertThat(compared.batched().splitMetric(FILE_BATCHES)).isEqualTo((files + BATCH - 1) / BATCH);
        assertThat(compared.batched().splitMetricMax(FILES_HELD_PEAK)).isGreaterThan(BATCH).isLessThan(files);
        assertThat(compared.whole().splitMetricMax(FILES_HELD_PEAK)).isEqualTo(files);
    }

    @Test
    void testStatsAnswerTopNAndDynamicFilterOverBatches()
    {
        Compared answered = compare(PushdownMode.FILTER, "SELECT count(*), count(d), min(k), max(k) FROM %s.many.t WHERE k >= 250");
        assertThat(answered.batched().result().getMaterializedRows().getFirst().getFields()).containsExactly(3750L, 3375L, 250L, 3999L);
        answered.assertSameCounts(ROW_GROUPS_ANSWERED_FROM_STATS, SPLITS);
        assertThat(answered.batched().splitMetric(ROW_GROUPS_ANSWERED_FROM_STATS)).isPositive();

        Compared topN = compare(PushdownMode.FILTER, "SELECT k, v FROM %s.many.t ORDER BY k DESC LIMIT 5");
        assertThat(topN.batched().result().getMaterializedRows()).extracting(row -> row.getField(0)).containsExactly(3999L, 3998L, 3997L, 3996L, 3995L);
        topN.assertSameCounts(ROW_GROUPS_PRUNED_BY_TOP_N, SPLITS);
        assertThat(topN.batched().splitMetric(ROW_GROUPS_PRUNED_BY_TOP_N)).isGreaterThanOrEqualTo(INSERTS - 2);
        // the bound is found in a first pass over the files, a batch at a time too
        long files = answered.whole().splitMetric(FILES_LISTED);
        assertThat(topN.batched().splitMetric(FILES_LISTED)).isEqualTo(topN.whole().splitMetric(FILES_LISTED)).isEqualTo(2 * files);
        assertThat(topN.batched().splitMetricMax(FILES_HELD_PEAK)).isGreaterThan(BATCH).isLessThan(files);

        // a build side whose keys no predicate inference carries over: only the dynamic filter prunes
        Compared joined = compare(PushdownMode.FILTER, "SELECT count(*) FROM %s.many.t JOIN tpch.tiny.orders ON k = o_orderkey * 300 WHERE o_orderkey = 7");
        assertThat(joined.batched().result().getOnlyValue()).isEqualTo(1L);
        joined.assertSameCounts(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER, SPLITS);
        assertThat(joined.batched().splitMetric(ROW_GROUPS_PRUNED_BY_DYNAMIC_FILTER)).isGreaterThanOrEqualTo(INSERTS - 2);
    }

    @Test
    void testStatisticsAndGroupBoundFoldedOverBatches()
    {
        MaterializedResult whole = computeActual("SHOW STATS FOR nsc.many.t");
        MaterializedResult batched = computeActual("SHOW STATS FOR nsc_batched.many.t");
        assertThat(batched.getMaterializedRows()).isEqualTo(whole.getMaterializedRows());
        // row count, and k's distinct count (from the merged sketches) and range
        assertThat(batched.getMaterializedRows()).anySatisfy(row -> assertThat(row.getField(4)).isEqualTo((double) INSERTS * ROWS_PER_INSERT));
        assertThat(batched.getMaterializedRows()).anySatisfy(row -> {
            assertThat(row.getField(0)).isEqualTo("k");
            assertThat((double) row.getField(2)).isBetween(3800.0, 4200.0);
            assertThat(row.getField(5)).isEqualTo("0");
            assertThat(row.getField(6)).isEqualTo("3999");
        });
        // the distinct counts bound the groups: seven values of v, so the aggregation is pushed down
        assertThat(query(filter("nsc_batched"), "SELECT v, count(*) FROM many.t GROUP BY v")).isFullyPushedDown();
    }

    @Test
    void testSmallTableIsCachedAndLargeOneListedEachTime()
    {
        String sql = "SELECT count(*) FROM %s.many.t WHERE v = 'v3'";
        compare(PushdownMode.RAW, sql);
        long before = cluster.metadataMetrics().get("table_files_listed");
        Compared again = compare(PushdownMode.RAW, sql);
        long files = again.whole().splitMetric(FILES_LISTED);
        // nsc found the version's files in its cache; nsc_batched, whose cache is too small for them, listed them again
        assertThat(cluster.metadataMetrics().get("table_files_listed") - before).isEqualTo(files);
    }

    private record Compared(QueryCounters whole, QueryCounters batched)
    {
        void assertSameCounts(String... names)
        {
            assertThat(batched.result().getMaterializedRows()).isEqualTo(whole.result().getMaterializedRows());
            for (String name : names) {
                assertThat(batched.splitMetric(name)).as(name).isEqualTo(whole.splitMetric(name));
            }
        }
    }

    /** The query over each catalog ({@code %s} names it). */
    private Compared compare(PushdownMode pushdown, String sql)
    {
        return new Compared(
                QueryCounters.run(getDistributedQueryRunner(), pushdown("nsc", pushdown), sql.formatted("nsc")),
                QueryCounters.run(getDistributedQueryRunner(), pushdown("nsc_batched", pushdown), sql.formatted("nsc_batched")));
    }

    private Session filter(String catalog)
    {
        return pushdown(catalog, PushdownMode.FILTER);
    }

    private Session pushdown(String catalog, PushdownMode mode)
    {
        return Session.builder(getSession())
                .setCatalog(catalog)
                .setSystemProperty("join_distribution_type", "BROADCAST")
                .setCatalogSessionProperty(catalog, NscSessionProperties.PUSHDOWN, mode.name())
                .setCatalogSessionProperty(catalog, NscSessionProperties.DYNAMIC_FILTERING_WAIT_TIMEOUT, "20s")
                .build();
    }
}
