package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.stats.ColumnSketches;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.protocol.stats.StatsKeys;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.TrinoException;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.trino.NscErrorCode.NSC_CORRUPT_STATS;
import static java.util.Objects.requireNonNull;

/**
 * What table statistics and the aggregation-pushdown group bound need of a whole table version,
 * folded from every file's compact stats and column sketches one file at a time: the files
 * themselves are never all held. Per column it keeps a few counters and one merged sketch, so its
 * size depends on the table's columns, not on its files.
 *
 * @param columns by column ordinal
 * @param distinctCounts distinct non-null values per column (by ordinal), merged from the files'
 *         sketches; empty for every column when a file has none
 */
public record TableSummary(long rowCount, List<ColumnSummary> columns, List<OptionalLong> distinctCounts)
{
    public TableSummary
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        distinctCounts = ImmutableList.copyOf(requireNonNull(distinctCounts, "distinctCounts is null"));
        checkArgument(columns.size() == distinctCounts.size(), "%s columns, %s distinct counts", columns.size(), distinctCounts.size());
    }

    /**
     * @param nullCount empty when a row group did not record its nulls
     * @param compressedBytes the column's chunks in all row groups, as stored
     * @param minKey the least stats key of any row group with a value; empty when there is no
     *         value, or when a row group with values has no exact or floating-point bounds
     * @param rowGroupSpanShare how much of the column's whole range one row group's range covers,
     *         on average: near 1 when every row group holds values from all over the range, small
     *         when the files are sorted by the column or were written in its order; empty without a range
     */
    public record ColumnSummary(OptionalLong nullCount, long compressedBytes, OptionalLong minKey, OptionalLong maxKey, OptionalDouble rowGroupSpanShare)
    {
        public ColumnSummary
        {
            requireNonNull(nullCount, "nullCount is null");
            requireNonNull(minKey, "minKey is null");
            requireNonNull(maxKey, "maxKey is null");
            requireNonNull(rowGroupSpanShare, "rowGroupSpanShare is null");
            checkArgument(minKey.isPresent() == maxKey.isPresent(), "a range needs both ends");
            checkArgument(rowGroupSpanShare.isEmpty() || minKey.isPresent(), "a span share without a range");
        }
    }

    public static Builder builder(long tableId, int columnCount)
    {
        return new Builder(tableId, columnCount);
    }

    /** The fold: {@link #add} each file once, then {@link #build}. */
    public static final class Builder
    {
        private final long tableId;
        private final ColumnFold[] columns;
        private final ColumnSketches.Union sketches;
        private long rowCount;

        private Builder(long tableId, int columnCount)
        {
            this.tableId = tableId;
            this.columns = new ColumnFold[columnCount];
            for (int column = 0; column < columnCount; column++) {
                columns[column] = new ColumnFold();
            }
            this.sketches = new ColumnSketches.Union(columnCount);
        }

        public Builder add(FileEntry file)
        {
            rowCount += file.remainingRowCount();
            for (int column = 0; column < columns.length; column++) {
                columns[column].add(file, column);
            }
            try {
                sketches.add(file.columnSketches());
            }
            catch (IllegalArgumentException e) {
                throw new TrinoException(NSC_CORRUPT_STATS, "Column sketches of nsc file %s of table %s are malformed: %s".formatted(file.fileId(), tableId, e.getMessage()), e);
            }
            return this;
        }

        public TableSummary build()
        {
            ImmutableList.Builder<ColumnSummary> summaries = ImmutableList.builderWithExpectedSize(columns.length);
            for (ColumnFold column : columns) {
                summaries.add(column.summary());
            }
            return new TableSummary(rowCount, summaries.build(), sketches.distinctCounts());
        }
    }

    private static final class ColumnFold
    {
        private long nulls;
        private boolean nullsKnown = true;
        private long compressedBytes;
        private boolean rangeKnown = true;
        private boolean anyValue;
        private long min = Long.MAX_VALUE;
        private long max = Long.MIN_VALUE;
        // the row groups' ranges as values (a floating-point key is not its value), for the span share
        private double spanSum;
        private long spans;
        private double minValue = Double.POSITIVE_INFINITY;
        private double maxValue = Double.NEGATIVE_INFINITY;

        void add(FileEntry file, int column)
        {
            CompactFileStats stats = file.stats();
            KeyKind kind = stats.keyKind(column);
            for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                if (file.isRemoved(rowGroup)) {
                    continue;
                }
                long rows = stats.rowGroupRowCount(rowGroup);
                long nullCount = stats.nullCount(rowGroup, column);
                compressedBytes += stats.compressedSize(rowGroup, column);
                if (nullCount < 0) {
                    nullsKnown = false;
                }
                else {
                    nulls += nullCount;
                }
                if (rows == 0 || nullCount == rows) {
                    continue;
                }
                if (!stats.hasMinMax(rowGroup, column) || (kind != KeyKind.EXACT && kind != KeyKind.FLOATING)) {
                    rangeKnown = false;
                    continue;
                }
                anyValue = true;
                min = Math.min(min, stats.min(rowGroup, column));
                max = Math.max(max, stats.max(rowGroup, column));
                double low = value(kind, stats.min(rowGroup, column));
                double high = value(kind, stats.max(rowGroup, column));
                spanSum += high - low;
                spans++;
                minValue = Math.min(minValue, low);
                maxValue = Math.max(maxValue, high);
            }
        }

        private static double value(KeyKind kind, long key)
        {
            return kind == KeyKind.FLOATING ? StatsKeys.toDouble(key) : key;
        }

        private OptionalDouble spanShare()
        {
            double tableSpan = maxValue - minValue;
            if (spans == 0 || !Double.isFinite(tableSpan) || !Double.isFinite(spanSum)) {
                return OptionalDouble.empty();
            }
            // one value in the whole table: every row group holds all of it
            return OptionalDouble.of(tableSpan == 0 ? 1 : Math.min(1, spanSum / spans / tableSpan));
        }

        ColumnSummary summary()
        {
            boolean range = rangeKnown && anyValue;
            return new ColumnSummary(
                    nullsKnown ? OptionalLong.of(nulls) : OptionalLong.empty(),
                    compressedBytes,
                    range ? OptionalLong.of(min) : OptionalLong.empty(),
                    range ? OptionalLong.of(max) : OptionalLong.empty(),
                    range ? spanShare() : OptionalDouble.empty());
        }
    }
}
