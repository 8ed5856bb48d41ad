package io.nsc.trino;

import com.google.common.collect.Sets;
import io.trino.Session;
import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.trino.ServiceTables.assertSortedBy;
import static io.nsc.trino.ServiceTables.metricsDelta;
import static io.nsc.trino.ServiceTables.tableVersion;
import static io.trino.spi.StandardErrorCode.TRANSACTION_CONFLICT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * DELETE, UPDATE and MERGE through SQL. A DELETE whose predicate the compact stats settle for every row group (all
 * of its rows match, or none) is answered in the metadata alone: whole files and row groups leave
 * the table, no byte is read or written. Otherwise the rows are read: a file whose remaining rows
 * all match, or whose row groups each match entirely or not at all, still leaves in the metadata
 * alone; any other file with a matching row is rewritten with its surviving rows. Each DELETE is
 * one metadata commit against the version it read. Results are checked against Trino's tpch
 * catalog in every pushdown mode; the metadata service's counters tell which way each file went.
 * UPDATE and MERGE delete the old rows the same way and write the new ones into files of their
 * own, all in the same commit.
 */
// the counters of the one metadata service, and one listing hook: one test at a time
@Execution(SAME_THREAD)
final class TestNscDelete
        extends AbstractTestQueryFramework
{
    private static final String SCHEMA = "nsc.deletes";
    private static final int ORDERKEY = 0;

    private final FileListingHook hook = new FileListingHook();
    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        QueryRunner queryRunner = NscQueryRunner.builder(cluster)
                .setNscPlugin(hook.plugin())
                // one file per batch, each a page of the metadata service's: a hook acts between two files
                .addNscProperty("nsc.table-files-batch-size", "1")
                .addNscProperty("nsc.table-files-cache-ttl", "0s")
                .build();
        queryRunner.execute("CREATE SCHEMA " + SCHEMA);
        return queryRunner;
    }

    @Test
    void testDeleteOfWholeFilesIsMetadataOnly()
    {
        String table = createTableOfFiles("whole", 3, 1000, 100);
        Set<String> filesBefore = fileIds(table);
        assertThat(explain("DELETE FROM %s WHERE k >= 2000".formatted(table))).contains("TableDelete");

        Map<String, Long> before = cluster.metadataMetrics();
        QueryCounters delete = QueryCounters.run(getDistributedQueryRunner(), getSession(), "DELETE FROM %s WHERE k >= 2000".formatted(table));
        assertThat(delete.result().getUpdateCount()).hasValue(1000);
        // no file was read...
        assertThat(delete.physicalInputBytes()).isZero();
        // ... nor written: the third file left in the metadata
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of(
                "deletes", 1L, "files_removed", 1L, "row_groups_removed", 0L, "files_rewritten", 0L, "rows_deleted", 1000L, "files_committed", 0L, "files_allocated", 0L));
        assertThat(fileIds(table)).hasSize(2).isSubsetOf(filesBefore);
        assertEveryMode("SELECT k, v FROM " + table, rangeOfRows(0, 1999));
    }

    @Test
    void testRowGroupsAllOfWhoseRowsMatchAreRemovedInTheMetadata()
    {
        String table = createTableOfFiles("groups", 2, 1000, 100);
        Set<String> files = fileIds(table);
        String delete = "DELETE FROM %s WHERE k < 300 OR k >= 1500".formatted(table);
        assertThat(explain(delete)).contains("TableDelete");
        Map<String, Long> before = cluster.metadataMetrics();
        assertUpdate(delete, 800);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("row_groups_removed", 8L, "files_removed", 0L, "files_rewritten", 0L, "files_committed", 0L));

        // the same files, less the row groups, which no reader sees any more
        assertThat(fileIds(table)).isEqualTo(files);
        assertThat(computeActual("SELECT row_count, row_groups, removed_row_groups FROM %s ORDER BY row_count".formatted(filesTable(table, "files"))).getMaterializedRows())
                .extracting(MaterializedRow::getFields)
                .containsExactly(List.of(500L, 5, 5), List.of(700L, 7, 3));
        assertQuery("SELECT count(*), sum(row_count) FROM " + filesTable(table, "row_groups"), "VALUES (12, 1200)");
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(300, 1499)) t(x)");
        // counts and bounds the compact stats answer skip the removed row groups too
        assertEveryMode("SELECT count(*), count(v), min(k), max(k) FROM " + table, "VALUES (BIGINT '1200', BIGINT '1200', BIGINT '300', BIGINT '1499')");
        assertThat(computeActual("SHOW STATS FOR " + table).getMaterializedRows())
                .filteredOn(row -> row.getField(0) == null || row.getField(0).equals("k"))
                .extracting(row -> row.getField(0) == null ? "rows " + row.getField(4) : "k " + row.getField(5) + ".." + row.getField(6))
                .containsExactlyInAnyOrder("rows 1200.0", "k 300..1499");

        // a later DELETE removes more row groups, and the file once none is left
        before = cluster.metadataMetrics();
        assertUpdate("DELETE FROM %s WHERE k < 400".formatted(table), 100);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("row_groups_removed", 1L, "files_removed", 0L, "files_rewritten", 0L));
        before = cluster.metadataMetrics();
        assertUpdate("DELETE FROM %s WHERE k < 1000".formatted(table), 600);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("row_groups_removed", 0L, "files_removed", 1L, "files_rewritten", 0L));
        assertThat(fileIds(table)).hasSize(1).isSubsetOf(files);
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(1000, 1499)) t(x)");
    }

    @Test
    void testPartialDeletesRewriteFilesWithTheSurvivingRows()
    {
        String table = createOrders("rewritten");
        Set<String> filesBefore = fileIds(table);
        String delete = "DELETE FROM %s WHERE o_orderkey %% 7 = 0".formatted(table);
        assertThat(explain(delete)).contains("MergeWriter").doesNotContain("TableDelete");

        Map<String, Long> before = cluster.metadataMetrics();
        assertUpdate(delete, (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey % 7 = 0"));
        Map<String, Long> delta = metricsDelta(cluster, before);
        // every file held such rows, and kept others: each was rewritten, in one commit
        assertThat(delta).containsAllEntriesOf(Map.of("deletes", 1L, "files_rewritten", (long) filesBefore.size(), "files_removed", 0L, "row_groups_removed", 0L, "commits", 1L));
        assertThat(delta.get("files_committed")).isPositive();
        assertThat(Sets.intersection(fileIds(table), filesBefore)).isEmpty();
        assertEveryMode("SELECT * FROM " + table, "SELECT * FROM tpch.tiny.orders WHERE o_orderkey % 7 <> 0");
        // the rewrites are written as the table's writes are: sorted by o_orderkey within each file
        assertSortedBy(cluster, table, ORDERKEY);

        // a LIKE the connector evaluates on its own, and a predicate only Trino evaluates
        assertUpdate("DELETE FROM %s WHERE o_comment LIKE '%%special%%'".formatted(table),
                (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey % 7 <> 0 AND o_comment LIKE '%special%'"));
        assertUpdate("DELETE FROM %s WHERE length(o_comment) > 70".formatted(table),
                (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey % 7 <> 0 AND o_comment NOT LIKE '%special%' AND length(o_comment) > 70"));
        // arithmetic the connector computes next to the data
        assertUpdate("DELETE FROM %s WHERE o_totalprice * 2 > 500000".formatted(table),
                (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey % 7 <> 0 AND o_comment NOT LIKE '%special%' AND length(o_comment) <= 70 AND o_totalprice * 2 > 500000"));
        assertEveryMode("SELECT * FROM " + table,
                "SELECT * FROM tpch.tiny.orders WHERE o_orderkey % 7 <> 0 AND o_comment NOT LIKE '%special%' AND length(o_comment) <= 70 AND o_totalprice * 2 <= 500000");
        assertSortedBy(cluster, table, ORDERKEY);
    }

    @Test
    void testRowLevelDeleteRemovesWholeFilesAndRowGroupsWithoutRewriting()
    {
        String table = createTableOfFiles("row_level", 2, 1000, 100);
        Set<String> filesBefore = fileIds(table);
        // only Trino evaluates this predicate: the rows are read, but the files that lose all their
        // rows, or whole row groups, leave in the metadata
        String delete = "DELETE FROM %s WHERE length(CAST(k AS varchar)) = 4 OR k < 100".formatted(table);
        assertThat(explain(delete)).contains("MergeWriter");
        Map<String, Long> before = cluster.metadataMetrics();
        assertUpdate(delete, 1100);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("files_removed", 1L, "row_groups_removed", 1L, "files_rewritten", 0L, "files_committed", 0L, "files_allocated", 0L));
        assertThat(fileIds(table)).hasSize(1).isSubsetOf(filesBefore);
        assertQuery("SELECT row_count, row_groups, removed_row_groups FROM " + filesTable(table, "files"), "VALUES (900, 9, 1)");
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(100, 999)) t(x)");
    }

    @Test
    void testDeleteNothingAndEverything()
    {
        String table = createOrders("everything");
        Set<String> files = fileIds(table);
        Map<String, Long> before = cluster.metadataMetrics();
        // nothing matches: nothing is committed, the version stays
        assertUpdate("DELETE FROM %s WHERE o_orderkey < 0".formatted(table), 0);
        assertUpdate("DELETE FROM %s WHERE o_orderkey %% 100000 = 99999".formatted(table), 0);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("deletes", 0L, "commits", 0L));
        assertThat(fileIds(table)).isEqualTo(files);

        assertThat(explain("DELETE FROM " + table)).contains("TableDelete");
        before = cluster.metadataMetrics();
        assertUpdate("DELETE FROM " + table, 15000);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("files_removed", (long) files.size(), "files_rewritten", 0L, "files_committed", 0L));
        assertQuery("SELECT count(*) FROM " + table, "VALUES 0");
        assertQuery("SELECT count(*) FROM " + filesTable(table, "files"), "VALUES 0");
        // the table stays, with its definition
        assertThat((String) computeScalar("SHOW CREATE TABLE " + table)).contains("sorted_by = ARRAY['o_orderkey']");
        assertUpdate("INSERT INTO %s SELECT * FROM tpch.tiny.orders WHERE o_orderkey < 10".formatted(table), 7);
        assertEveryMode("SELECT * FROM " + table, "SELECT * FROM tpch.tiny.orders WHERE o_orderkey < 10");
        assertUpdate("DELETE FROM " + table, 7);
        assertQuery("SELECT count(*) FROM " + table, "VALUES 0");
    }

    @Test
    void testDeleteFromATableWithDroppedAndAddedColumns()
    {
        String table = SCHEMA + ".slots";
        assertUpdate("CREATE TABLE %s WITH (row_group_size = '10') AS SELECT o_orderkey AS k, o_orderstatus AS s, o_custkey AS c FROM tpch.tiny.orders WHERE o_orderkey < 100".formatted(table), 27);
        assertUpdate("ALTER TABLE %s DROP COLUMN s".formatted(table));
        assertUpdate("ALTER TABLE %s ADD COLUMN d double".formatted(table));
        assertUpdate("INSERT INTO %s SELECT o_orderkey, o_custkey, o_totalprice FROM tpch.tiny.orders WHERE o_orderkey BETWEEN 100 AND 199".formatted(table), 28);

        // rewrites of files written before the drop and the add, and after
        assertUpdate("DELETE FROM %s WHERE c %% 2 = 0".formatted(table), (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE o_orderkey < 200 AND o_custkey % 2 = 0"));
        String survivors = "SELECT o_orderkey, o_custkey, IF(o_orderkey >= 100, o_totalprice) FROM tpch.tiny.orders WHERE o_orderkey < 200 AND o_custkey % 2 <> 0";
        assertEveryMode("SELECT k, c, d FROM " + table, survivors);
        // the added column's NULL in the older rows still prunes and deletes by stats
        assertUpdate("DELETE FROM %s WHERE d > 200000".formatted(table), (long) computeScalar("SELECT count(*) FROM (%s) t(k, c, d) WHERE d > 200000".formatted(survivors)));
        assertEveryMode("SELECT k, c, d FROM " + table, "SELECT * FROM (%s) t(k, c, d) WHERE d IS NULL OR d <= 200000".formatted(survivors));
        assertQuery("SELECT column_name FROM information_schema.columns WHERE table_schema = 'deletes' AND table_name = 'slots'", "VALUES 'k', 'c', 'd'");
    }

    @Test
    void testDeleteWhoseFilesAnotherCommitRewroteFailsAndChangesNothing()
    {
        String table = createTableOfFiles("conflict", 4, 10, 5);
        // while the DELETE lists its third file, another DELETE rewrites every file
        FileListingHook.PendingAction other = hook.beforeBatch(tableName("conflict"), 2, () -> assertUpdate("DELETE FROM %s WHERE k %% 10 = 1".formatted(table), 4));
        Map<String, Long> before = cluster.metadataMetrics();
        assertThat(query("DELETE FROM %s WHERE k %% 10 = 0".formatted(table)))
                .failure()
                .hasErrorCode(TRANSACTION_CONFLICT)
                .hasMessageMatching("DELETE from deletes.conflict conflicts with a commit made since it began: File \\w+ of table deletes.conflict was removed by a commit at version \\d+, after version \\d+ that the statement read; nothing was committed");
        assertThat(other.ran()).isTrue();
        // the other DELETE's commit, and nothing of this one
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("deletes", 1L, "files_rewritten", 4L));
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(0, 39)) t(x) WHERE x % 10 <> 1");

        // a DELETE answered in the metadata alone checks the same way
        FileListingHook.PendingAction rewrite = hook.beforeBatch(tableName("conflict"), 0, () -> assertUpdate("DELETE FROM %s WHERE k >= 30 AND k %% 10 = 5".formatted(table), 1));
        assertThat(query("DELETE FROM %s WHERE k >= 30".formatted(table)))
                .failure()
                .hasErrorCode(TRANSACTION_CONFLICT)
                .hasMessageContaining("was removed by a commit at version");
        assertThat(rewrite.ran()).isTrue();
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(0, 39)) t(x) WHERE x % 10 <> 1 AND x <> 35");
    }

    @Test
    void testInsertCommittedDuringADeleteKeepsItsRows()
    {
        String table = createTableOfFiles("insert_meanwhile", 4, 10, 5);
        // the DELETE read the version before the INSERT: the inserted rows are not its to delete
        FileListingHook.PendingAction insert = hook.beforeBatch(tableName("insert_meanwhile"), 2, () -> assertUpdate("INSERT INTO %s VALUES (100, 'new'), (105, 'new')".formatted(table), 2));
        assertUpdate("DELETE FROM %s WHERE k %% 10 = 0".formatted(table), 4);
        assertThat(insert.ran()).isTrue();
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(0, 39)) t(x) WHERE x % 10 <> 0 UNION ALL VALUES BIGINT '100', BIGINT '105'");
    }

    @Test
    void testQueryPlannedBeforeADeleteReadsItsVersion()
    {
        String table = createTableOfFiles("snapshot", 4, 10, 5);
        Session raw = EveryPushdownMode.withMode(getSession(), PushdownMode.RAW);
        // metadata-only: the files it removes stay readable for the query that planned before
        FileListingHook.PendingAction removal = hook.beforeBatch(tableName("snapshot"), 1, () -> assertUpdate("DELETE FROM %s WHERE k < 20".formatted(table), 20));
        assertThat(computeActual(raw, "SELECT k FROM " + table).getOnlyColumnAsSet()).hasSize(40);
        assertThat(removal.ran()).isTrue();
        assertThat(computeActual(raw, "SELECT k FROM " + table).getOnlyColumnAsSet()).hasSize(20);

        // a rewrite, the same
        FileListingHook.PendingAction rewrite = hook.beforeBatch(tableName("snapshot"), 1, () -> assertUpdate("DELETE FROM %s WHERE k %% 2 = 0".formatted(table), 10));
        assertThat(computeActual(raw, "SELECT k FROM " + table).getOnlyColumnAsSet()).hasSize(20);
        assertThat(rewrite.ran()).isTrue();
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(21, 39, 2)) t(x)");
    }

    @Test
    void testUpdateRewritesTheFilesOfItsRowsAndWritesTheNewValuesInOneCommit()
    {
        String table = createTableOfFiles("updated", 3, 10, 5);
        Set<String> filesBefore = fileIds(table);
        Map<String, Long> before = cluster.metadataMetrics();
        // rows of the first and the third file; the second stays as it is
        assertUpdate("UPDATE %s SET v = 'new ' || v WHERE k IN (1, 2, 25)".formatted(table), 3);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("deletes", 1L, "files_rewritten", 2L, "rows_deleted", 3L));
        Set<String> filesAfter = fileIds(table);
        assertThat(Sets.intersection(filesBefore, filesAfter)).hasSize(1);
        // the survivors (9 and 8 rows) and the new values, in one file per merge sink that got
        // some: a rewritten file's survivors go to the sink its file id picks, an inserted row to
        // the one its place in the page picks (NscNodePartitioningProvider): 1 to 5 files
        Set<String> written = Sets.difference(filesAfter, filesBefore);
        assertThat(written).hasSizeBetween(1, 5);
        assertThat(computeScalar("SELECT sum(row_count) FROM %s WHERE file_id IN ('%s')".formatted(filesTable(table, "files"), String.join("', '", written))))
                .isEqualTo(20L);
        assertEveryMode("SELECT k, v FROM " + table, """
                SELECT x, CASE WHEN x IN (1, 2, 25) THEN 'new v' ELSE 'v' END || CAST(x AS varchar) FROM UNNEST(sequence(0, 29)) t(x)""");

        // every row: the files leave in the metadata, and the new values take their place
        assertUpdate("UPDATE %s SET k = k + 100".formatted(table), 30);
        assertThat(Sets.intersection(filesAfter, fileIds(table))).isEmpty();
        assertEveryMode("SELECT k FROM " + table, "SELECT x + 100 FROM UNNEST(sequence(0, 29)) t(x)");

        // no row matches: nothing is committed
        long version = tableVersion(cluster, table);
        assertUpdate("UPDATE %s SET v = 'x' WHERE k < 0".formatted(table), 0);
        assertThat(tableVersion(cluster, table)).isEqualTo(version);
    }

    @Test
    void testMergeUpdatesDeletesAndInserts()
    {
        String table = createTableOfFiles("merged", 2, 10, 5);
        String source = "(VALUES (BIGINT '3', 'three'), (BIGINT '4', NULL), (BIGINT '15', 'fifteen'), (BIGINT '40', 'forty'), (BIGINT '41', 'forty-one')) s(k, v)";
        assertUpdate("""
                MERGE INTO %s t USING %s ON t.k = s.k
                WHEN MATCHED AND s.v IS NULL THEN DELETE
                WHEN MATCHED THEN UPDATE SET v = s.v
                WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)""".formatted(table, source), 5);
        assertEveryMode("SELECT k, v FROM " + table, """
                SELECT x, CASE x WHEN 3 THEN 'three' WHEN 15 THEN 'fifteen' ELSE 'v' || CAST(x AS varchar) END FROM UNNEST(sequence(0, 19)) t(x) WHERE x <> 4
                UNION ALL VALUES (BIGINT '40', 'forty'), (BIGINT '41', 'forty-one')""");

        // only inserts: a commit that adds files and removes none
        Set<String> filesBefore = fileIds(table);
        Map<String, Long> before = cluster.metadataMetrics();
        assertUpdate("MERGE INTO %s t USING (VALUES BIGINT '50') s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, 'fifty')".formatted(table), 1);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("deletes", 0L, "files_committed", 1L));
        assertThat(fileIds(table)).containsAll(filesBefore).hasSize(filesBefore.size() + 1);
        assertEveryMode("SELECT v FROM %s WHERE k >= 40".formatted(table), "VALUES 'forty', 'forty-one', 'fifty'");

        // a target row matched by two source rows is Trino's error, and nothing changes
        long version = tableVersion(cluster, table);
        assertThat(query("MERGE INTO %s t USING (VALUES BIGINT '50', BIGINT '50') s(k) ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 'x'".formatted(table)))
                .failure().hasMessageContaining("One MERGE target table row matched more than one source row");
        assertThat(tableVersion(cluster, table)).isEqualTo(version);
    }

    /**
     * A table of {@code files} files, one per INSERT, of {@code rowsPerFile} rows each: k counts
     * from 0 over all of them, and each file is sorted by k in row groups of {@code rowGroupRows}.
     */
    private String createTableOfFiles(String name, int files, int rowsPerFile, int rowGroupRows)
    {
        String table = SCHEMA + "." + name;
        assertUpdate("CREATE TABLE %s (k bigint, v varchar) WITH (row_group_size = '%s', sorted_by = ARRAY['k'])".formatted(table, rowGroupRows));
        // one writer: each INSERT writes one file
        Session oneWriter = Session.builder(getSession())
                .setSystemProperty("redistribute_writes", "false")
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
        for (int file = 0; file < files; file++) {
            long first = (long) file * rowsPerFile;
            assertUpdate(oneWriter, "INSERT INTO %s SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(%s, %s)) t(x)".formatted(table, first, first + rowsPerFile - 1), rowsPerFile);
        }
        assertThat(fileIds(table)).hasSize(files);
        assertThat(hook.isPending()).isFalse();
        return table;
    }

    private String createOrders(String name)
    {
        String table = SCHEMA + "." + name;
        assertUpdate("CREATE TABLE %s WITH (row_group_size = '1000', sorted_by = ARRAY['o_orderkey']) AS SELECT * FROM tpch.tiny.orders".formatted(table), 15000);
        return table;
    }

    private static String rangeOfRows(long first, long last)
    {
        return "SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(%s, %s)) t(x)".formatted(first, last);
    }

    private static SchemaTableName tableName(String name)
    {
        return new SchemaTableName("deletes", name);
    }

    private static String filesTable(String table, String kind)
    {
        return "%s.\"%s$%s\"".formatted(SCHEMA, table.substring(SCHEMA.length() + 1), kind);
    }

    private Set<String> fileIds(String table)
    {
        return computeActual("SELECT file_id FROM " + filesTable(table, "files")).getOnlyColumnAsSet().stream()
                .map(String.class::cast)
                .collect(toImmutableSet());
    }

    private String explain(String sql)
    {
        return (String) computeScalar("EXPLAIN " + sql);
    }

    private void assertEveryMode(String sql, String expected)
    {
        EveryPushdownMode.assertSameRows(getQueryRunner(), getSession(), sql, expected);
    }
}
