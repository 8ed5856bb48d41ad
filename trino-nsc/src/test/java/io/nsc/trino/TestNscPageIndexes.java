package io.nsc.trino;

import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;
import java.util.Map;

import static io.nsc.trino.read.ReadMetrics.STORAGE_ROWS_SCANNED;
import static io.nsc.trino.read.ReadMetrics.WORKER_ROWS_DECODED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * The page indexes nsc's writer puts in its files, used through SQL: a range on the column a
 * table is sorted by reads only the pages of a row group that may hold it, in a raw read (fewer
 * bytes from the storage nodes, fewer rows decoded on the worker) and in a storage scan (fewer
 * rows decoded next to the disk), with the answers of a read of every page.
 */
@TestInstance(PER_CLASS)
final class TestNscPageIndexes
        extends AbstractTestQueryFramework
{
    // trino-parquet closes a page at 60,000 values: each of the few files the CTAS writes has
    // ten or more pages of each column, in row groups of up to the table's
    private static final long ROWS = 3_600_000;
    private static final String RANGE = "SELECT count(*), sum(other), min(id), max(id) FROM pages.sorted WHERE id BETWEEN 723000 AND 723999";
    // the same columns, a predicate on the unsorted column that every page may match
    private static final String EVERY_PAGE = "SELECT count(*), sum(other), min(id), max(id) FROM pages.sorted WHERE other >= 0";

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.create(cluster, Map.of());
    }

    @BeforeAll
    void createTable()
    {
        assertUpdate("CREATE SCHEMA IF NOT EXISTS pages");
        assertUpdate("""
                CREATE TABLE pages.sorted WITH (sorted_by = ARRAY['id'], row_group_size = '3600000') AS
                SELECT a * 1000 + b AS id, (a * 1000 + b) * 7919 % 100003 AS other
                FROM UNNEST(sequence(0, 3599)) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)""", ROWS);
    }

    @Test
    void testRawReadFetchesOnlyThePagesOfTheRange()
    {
        // ranges are fetched as they are asked for, not merged across the pages between them
        Session raw = Session.builder(pushdown(PushdownMode.RAW))
                .setCatalogSessionProperty("nsc", NscSessionProperties.RAW_READ_MAX_MERGE_DISTANCE, "16kB")
                .build();
        QueryCounters everyPage = QueryCounters.run(getDistributedQueryRunner(), raw, EVERY_PAGE);
        QueryCounters range = QueryCounters.run(getDistributedQueryRunner(), raw, RANGE);
        assertThat(range.result().getMaterializedRows().getFirst().getFields()).isEqualTo(expectedRange());
        // a page or two of each file holds the range: far fewer bytes than every page's
        assertThat(range.physicalInputBytesOfRows()).isPositive().isLessThan(everyPage.physicalInputBytesOfRows() / 4);

        // in auto, a raw split filters its rows itself and counts what it decoded
        Session auto = Session.builder(pushdown(PushdownMode.AUTO))
                .setCatalogSessionProperty("nsc", NscSessionProperties.AGGREGATION_PUSHDOWN_MAX_GROUPS, "0")
                .build();
        QueryCounters autoRange = QueryCounters.run(getDistributedQueryRunner(), auto, RANGE);
        assertThat(autoRange.result().getMaterializedRows().getFirst().getFields()).isEqualTo(expectedRange());
        assertThat(autoRange.connectorMetric(WORKER_ROWS_DECODED) + autoRange.connectorMetric(STORAGE_ROWS_SCANNED)).isPositive().isLessThan(ROWS / 4);
    }

    @Test
    void testStorageScanDecodesOnlyThePagesOfTheRange()
    {
        Session filter = pushdown(PushdownMode.FILTER);
        QueryCounters range = QueryCounters.run(getDistributedQueryRunner(), filter, RANGE);
        QueryCounters everyPage = QueryCounters.run(getDistributedQueryRunner(), filter, EVERY_PAGE);
        assertThat(range.result().getMaterializedRows().getFirst().getFields()).isEqualTo(expectedRange());

        assertThat(everyPage.connectorMetric(STORAGE_ROWS_SCANNED)).isEqualTo(ROWS);
        // a page or two of each file holds the range
        assertThat(range.connectorMetric(STORAGE_ROWS_SCANNED)).isPositive().isLessThan(ROWS / 4);
    }

    @Test
    void testRangesAcrossAndOutsidePagesAnswerAsEveryPageDoes()
    {
        Session raw = pushdown(PushdownMode.RAW);
        Session filter = pushdown(PushdownMode.FILTER);
        for (String predicate : List.of(
                "id < 5",
                "id >= 3599990",
                "id BETWEEN 59990 AND 60010",
                "id IN (1, 60000, 600000, 3599999)",
                "id BETWEEN 100000 AND 400000 AND other < 50000",
                "id > 3600000",
                "id IS NULL")) {
            String query = "SELECT count(*), sum(other) FROM pages.sorted WHERE " + predicate;
            // the same rows with the predicate made opaque to every index: id + 0 is no domain
            String reference = "SELECT count(*), sum(other) FROM pages.sorted WHERE " + predicate.replace("id", "(id + 0)");
            Object expected = computeActual(raw, reference).getMaterializedRows();
            assertThat(computeActual(raw, query).getMaterializedRows()).as(predicate).isEqualTo(expected);
            assertThat(computeActual(filter, query).getMaterializedRows()).as(predicate).isEqualTo(expected);
        }
    }

    private static List<Object> expectedRange()
    {
        long sum = 0;
        for (long id = 723_000; id <= 723_999; id++) {
            sum += id * 7919 % 100003;
        }
        return List.of(1000L, sum, 723_000L, 723_999L);
    }

    private Session pushdown(PushdownMode mode)
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name()).build();
    }
}
