package io.nsc.trino;

import io.trino.Session;
import io.trino.spi.connector.SchemaTableName;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.Map;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.trino.ServiceTables.assertSortedBy;
import static io.nsc.trino.ServiceTables.metricsDelta;
import static io.nsc.trino.ServiceTables.tableVersion;
import static io.trino.spi.StandardErrorCode.INVALID_PROCEDURE_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.PROCEDURE_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TRANSACTION_CONFLICT;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * {@code ALTER TABLE ... EXECUTE optimize}: the files below {@code file_size_threshold}, and those
 * that lost row groups to a DELETE, are rewritten into files of the writer's target size, sorted
 * by {@code sorted_by}, in one commit that the table's history calls OPTIMIZE. The answers stay
 * the same; {@code "$files"}, {@code "$row_groups"}, {@code "$history"} and the metadata service's
 * counters tell what was rewritten.
 */
// the counters of the one metadata service, and one listing hook: one test at a time
@Execution(SAME_THREAD)
final class TestNscOptimize
        extends AbstractTestQueryFramework
{
    private static final String SCHEMA = "nsc.compaction";
    private static final int KEY = 0;

    private final FileListingHook hook = new FileListingHook();
    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        QueryRunner queryRunner = NscQueryRunner.builder(cluster)
                // one Trino node: a session of one writer then writes one file, whichever node reads the splits
                .setWorkerCount(0)
                .setNscPlugin(hook.plugin())
                // one file per batch, each a page of the metadata service's: a hook acts between two files
                .addNscProperty("nsc.table-files-batch-size", "1")
                .addNscProperty("nsc.table-files-cache-ttl", "0s")
                .build();
        queryRunner.execute("CREATE SCHEMA " + SCHEMA);
        return queryRunner;
    }

    @Test
    void testSmallFilesBecomeFewSortedFilesWithTheSameRows()
    {
        // written in descending order of k, one INSERT each: every file holds one range of k
        String table = createTableOfFiles("small", 20, 7, 5);
        long versionBefore = tableVersion(cluster, table);
        String expected = "SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(0, 139)) t(x)";
        assertThat(query("SELECT count(*), sum(row_count) FROM " + filesTable(table, "files"))).matches("VALUES (BIGINT '20', BIGINT '140')");
        assertThat(query("SELECT count(*) FROM " + filesTable(table, "row_groups"))).matches("VALUES BIGINT '40'");

        Map<String, Long> before = cluster.metadataMetrics();
        assertUpdate("ALTER TABLE %s EXECUTE optimize".formatted(table));
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("optimizes", 1L, "commits", 1L, "files_rewritten", 20L, "deletes", 0L, "rows_deleted", 0L));
        // a file per writer the engine ran (the test session may run several), each sorted
        long files = (long) computeScalar("SELECT count(*) FROM " + filesTable(table, "files"));
        assertThat(files).isBetween(1L, 19L);
        assertThat(query("SELECT sum(row_count) FROM " + filesTable(table, "files"))).matches("VALUES BIGINT '140'");
        assertSortedBy(cluster, table, KEY);
        assertEveryMode("SELECT k, v FROM " + table, expected);
        // one new version, named by the history
        assertThat(tableVersion(cluster, table)).isEqualTo(versionBefore + 1);
        assertThat(query("SELECT operation, row_count, file_count FROM %s WHERE version = %s".formatted(filesTable(table, "history"), versionBefore + 1)))
                .matches("VALUES (VARCHAR 'OPTIMIZE', BIGINT '140', BIGINT '%s')".formatted(files));

        // with one writer: one file, in row groups of 5 rows
        if (files > 1) {
            optimize(table, "");
        }
        assertThat(query("SELECT count(*), sum(row_count) FROM " + filesTable(table, "files"))).matches("VALUES (BIGINT '1', BIGINT '140')");
        assertThat(query("SELECT count(*), sum(row_count) FROM " + filesTable(table, "row_groups"))).matches("VALUES (BIGINT '28', BIGINT '140')");
        assertSortedBy(cluster, table, KEY);
        assertEveryMode("SELECT k, v FROM " + table, expected);
        // the Bloom filters of the new file prune as those of an INSERT's
        assertEveryMode("SELECT k FROM %s WHERE v = 'v77'".formatted(table), "VALUES BIGINT '77'");
        // the version before reads its own 20 files, kept for the retention
        assertThat(query("SELECT k, v FROM %s FOR VERSION AS OF %s".formatted(table, versionBefore))).matches(expected);
        assertThat(query("SELECT file_count FROM %s WHERE version = %s".formatted(filesTable(table, "history"), versionBefore))).matches("VALUES BIGINT '20'");
    }

    @Test
    void testFilesAtOrAboveTheThresholdStay()
    {
        String table = createTableOfFiles("threshold", 3, 1000, 100);
        assertUpdate("INSERT INTO %s VALUES (5000, 'a')".formatted(table), 1);
        assertUpdate("INSERT INTO %s VALUES (5001, 'b')".formatted(table), 1);
        Map<String, Long> sizes = fileSizes(table);
        long big = sizes.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        long small = sizes.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        assertThat(small).isLessThan(big);
        Set<String> bigFiles = sizes.entrySet().stream().filter(entry -> entry.getValue() > small * 2).map(Map.Entry::getKey).collect(toImmutableSet());
        assertThat(bigFiles).hasSize(3);

        Map<String, Long> before = cluster.metadataMetrics();
        optimize(table, "(file_size_threshold => '%sB')".formatted((small + big) / 2));
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("optimizes", 1L, "files_rewritten", 2L));
        // the big files are the same files; the two single rows are one file now
        Set<String> after = fileIds(table);
        assertThat(after).hasSize(4).containsAll(bigFiles);
        assertEveryMode("SELECT k, v FROM " + table, "SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(0, 2999)) t(x) UNION ALL VALUES (5000, 'a'), (5001, 'b')");
    }

    @Test
    void testNothingToCompactCommitsNothing()
    {
        String table = createTableOfFiles("nothing", 2, 100, 10);
        long version = tableVersion(cluster, table);
        Set<String> files = fileIds(table);
        Map<String, Long> before = cluster.metadataMetrics();
        // no file below the threshold
        assertUpdate("ALTER TABLE %s EXECUTE optimize(file_size_threshold => '1B')".formatted(table));
        // one file below it: written again it would be the same file
        assertUpdate("INSERT INTO %s VALUES (1000, 'x')".formatted(table), 1);
        long smallest = fileSizes(table).values().stream().mapToLong(Long::longValue).min().orElseThrow();
        assertUpdate("ALTER TABLE %s EXECUTE optimize(file_size_threshold => '%sB')".formatted(table, smallest + 1));
        assertThat(tableVersion(cluster, table)).isEqualTo(version + 1);
        assertThat(fileIds(table)).hasSize(3).containsAll(files);
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("optimizes", 0L, "commits", 1L, "files_allocated", 1L));

        // an empty table, the same
        assertUpdate("CREATE TABLE %s.empty (k bigint)".formatted(SCHEMA));
        assertUpdate("ALTER TABLE %s.empty EXECUTE optimize".formatted(SCHEMA));
        assertThat(query("SELECT count(*) FROM %s.\"empty$history\"".formatted(SCHEMA))).matches("VALUES BIGINT '1'");
    }

    @Test
    void testFilesThatLostRowGroupsAreRewrittenWhateverTheirSize()
    {
        String table = createTableOfFiles("wasted", 2, 1000, 100);
        // row groups whole: removed in the metadata alone, their bytes still in the files
        assertUpdate("DELETE FROM %s WHERE k < 300".formatted(table), 300);
        assertThat(query("SELECT sum(removed_row_groups) FROM " + filesTable(table, "files"))).matches("VALUES BIGINT '3'");
        Set<String> untouched = fileIds(table);

        optimize(table, "(file_size_threshold => '1B')");
        Set<String> after = fileIds(table);
        // the file that lost row groups is rewritten; the other, above the threshold, stays
        assertThat(after).hasSize(2);
        assertThat(untouched.stream().filter(after::contains).count()).isEqualTo(1);
        assertThat(query("SELECT sum(removed_row_groups), sum(row_count) FROM " + filesTable(table, "files"))).matches("VALUES (BIGINT '0', BIGINT '1700')");
        assertThat(query("SELECT count(*) FROM " + filesTable(table, "row_groups"))).matches("VALUES BIGINT '17'");
        assertEveryMode("SELECT k, v FROM " + table, "SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(300, 1999)) t(x)");
    }

    @Test
    void testDroppedAndAddedColumnsKeepTheirSlots()
    {
        String table = createTableOfFiles("slots", 3, 10, 5);
        assertUpdate("ALTER TABLE %s ADD COLUMN d double".formatted(table));
        assertUpdate("INSERT INTO %s VALUES (100, 'x', 1.5)".formatted(table), 1);
        assertUpdate("ALTER TABLE %s DROP COLUMN v".formatted(table));
        optimize(table, "");
        assertThat(fileIds(table)).hasSize(1);
        assertEveryMode("SELECT k, d FROM " + table, "SELECT x, CAST(NULL AS double) FROM UNNEST(sequence(0, 29)) t(x) UNION ALL VALUES (100, 1.5)");
    }

    @Test
    void testConcurrentDeleteOfTheSameFilesFailsTheOptimize()
    {
        String table = createTableOfFiles("conflict", 4, 10, 5);
        long version = tableVersion(cluster, table);
        // while the OPTIMIZE lists its second file, a DELETE removes the file of k 0 to 9
        FileListingHook.PendingAction delete = hook.beforeBatch(tableName("conflict"), 1, () -> assertUpdate("DELETE FROM %s WHERE k < 10".formatted(table), 10));
        Map<String, Long> before = cluster.metadataMetrics();
        assertThat(query(oneWriter(), "ALTER TABLE %s EXECUTE optimize".formatted(table)))
                .failure()
                .hasErrorCode(TRANSACTION_CONFLICT)
                .hasMessageMatching("OPTIMIZE of compaction.conflict conflicts with a commit made since it began: File \\w+ of table compaction.conflict was removed by a commit at version \\d+, after version \\d+ that the statement read; nothing was committed");
        assertThat(delete.ran()).isTrue();
        // the DELETE's commit, and nothing of the OPTIMIZE
        assertThat(metricsDelta(cluster, before)).containsAllEntriesOf(Map.of("deletes", 1L, "optimizes", 0L, "commits", 1L));
        assertThat(tableVersion(cluster, table)).isEqualTo(version + 1);
        assertThat(fileIds(table)).hasSize(3);
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(10, 39)) t(x)");

        // an INSERT meanwhile touches none of its files: the OPTIMIZE commits, and the new rows stay in their own file
        FileListingHook.PendingAction insert = hook.beforeBatch(tableName("conflict"), 1, () -> assertUpdate("INSERT INTO %s VALUES (100, 'new')".formatted(table), 1));
        optimize(table, "");
        assertThat(insert.ran()).isTrue();
        assertThat(computeActual("SELECT row_count FROM " + filesTable(table, "files")).getOnlyColumn().toList()).containsExactlyInAnyOrder(30L, 1L);
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(10, 39)) t(x) UNION ALL VALUES BIGINT '100'");
    }

    @Test
    void testQueryPlannedBeforeAnOptimizeReadsItsVersion()
    {
        String table = createTableOfFiles("snapshot", 4, 10, 5);
        Session raw = EveryPushdownMode.withMode(getSession(), PushdownMode.RAW);
        // the OPTIMIZE commits while the query lists its second file: the query reads on from the old files
        FileListingHook.PendingAction optimize = hook.beforeBatch(tableName("snapshot"), 1, () -> optimize(table, ""));
        assertThat(computeActual(raw, "SELECT k FROM " + table).getOnlyColumnAsSet()).hasSize(40);
        assertThat(optimize.ran()).isTrue();
        assertThat(fileIds(table)).hasSize(1);
        assertEveryMode("SELECT k FROM " + table, "SELECT x FROM UNNEST(sequence(0, 39)) t(x)");
    }

    @Test
    void testRefusals()
    {
        String table = createTableOfFiles("refused", 2, 10, 5);
        long version = tableVersion(cluster, table);
        assertThat(query("ALTER TABLE %s EXECUTE optimize(file_size_threshold => '33s')".formatted(table)))
                .failure()
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT)
                .hasMessageContaining("file_size_threshold");
        assertThat(query("ALTER TABLE %s EXECUTE optimize(file_size_threshold => '-1MB')".formatted(table)))
                .failure()
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT);
        assertThat(query("ALTER TABLE %s EXECUTE optimize(no_such_argument => 1)".formatted(table)))
                .failure()
                .hasErrorCode(INVALID_PROCEDURE_ARGUMENT);
        assertThat(query("ALTER TABLE %s EXECUTE no_such_procedure".formatted(table)))
                .failure()
                .hasErrorCode(PROCEDURE_NOT_FOUND);
        assertThat(query("ALTER TABLE %s EXECUTE optimize WHERE k < 5".formatted(table)))
                .failure()
                .hasErrorCode(NOT_SUPPORTED);
        assertThat(query("ALTER TABLE %s.missing EXECUTE optimize".formatted(SCHEMA)))
                .failure()
                .hasErrorCode(TABLE_NOT_FOUND);
        assertUpdate("CREATE VIEW %s.a_view AS SELECT * FROM %s".formatted(SCHEMA, table));
        assertThat(query("ALTER TABLE %s.a_view EXECUTE optimize".formatted(SCHEMA)))
                .failure()
                .hasMessageContaining("ALTER TABLE EXECUTE is not supported for views");
        // nothing changed
        assertThat(tableVersion(cluster, table)).isEqualTo(version);
        assertThat(fileIds(table)).hasSize(2);
    }

    /**
     * A table of {@code files} files, one per INSERT, of {@code rowsPerFile} rows each, written
     * last range first: k counts from 0 over all of them, each file sorted by k in row groups of
     * {@code rowGroupRows}.
     */
    private String createTableOfFiles(String name, int files, int rowsPerFile, int rowGroupRows)
    {
        String table = SCHEMA + "." + name;
        assertUpdate("CREATE TABLE %s (k bigint, v varchar) WITH (row_group_size = '%s', sorted_by = ARRAY['k'], bloom_filter_columns = ARRAY['v'])".formatted(table, rowGroupRows));
        // one writer: each INSERT writes one file
        for (int file = files - 1; file >= 0; file--) {
            long first = (long) file * rowsPerFile;
            assertUpdate(oneWriter(), "INSERT INTO %s SELECT x, 'v' || CAST(x AS varchar) FROM UNNEST(sequence(%s, %s)) t(x)".formatted(table, first, first + rowsPerFile - 1), rowsPerFile);
        }
        assertThat(fileIds(table)).hasSize(files);
        assertThat(hook.isPending()).isFalse();
        return table;
    }

    /** A session whose writes have one writer: it writes one file (below the target size), whatever the cluster. */
    private Session oneWriter()
    {
        return Session.builder(getSession())
                .setSystemProperty("redistribute_writes", "false")
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
    }

    private void optimize(String table, String arguments)
    {
        assertUpdate(oneWriter(), "ALTER TABLE %s EXECUTE optimize%s".formatted(table, arguments));
    }

    private static SchemaTableName tableName(String name)
    {
        return new SchemaTableName("compaction", name);
    }

    private static String filesTable(String table, String kind)
    {
        return "%s.\"%s$%s\"".formatted(SCHEMA, table.substring(SCHEMA.length() + 1), kind);
    }

    private Set<String> fileIds(String table)
    {
        return fileSizes(table).keySet();
    }

    private Map<String, Long> fileSizes(String table)
    {
        return computeActual("SELECT file_id, size_bytes FROM " + filesTable(table, "files")).getMaterializedRows().stream()
                .collect(toMap(row -> (String) row.getField(0), row -> (Long) row.getField(1)));
    }

    private void assertEveryMode(String sql, String expected)
    {
        EveryPushdownMode.assertSameRows(getQueryRunner(), getSession(), sql, expected);
    }
}
