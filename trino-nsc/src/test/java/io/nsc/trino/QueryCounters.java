package io.nsc.trino;

import io.trino.Session;
import io.trino.execution.QueryInfo;
import io.trino.execution.StageInfo;
import io.trino.operator.OperatorStats;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.plugin.base.metrics.TDigestHistogram;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner.MaterializedResultWithPlan;

import static io.nsc.trino.read.ReadMetrics.STORAGE_FOOTER_BYTES_RECEIVED;
import static java.util.Objects.requireNonNull;

/**
 * The result of a query with the counters that show what the connector did: split-generation
 * metrics from the coordinator (row groups pruned, splits) and physical input bytes (bytes
 * received from storage nodes).
 */
public record QueryCounters(MaterializedResult result, long physicalInputBytes, Metrics splitMetrics, Metrics connectorMetrics)
{
    public QueryCounters
    {
        requireNonNull(result, "result is null");
        requireNonNull(splitMetrics, "splitMetrics is null");
        requireNonNull(connectorMetrics, "connectorMetrics is null");
    }

    public static QueryCounters run(DistributedQueryRunner queryRunner, Session session, String sql)
    {
        MaterializedResultWithPlan execution = queryRunner.executeWithPlan(session, sql);
        QueryInfo info = queryRunner.getCoordinator().getQueryManager().getFullQueryInfo(execution.queryId());
        Metrics splitMetrics = Metrics.EMPTY;
        for (StageInfo stage : StageInfo.getAllStages(info.getOutputStage())) {
            for (Metrics metrics : stage.getStageStats().getSplitSourceMetrics().values()) {
                splitMetrics = splitMetrics.mergeWith(metrics);
            }
        }
        Metrics connectorMetrics = Metrics.EMPTY;
        for (StageInfo stage : StageInfo.getAllStages(info.getOutputStage())) {
            for (OperatorStats operator : stage.getStageStats().getOperatorSummaries()) {
                connectorMetrics = connectorMetrics.mergeWith(operator.getConnectorMetrics());
            }
        }
        return new QueryCounters(execution.result(), info.getQueryStats().getPhysicalInputDataSize().toBytes(), splitMetrics, connectorMetrics);
    }

    /** The physical input without the Parquet footers raw reads fetched: what depends on the rows a query reads. */
    public long physicalInputBytesOfRows()
    {
        return physicalInputBytes - connectorMetric(STORAGE_FOOTER_BYTES_RECEIVED);
    }

    /** A page-source metric summed over all splits; 0 when no page source reported it. */
    public long connectorMetric(String name)
    {
        Metric<?> metric = connectorMetrics.getMetrics().get(name);
        return metric == null ? 0 : ((LongCount) metric).getTotal();
    }

    public long splitMetric(String name)
    {
        return ((LongCount) splitMetricOf(name)).getTotal();
    }

    /** The largest value of a split-source metric that reports a distribution (a peak). */
    public long splitMetricMax(String name)
    {
        return (long) ((TDigestHistogram) splitMetricOf(name)).getMax();
    }

    private Metric<?> splitMetricOf(String name)
    {
        Metric<?> metric = splitMetrics.getMetrics().get(name);
        if (metric == null) {
            throw new IllegalStateException("no split metric %s in %s".formatted(name, splitMetrics));
        }
        return metric;
    }
}
