package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableMap;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.PruningPredicate;
import io.nsc.trino.split.ScanModeChooser;
import io.nsc.trino.split.StatsPredicates;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.statistics.ColumnStatistics;
import io.trino.spi.statistics.DoubleRange;
import io.trino.spi.statistics.Estimate;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;

import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
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
        TupleDomain<NscColumnHandle> constraint = handle.constraintEnforced() ? handle.constraint() : TupleDomain.all();
        if (constraint.isNone()) {
            return apply(table, Map.of(), 0);
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
        if (handle.limit().isPresent()) {
            rows = min(rows, handle.limit().getAsLong());
        }
        return apply(table, predicate.columns().stream().collect(toImmutableMap(ColumnPredicate::column, column -> column)), rows);
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
            OptionalDouble values = domain.getValues().isDiscreteSet() ? OptionalDouble.of(domain.getValues().getDiscreteSet().size()) : OptionalDouble.empty();
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

    /**
     * The whole table's statistics scaled to the matching rows.
     *
     * @param predicate the enforced predicate's key ranges, by column ordinal
     */
    private static TableStatistics apply(TableStatistics table, Map<Integer, ColumnPredicate> predicate, double matchingRows)
    {
        double tableRows = table.getRowCount().getValue();
        double rows = min(tableRows, max(0, matchingRows));
        double share = tableRows == 0 ? 0 : rows / tableRows;
        ImmutableMap.Builder<ColumnHandle, ColumnStatistics> columns = ImmutableMap.builder();
        table.getColumnStatistics().forEach((column, statistics) -> {
            NscColumnHandle nscColumn = (NscColumnHandle) column;
            columns.put(column, constrain(statistics, Optional.ofNullable(predicate.get(nscColumn.ordinal())), nscColumn.type(), rows, share));
        });
        return new TableStatistics(Estimate.of(rows), columns.buildOrThrow());
    }

    private static ColumnStatistics constrain(ColumnStatistics statistics, Optional<ColumnPredicate> predicate, Type type, double rows, double share)
    {
        Estimate nullsFraction = statistics.getNullsFraction();
        if (predicate.isPresent() && !predicate.get().nullAllowed()) {
            nullsFraction = Estimate.zero();
        }
        Optional<DoubleRange> range = statistics.getRange();
        double valueShare = 1;
        if (predicate.isPresent() && range.isPresent()) {
            Optional<DoubleRange> span = span(predicate.get().ranges(), type);
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
            double bound = predicate.map(column -> min(nonNullRows, singleValues(column.ranges()))).orElse(nonNullRows);
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

    /** How many values the ranges allow when each is a single value; unbounded otherwise. */
    private static double singleValues(List<KeyRange> ranges)
    {
        boolean single = !ranges.isEmpty() && ranges.stream().allMatch(range -> !range.lowUnbounded() && !range.highUnbounded() && range.low() == range.high());
        return single ? ranges.size() : Double.POSITIVE_INFINITY;
    }

    /**
     * Lowest and highest value the key ranges allow, as the doubles Trino's statistics use (as
     * {@link NscTableStatistics} reports a column's range); empty where the type's keys are not its values.
     */
    private static Optional<DoubleRange> span(List<KeyRange> ranges, Type type)
    {
        if (ranges.isEmpty() || (ranges.getFirst().lowUnbounded() && ranges.getLast().highUnbounded())) {
            return Optional.empty();
        }
        KeyRange first = ranges.getFirst();
        KeyRange last = ranges.getLast();
        Optional<Double> low = first.lowUnbounded() ? Optional.of(Double.NEGATIVE_INFINITY) : NscTableStatistics.toStatsValue(type, first.low());
        Optional<Double> high = last.highUnbounded() ? Optional.of(Double.POSITIVE_INFINITY) : NscTableStatistics.toStatsValue(type, last.high());
        return low.isPresent() && high.isPresent() ? Optional.of(new DoubleRange(low.get(), high.get())) : Optional.empty();
    }
}
