package io.nsc.trino.write;

import io.nsc.trino.NscQueryRunner;
import io.nsc.trino.TestingNscCluster;
import io.trino.Session;
import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.operator.OperatorStats;
import io.trino.operator.TableWriterOperator.TableWriterInfo;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Map;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * CTAS of a TPC-H lineitem into nsc with the default writer settings, sorted by l_shipdate and
 * unsorted: rows/s, the files written, the sorted runs spilled and each writer's peak memory as
 * Trino accounted it. Not a test: run by hand, under the build lock.
 *
 * <pre>
 * java -Xmx8g -cp ... io.nsc.trino.write.BenchmarkSortedCtas [scale schema, default sf1] [repeats, default 2]
 * </pre>
 */
public final class BenchmarkSortedCtas
{
    private BenchmarkSortedCtas() {}

    public static void main(String[] args)
            throws Exception
    {
        String source = "tpch.%s.lineitem".formatted(args.length > 0 ? args[0] : "sf1");
        int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        try (TestingNscCluster cluster = TestingNscCluster.start(3)) {
            Path tempDirectory = Files.createDirectories(cluster.root().resolve("writer-temp"));
            try (QueryRunner queryRunner = NscQueryRunner.create(cluster, Map.of("nsc.writer-temp-dir", tempDirectory.toString()))) {
                DistributedQueryRunner runner = (DistributedQueryRunner) queryRunner;
                runner.execute("CREATE SCHEMA nsc.bench");
                // one writer per node: each writer gets more rows than its memory holds, and spills
                Session oneWriterPerNode = Session.builder(runner.getDefaultSession())
                        .setSystemProperty("scale_writers", "false")
                        .setSystemProperty("task_scale_writers_enabled", "false")
                        .setSystemProperty("task_min_writer_count", "1")
                        .setSystemProperty("task_max_writer_count", "1")
                        .build();
                String sorted = "CREATE TABLE nsc.bench.lineitem WITH (sorted_by = ARRAY['l_shipdate']) AS SELECT * FROM " + source;
                String unsorted = "CREATE TABLE nsc.bench.lineitem AS SELECT * FROM " + source;
                for (int run = 1; run <= repeats; run++) {
                    measure(runner, runner.getDefaultSession(), tempDirectory, sorted);
                    measure(runner, oneWriterPerNode, tempDirectory, sorted);
                    measure(runner, runner.getDefaultSession(), tempDirectory, unsorted);
                }
            }
        }
    }

    private static void measure(DistributedQueryRunner runner, Session session, Path tempDirectory, String sql)
            throws Exception
    {
        try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
            tempDirectory.register(watcher, ENTRY_CREATE);
            long start = System.nanoTime();
            MaterializedResultWithPlan result = runner.executeWithPlan(session, sql);
            double seconds = (System.nanoTime() - start) / 1e9;
            long rows = (long) result.result().getOnlyValue();
            int runs = 0;
            int files = 0;
            for (WatchKey key = watcher.poll(1, SECONDS); key != null; key = watcher.poll(1, SECONDS)) {
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.context() instanceof Path created) {
                        runs += created.toString().endsWith(".run") ? 1 : 0;
                        files += created.toString().endsWith(".parquet") ? 1 : 0;
                    }
                }
                key.reset();
            }
            QueryInfo info = runner.getCoordinator().getQueryManager().getFullQueryInfo(result.queryId());
            long peak = 0;
            long writers = 0;
            for (StageInfo stage : StageInfo.getAllStages(info.getOutputStage())) {
                for (OperatorStats operator : stage.getStageStats().getOperatorSummaries()) {
                    if (operator.getInfo() instanceof TableWriterInfo writer) {
                        peak = Math.max(peak, writer.getPageSinkPeakMemoryUsage());
                        writers += operator.getTotalDrivers();
                    }
                }
            }
            System.out.println("%s: %,d rows in %.1f s: %,.0f rows/s; %d writers, %d files, %d sorted runs spilled; page sink peak memory %,d bytes; query peak user memory %s".formatted(
                    sql, rows, seconds, rows / seconds, writers, files, runs, peak, info.getQueryStats().getPeakUserMemoryReservation()));
            runner.execute("DROP TABLE nsc.bench.lineitem");
        }
    }
}
