package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.PruningPredicate;
import io.nsc.trino.split.ScanModeChooser;
import io.nsc.trino.split.StatsPredicates;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
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
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * The statistics of what a scan returns when its handle enforces the query's predicate. Trino
 * then keeps no filter of its own above the scan (the connector applies it), so it estimates the
 * joins and aggregations above from these statistics alone: given the whole table's, the
 * optimizer would plan a join over a few matching orders as if it read all of them (a
 * partitioned join instead of a broadcast, or another join order).
 * <p>
 * The matching rows are estimated row group by row group from the files' compact stats, as the
 * split planner estimates what a storage scan sends: a row group the stats rule out counts no
 * row, one they keep counts the share of its value range the predicate covers; a column without
 * exact stats keys counts a fixed share, a filter expression Trino's own default for a filter it
 * cannot analyse. Column statistics follow: a filtered column's range narrows to the predicate,
 * its nulls go where the predicate excludes them, and no column has more distinct values than
 * rows.
 */
final class ConstrainedTableStatistics
{
    // what Trino's optimizer assumes of a filter it cannot analyse
    static final double UNKNOWN_FILTER_COEFFICIENT = 0.9;

    private ConstrainedTableStatistics() {}

    /** Whether the scan's statistics are the whole table's: nothing it returns is filtered by the connector. */
    static boolean unconstrained(NscTableHandle handle)
    {
        boolean filtered = handle.constraintEnforced() && !handle.constraint().isAll();
        return !filtered && handle.filterExpressions().isEmpty() && handle.limit().isEmpty();
    }

    /**
     * The statistics of the rows of {@code files} (the handle's table version) that pass the
     * handle's enforced constraint and filter expressions, at most its limit.
     *
     * @param table the whole table's statistics
     */
    static TableStatistics constrain(TableStatistics table, NscTableHandle handle, Iterator<List<FileEntry>> files)
    {
        requireNonNull(handle, "handle is null");
        if (table.getRowCount().isUnknown()) {
            return table;
        }
        return apply(table, handle, matchingRows(table, handle, files));
    }

    private static double matchingRows(TableStatistics table, NscTableHandle handle, Iterator<List<FileEntry>> files)
    {
        TupleDomain<NscColumnHandle> constraint = handle.constraintEnforced() ? handle.constraint() : TupleDomain.all();
        if (constraint.isNone()) {
            return 0;
        }
        PruningPredicate predicate = StatsPredicates.toPruningPredicate(constraint);
        Map<Integer, Double> inexactShares = inexactShares(table, constraint);
        double rows = 0;
        while (files.hasNext()) {
            for (FileEntry file : files.next()) {
                rows += matchingRows(file, predicate.columns(), inexactShares);
            }
        }
        if (!predicate.fullyTranslated()) {
            rows *= UNKNOWN_FILTER_COEFFICIENT;
        }
        rows *= Math.pow(UNKNOWN_FILTER_COEFFICIENT, handle.filterExpressions().size());
        return handle.limit().isPresent() ? min(rows, handle.limit().getAsLong()) : rows;
    }

    /**
     * Where a column's stats keys are lossy (strings: a prefix), a row group's range says little
     * about how many rows hold a value: the share of rows then comes from the table's distinct
     * values, for a predicate of single values, by column ordinal.
     */
    private static Map<Integer, Double> inexactShares(TableStatistics table, TupleDomain<NscColumnHandle> constraint)
    {
        ImmutableMap.Builder<Integer, Double> shares = ImmutableMap.builder();
        constraint.getDomains().orElseThrow().forEach((column, domain) -> {
            OptionalDouble values = discreteValues(Optional.of(domain));
            Estimate distinct = Optional.ofNullable(table.getColumnStatistics().get(column))
                    .map(ColumnStatistics::getDistinctValuesCount)
                    .orElse(Estimate.unknown());
            double share = values.isPresent() && !distinct.isUnknown() && distinct.getValue() > 0
                    ? min(1, values.getAsDouble() / distinct.getValue())
                    : ScanModeChooser.UNKNOWN_SELECTIVITY;
            shares.put(column.ordinal(), share);
        });
        return shares.buildOrThrow();
    }

