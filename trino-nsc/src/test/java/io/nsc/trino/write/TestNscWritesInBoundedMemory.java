package io.nsc.trino.write;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.NscQueryRunner;
import io.nsc.trino.TestingNscCluster;
import io.trino.Session;
import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.operator.OperatorStats;
import io.trino.operator.TableWriterOperator.TableWriterInfo;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.trino.testing.QueryAssertions.assertEqualsIgnoreOrder;
import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * CREATE TABLE AS and INSERT through SQL with writers of 1MB: TPC-H tiny lineitem takes several
 * times that in pages, so a sorted table is written by spilling sorted runs to the writers'
 * temporary directory and merging them. Each file comes out sorted as a whole, the table holds
 * exactly the rows written, the writers stay within their memory as Trino accounts it (a page
 * sink reports the most it held during each page, its spills and merges included), and the files
 * are as large as {@code nsc.writer-target-file-size} says, not as the memory.
 */
final class TestNscWritesInBoundedMemory
        extends AbstractTestQueryFramework
{
    private static final long WRITER_MEMORY = 1024 * 1024;
    // the most a page of the tpch connector holds (PageBuilder's default)
    private static final long TRINO_PAGE_BYTES = 1024 * 1024;
    // writers of 1MB, files of 256kB
    private static final String SMALL_FILES = "nsc_small_files";
    private static final long SMALL_FILE_SIZE = 256 * 1024;
    // writers of 1MB, files of 1MB: a writer's rows of lineitem make one file
    private static final String LARGE_FILES = "nsc_large_files";
    private static final long LARGE_FILE_SIZE = 1024 * 1024;
    private static final int SHIPDATE = 10;
    private static final long LINEITEM_ROWS = 60175;

    private TestingNscCluster cluster;
    private Path tempDirectory;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        tempDirectory = Files.createDirectories(cluster.root().resolve("writer-temp"));
        return NscQueryRunner.create(cluster, Map.of(), Map.of(
                SMALL_FILES, catalog(SMALL_FILE_SIZE),
                LARGE_FILES, catalog(LARGE_FILE_SIZE)));
    }

    private Map<String, String> catalog(long targetFileSize)
    {
        return ImmutableMap.of(
                "nsc.writer-buffer-size", WRITER_MEMORY + "B",
                "nsc.writer-target-file-size", targetFileSize + "B",
                "nsc.writer-temp-dir", tempDirectory.toString());
    }

    @Test
    void testSortedCreateTableAsSelectAndInsertSpillAndMerge()
            throws Exception
    {
        assertUpdate("CREATE SCHEMA nsc.spill");
        Write ctas = write("CREATE TABLE %s.spill.lineitem WITH (sorted_by = ARRAY['l_shipdate'], row_group_size = '500') AS SELECT * FROM tpch.tiny.lineitem".formatted(LARGE_FILES));
        assertThat(ctas.rows()).isEqualTo(LINEITEM_ROWS);
        assertWriterMemory(ctas);
        assertThat(ctas.runsWritten()).as("sorted runs spilled or merged").isGreaterThanOrEqualTo(6);
        assertThat(tempDirectory).as("runs and local files are deleted").isEmptyDirectory();
        assertSameRows("SELECT * FROM nsc.spill.lineitem", "SELECT * FROM tpch.tiny.lineitem");
        List<DataFile> files = tableFiles("spill", "lineitem");
        files.forEach(TestNscWritesInBoundedMemory::assertSortedByShipdate);
        assertThat(files).as("files of one writer hold more rows than its memory: they were merged from runs")
                .anySatisfy(file -> assertThat(file.getRowCount()).isGreaterThan(10_000));

        long inserted = (long) computeScalar("SELECT count(*) FROM tpch.tiny.lineitem WHERE l_orderkey < 30000");
        Write insert = write("INSERT INTO %s.spill.lineitem SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 30000".formatted(LARGE_FILES));
        assertThat(insert.rows()).isEqualTo(inserted);
        assertWriterMemory(insert);
        assertThat(insert.runsWritten()).isGreaterThanOrEqualTo(3);
        assertThat(tempDirectory).isEmptyDirectory();
        assertSameRows("SELECT * FROM nsc.spill.lineitem", "SELECT * FROM tpch.tiny.lineitem UNION ALL SELECT * FROM tpch.tiny.lineitem WHERE l_orderkey < 30000");
        List<DataFile> allFiles = tableFiles("spill", "lineitem");
        assertThat(allFiles).hasSizeGreaterThan(files.size());
        allFiles.forEach(TestNscWritesInBoundedMemory::assertSortedByShipdate);

        assertUpdate("DROP TABLE nsc.spill.lineitem");
        assertUpdate("DROP SCHEMA nsc.spill");
    }

    @Test
    void testFileCountFollowsTheTargetFileSize()
    {
        assertUpdate("CREATE SCHEMA nsc.sizes");
        for (boolean sorted : List.of(false, true)) {
            // row groups far smaller than the files: a file can only end where a row group does
            String properties = sorted ? "WITH (sorted_by = ARRAY['l_orderkey'], row_group_size = '1000')" : "WITH (row_group_size = '1000')";
            assertUpdate("CREATE TABLE %s.sizes.small_files %s AS SELECT * FROM tpch.tiny.lineitem".formatted(SMALL_FILES, properties), LINEITEM_ROWS);
            assertUpdate("CREATE TABLE %s.sizes.large_files %s AS SELECT * FROM tpch.tiny.lineitem".formatted(LARGE_FILES, properties), LINEITEM_ROWS);
            List<DataFile> smallFiles = tableFiles("sizes", "small_files");
            List<DataFile> largeFiles = tableFiles("sizes", "large_files");
            long totalBytes = smallFiles.stream().mapToLong(DataFile::getSizeBytes).sum();
            assertThat(smallFiles)
                    .as("sorted %s: %s bytes in files of %s", sorted, totalBytes, smallFiles.stream().map(DataFile::getSizeBytes).toList())
                    .hasSizeGreaterThanOrEqualTo((int) (totalBytes / SMALL_FILE_SIZE))
                    .hasSizeGreaterThan(largeFiles.size())
                    .allSatisfy(file -> assertThat(file.getSizeBytes()).isLessThan(SMALL_FILE_SIZE * 7 / 4));
            assertThat(largeFiles).allSatisfy(file -> assertThat(file.getSizeBytes()).isLessThan(LARGE_FILE_SIZE * 7 / 4));
            assertThat(query("SELECT count(*), checksum(l_comment), sum(l_extendedprice) FROM nsc.sizes.small_files"))
                    .matches("SELECT count(*), checksum(l_comment), sum(l_extendedprice) FROM tpch.tiny.lineitem");
            assertUpdate("DROP TABLE nsc.sizes.small_files");
            assertUpdate("DROP TABLE nsc.sizes.large_files");
        }
        assertUpdate("DROP SCHEMA nsc.sizes");
    }

    /** Row groups hold ascending ranges of l_shipdate that do not overlap (equal dates may meet). */
    private static void assertSortedByShipdate(DataFile file)
    {
        CompactFileStats stats = CompactFileStats.wrap(file.getCompactStats().toByteArray());
        assertThat(stats.rowGroupCount()).isPositive();
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            assertThat(stats.hasMinMax(rowGroup, SHIPDATE)).isTrue();
            if (rowGroup > 0) {
                assertThat(stats.min(rowGroup, SHIPDATE))
                        .as("row group %s of %s", rowGroup, file.getFileId())
                        .isGreaterThanOrEqualTo(stats.max(rowGroup - 1, SHIPDATE));
            }
        }
    }

    /**
     * Trino's accounting of the writers' memory: what their page sinks reported, the most each held
     * during a page. A page of lineitem from the tpch connector is up to 1MB and larger than the
     * sorter's buffer: it is spilled alone, held with the pages it sorts into.
     */
    private static void assertWriterMemory(Write write)
    {
        assertThat(write.pageSinkPeakMemory()).isGreaterThan(WRITER_MEMORY / 2).isLessThanOrEqualTo(WRITER_MEMORY + TRINO_PAGE_BYTES);
    }

    /**
     * @param runsWritten sorted runs created: spilled buffers and the runs of intermediate merges
     */
    private record Write(long rows, int runsWritten, long pageSinkPeakMemory) {}

    /** Runs the statement and counts the sorted runs its writers created in the temporary directory. */
    private Write write(String sql)
            throws IOException, InterruptedException
    {
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            tempDirectory.register(watcher, ENTRY_CREATE);
            MaterializedResultWithPlan result = getDistributedQueryRunner().executeWithPlan(oneWriterPerNode(), sql);
            // The watch service hands on the file system's events, in order, in a thread of its
            // own: once it reports a file created after the statement, it has reported every run.
            List<Path> markers = new ArrayList<>();
            markers.add(Files.createFile(tempDirectory.resolve("statement-done-" + UUID.randomUUID())));
            int runs = 0;
            boolean markerSeen = false;
            while (!markerSeen) {
                // the timeout only keeps a broken watch service from hanging the test
                WatchKey key = watcher.poll(5, MINUTES);
                assertThat(key).as("the watch service reports the marker file").isNotNull();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == OVERFLOW) {
                        // Events were dropped, the marker's perhaps too: more files were created
                        // than the queue holds, far more runs than asserted. A new marker ends the wait.
                        runs = Integer.MAX_VALUE;
                        markers.add(Files.createFile(tempDirectory.resolve("statement-done-" + UUID.randomUUID())));
                    }
                    else if (event.context() instanceof Path created) {
                        markerSeen |= created.equals(markers.getLast().getFileName());
                        if (created.toString().endsWith(".run") && runs < Integer.MAX_VALUE) {
                            runs++;
                        }
                    }
                }
                key.reset();
            }
            for (Path marker : markers) {
                Files.delete(marker);
            }
            long rows = (long) result.result().getOnlyValue();
            return new Write(rows, runs, pageSinkPeakMemory(getDistributedQueryRunner().getCoordinator().getQueryManager().getFullQueryInfo(result.queryId())));
        }
    }

    private static long pageSinkPeakMemory(QueryInfo info)
    {
        long peak = 0;
        for (StageInfo stage : StageInfo.getAllStages(info.getOutputStage())) {
            for (OperatorStats operator : stage.getStageStats().getOperatorSummaries()) {
                if (operator.getInfo() instanceof TableWriterInfo writer) {
                    peak = Math.max(peak, writer.getPageSinkPeakMemoryUsage());
                }
            }
        }
        return peak;
    }

    // Sorting is per writer: one writer per node keeps each writer's share of the rows (and so its runs) large
    private Session oneWriterPerNode()
    {
        return Session.builder(getSession())
                .setSystemProperty("scale_writers", "false")
                .setSystemProperty("task_scale_writers_enabled", "false")
                .setSystemProperty("task_min_writer_count", "1")
                .setSystemProperty("task_max_writer_count", "1")
                .build();
    }

    private List<DataFile> tableFiles(String schema, String table)
    {
        ManagedChannel channel = GrpcChannels.forAddress(cluster.metadataAddress(), cluster.clientSecurity());
        try {
            MetadataServiceGrpc.MetadataServiceBlockingStub metadata = MetadataServiceGrpc.newBlockingStub(channel);
            long tableId = metadata.getTable(GetTableRequest.newBuilder().setSchemaName(schema).setTableName(table).build()).getTableId();
            return metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).build()).getFilesList();
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    // assertj's any-order comparison is quadratic: tens of thousands of rows take minutes
    private void assertSameRows(String actual, String expected)
    {
        MaterializedResult actualRows = computeActual(actual);
        MaterializedResult expectedRows = computeActual(expected);
        assertThat(actualRows.getTypes()).isEqualTo(expectedRows.getTypes());
        assertEqualsIgnoreOrder(actualRows.getMaterializedRows(), expectedRows.getMaterializedRows());
    }
}
