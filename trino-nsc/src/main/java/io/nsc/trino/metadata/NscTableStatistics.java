package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.nsc.protocol.stats.StatsKeys;
import io.nsc.trino.metadata.TableSummary.ColumnSummary;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.DoubleRange;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Table statistics for the cost-based optimizer, from the table's {@link TableSummary}: row
 * count, nulls fraction, value range and data size summed from the compact stats of every file;
 * distinct counts merged from the files' column sketches (unknown when a file was loaded without
 * verification, which computes them).
 */
final class NscTableStatistics
{
    private NscTableStatistics() {}

    static TableStatistics compute(List<NscColumnHandle> columns, TableSummary summary)
    {
        long rowCount = summary.rowCount();
        ImmutableMap.Builder<ColumnHandle, ColumnStatistics> columnStatistics = ImmutableMap.builder();
        for (NscColumnHandle column : columns) {
            ColumnStatistics statistics = columnStatistics(column, summary.columns().get(column.ordinal()), rowCount);
            OptionalLong distinct = summary.distinctCounts().get(column.ordinal());
            if (distinct.isPresent()) {
                // an estimate: never more than the non-null rows
                double nonNullRows = rowCount * (1 - statistics.getNullsFraction().getValue());
                double bound = Double.isNaN(nonNullRows) ? rowCount : nonNullRows;
                statistics = ColumnStatistics.builder()
                        .setNullsFraction(statistics.getNullsFraction())
                        .setDataSize(statistics.getDataSize())
                        .setRange(statistics.getRange())
                        .setDistinctValuesCount(Estimate.of(Math.min(distinct.getAsLong(), bound)))
                        .build();
            }
            columnStatistics.put(column, statistics);
        }
        return new TableStatistics(Estimate.of(rowCount), columnStatistics.buildOrThrow());
    }

    private static ColumnStatistics columnStatistics(NscColumnHandle column, ColumnSummary summary, long rowCount)
    {
        ColumnStatistics.Builder builder = ColumnStatistics.builder();
        if (rowCount == 0) {
            return builder.setNullsFraction(Estimate.zero()).setDataSize(Estimate.zero()).build();
        }
        summary.nullCount().ifPresent(nulls -> builder.setNullsFraction(Estimate.of((double) nulls / rowCount)));
        if (column.type() instanceof VarcharType || column.type() instanceof VarbinaryType) {
            // compressed bytes under-estimate the decoded size, but are the only size footers carry per chunk
            builder.setDataSize(Estimate.of(summary.compressedBytes()));
        }
        if (summary.minKey().isPresent()) {
            Optional<Double> low = toStatsValue(column.type(), summary.minKey().getAsLong());
            Optional<Double> high = toStatsValue(column.type(), summary.maxKey().getAsLong());
            if (low.isPresent() && high.isPresent()) {
                builder.setRange(new DoubleRange(low.get(), high.get()));
            }
        }
        return builder.build();
    }

    /** The double Trino's optimizer uses to represent a value of the type, from an exact stats key. */
    private static Optional<Double> toStatsValue(Type type, long key)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _ -> Optional.of((double) key);
            case DecimalType decimal when decimal.isShort() -> Optional.of(key / Math.pow(10, decimal.getScale()));
            case RealType _, DoubleType _ -> Optional.of(StatsKeys.toDouble(key));
            case TimestampType timestamp when timestamp.isShort() -> Optional.of((double) key);
            default -> Optional.empty();
        };
    }
}