    private static double matchingRows(FileEntry file, List<ColumnPredicate> predicate, Map<Integer, Double> inexactShares)
    {
        CompactFileStats stats = file.stats();
        Set<Integer> removed = new HashSet<>(file.removedRowGroups());
        double rows = 0;
        for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
            if (removed.contains(rowGroup)) {
                continue;
            }
            double share = 1;
            for (ColumnPredicate column : predicate) {
                KeyKind kind = stats.keyKind(column.column());
                boolean ordered = (kind == KeyKind.EXACT || kind == KeyKind.FLOATING) && stats.hasMinMax(rowGroup, column.column());
                share *= ordered || column.ranges().isEmpty()
                        ? ScanModeChooser.selectivity(stats, rowGroup, List.of(column))
                        : inexactShares.getOrDefault(column.column(), ScanModeChooser.UNKNOWN_SELECTIVITY);
            }
            rows += stats.rowGroupRowCount(rowGroup) * share;
        }
        return rows;
    }

    private static TableStatistics apply(TableStatistics table, NscTableHandle handle, double matchingRows)
    {
        double tableRows = table.getRowCount().getValue();
        double rows = min(tableRows, max(0, matchingRows));
        double share = tableRows == 0 ? 0 : rows / tableRows;
        Map<NscColumnHandle, Domain> domains = handle.constraintEnforced()
                ? handle.constraint().getDomains().orElse(Map.of())
                : Map.of();
        ImmutableMap.Builder<ColumnHandle, ColumnStatistics> columns = ImmutableMap.builder();
        table.getColumnStatistics().forEach((column, statistics) ->
                columns.put(column, constrain(statistics, Optional.ofNullable(domains.get(column)), ((NscColumnHandle) column).type(), rows, share)));
        return new TableStatistics(Estimate.of(rows), columns.buildOrThrow());
    }

    private static ColumnStatistics constrain(ColumnStatistics statistics, Optional<Domain> domain, Type type, double rows, double share)
    {
        Estimate nullsFraction = statistics.getNullsFraction();
        if (domain.isPresent() && !domain.get().isNullAllowed()) {
            nullsFraction = Estimate.zero();
        }
        Optional<DoubleRange> range = statistics.getRange();
        double valueShare = 1;
        if (domain.isPresent() && range.isPresent()) {
            Optional<DoubleRange> span = span(domain.get(), type);
            if (span.isPresent()) {
                DoubleRange before = range.get();
                double low = max(before.getMin(), span.get().getMin());
                double high = min(before.getMax(), span.get().getMax());
                range = low <= high ? Optional.of(new DoubleRange(low, high)) : Optional.empty();
                double width = before.getMax() - before.getMin();
                valueShare = width > 0 && low <= high ? (high - low) / width : (low <= high ? 1 : 0);
            }
        }
        double nonNullRows = rows * (nullsFraction.isUnknown() ? 1 : 1 - nullsFraction.getValue());
        Estimate distinct = statistics.getDistinctValuesCount();
        if (!distinct.isUnknown()) {
            double bound = nonNullRows;
            OptionalDouble values = discreteValues(domain);
            if (values.isPresent()) {
                bound = min(bound, values.getAsDouble());
            }
            distinct = Estimate.of(min(distinct.getValue() * valueShare, bound));
        }
        Estimate dataSize = statistics.getDataSize().isUnknown() ? statistics.getDataSize() : Estimate.of(statistics.getDataSize().getValue() * share);
        ColumnStatistics.Builder builder = ColumnStatistics.builder()
                .setNullsFraction(nullsFraction)
                .setDistinctValuesCount(distinct)
                .setDataSize(dataSize);
        range.ifPresent(builder::setRange);
        return builder.build();
    }

    /** The number of values a domain of single values allows. */
    private static OptionalDouble discreteValues(Optional<Domain> domain)
    {
        if (domain.isEmpty() || domain.get().isAll() || domain.get().getValues().isAll() || !domain.get().getValues().isDiscreteSet()) {
            return OptionalDouble.empty();
        }
        return OptionalDouble.of(domain.get().getValues().getDiscreteSet().size());
    }

    /** Lowest and highest value the domain allows, as the doubles Trino's statistics use; empty for unbounded or unordered types. */
    private static Optional<DoubleRange> span(Domain domain, Type type)
    {
        if (domain.getValues().isNone() || domain.getValues().isAll() || !type.isOrderable()) {
            return Optional.empty();
        }
        Range span;
        try {
            span = domain.getValues().getRanges().getSpan();
        }
        catch (UnsupportedOperationException e) {
            return Optional.empty();
        }
        double low = span.isLowUnbounded() ? Double.NEGATIVE_INFINITY : toStatsDouble(type, span.getLowBoundedValue()).orElse(Double.NEGATIVE_INFINITY);
        double high = span.isHighUnbounded() ? Double.POSITIVE_INFINITY : toStatsDouble(type, span.getHighBoundedValue()).orElse(Double.POSITIVE_INFINITY);
        return Optional.of(new DoubleRange(low, high));
    }

    private static OptionalDouble toStatsDouble(Type type, Object value)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _ -> OptionalDouble.of(((Long) value).doubleValue());
            case DecimalType decimal when decimal.isShort() -> OptionalDouble.of((Long) value / Math.pow(10, decimal.getScale()));
            case DoubleType _ -> OptionalDouble.of((Double) value);
            case RealType _ -> OptionalDouble.of(Float.intBitsToFloat(((Long) value).intValue()));
            default -> OptionalDouble.empty();
        };
    }
}
