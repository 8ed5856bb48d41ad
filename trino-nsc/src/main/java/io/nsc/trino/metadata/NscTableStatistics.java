package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.nsc.protocol.proto.AnalyzedColumn;
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
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Table statistics for the cost-based optimizer, from the table's {@link TableSummary}: row
 * count, nulls fraction, value range and data size summed from the compact stats of every file;
 * distinct counts from ANALYZE, or merged from the files' column sketches (unknown when a file was
 * loaded without verification, which computes them).
 *
 * <p>Which distinct count a column of version v gets, when ANALYZE computed one at version A:
 * <ul>
 * <li>A = v: ANALYZE's, which counted exactly these rows;
 * <li>A &lt; v (writes since): the sketches' when every file of v has them (they describe v);
 *     otherwise ANALYZE's, scaled by the growth of the column's non-null values when the column
 *     was (nearly) unique then (at least {@value #UNIQUE_SHARE} of its values distinct: a key,
 *     whose new rows bring new values), kept as it was otherwise;
 * <li>A &gt; v (time travel to before the analysis): the sketches', as without ANALYZE.
 * </ul>
 * Whichever it is, never more than the column's non-null rows of v.
 */
final class NscTableStatistics
{
    /** A column at least this share of whose values were distinct when analyzed counts as a key. */
    static final double UNIQUE_SHARE = 0.9;

    private NscTableStatistics() {}

    /**
     * @param version the table version the summary is of
     * @param analyzed what ANALYZE stored, by column ordinal
     */
    static TableStatistics compute(List<NscColumnHandle> columns, TableSummary summary, long version, Map<Integer, AnalyzedColumn> analyzed)
    {
        long rowCount = summary.rowCount();
        ImmutableMap.Builder<ColumnHandle, ColumnStatistics> columnStatistics = ImmutableMap.builder();
        for (NscColumnHandle column : columns) {
            ColumnStatistics statistics = columnStatistics(column, summary.columns().get(column.ordinal()), rowCount);
            double nonNullRows = rowCount * (1 - statistics.getNullsFraction().getValue());
            double bound = Double.isNaN(nonNullRows) ? rowCount : nonNullRows;
            OptionalDouble distinct = distinctCount(summary.distinctCounts().get(column.ordinal()), Optional.ofNullable(analyzed.get(column.ordinal())), version, bound);
            if (distinct.isPresent()) {
                // an estimate: never more than the non-null rows
                statistics = ColumnStatistics.builder()
                        .setNullsFraction(statistics.getNullsFraction())
                        .setDataSize(statistics.getDataSize())
                        .setRange(statistics.getRange())
                        .setDistinctValuesCount(Estimate.of(Math.min(distinct.getAsDouble(), bound)))
                        .build();
            }
            columnStatistics.put(column, statistics);
        }
        return new TableStatistics(Estimate.of(rowCount), columnStatistics.buildOrThrow());
    }

    /** The policy of the class comment, before the bound by non-null rows. */
    static OptionalDouble distinctCount(OptionalLong sketched, Optional<AnalyzedColumn> analyzed, long version, double nonNullRows)
    {
        if (analyzed.isEmpty() || analyzed.get().getAnalyzedVersion() > version) {
            return sketched.isPresent() ? OptionalDouble.of(sketched.getAsLong()) : OptionalDouble.empty();
        }
        AnalyzedColumn column = analyzed.get();
        if (column.getAnalyzedVersion() == version) {
            return OptionalDouble.of(column.getDistinctCount());
        }
        if (sketched.isPresent()) {
            return OptionalDouble.of(sketched.getAsLong());
        }
        if (column.getNonNullCount() > 0 && column.getDistinctCount() >= UNIQUE_SHARE * column.getNonNullCount()) {
            return OptionalDouble.of(column.getDistinctCount() * nonNullRows / column.getNonNullCount());
        }
        return OptionalDouble.of(column.getDistinctCount());
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
    static Optional<Double> toStatsValue(Type type, long key)
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
