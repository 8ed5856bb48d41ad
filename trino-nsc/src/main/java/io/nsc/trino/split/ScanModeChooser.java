package io.nsc.trino.split;

import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.predicate.KeyRange;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.StatsKeys;
import io.nsc.trino.client.StorageNodeLoad.Load;

import java.util.List;
import java.util.OptionalLong;

import static java.lang.Math.clamp;
import static java.lang.Math.min;
import static java.util.Objects.requireNonNull;

/**
 * The {@code auto} choice for one split: a storage-side scan when it is estimated to send no
 * more bytes than raw reads of the same row groups, and, when the node is saturated, only when
 * it sends clearly fewer (a saturated node would turn the saving into waiting).
 * <p>
 * Raw reads send the compressed chunks of every column the query reads, the predicate's
 * included. A scan sends the rows that pass, only the output columns, as compressed Trino pages,
 * estimated from the chunks' compressed sizes at the selectivity the row-group stats suggest,
 * and its request, which carries the predicate's values: a join's dynamic filter of many keys
 * can weigh more than the rows it saves.
 */
public final class ScanModeChooser
{
    // Trino pages compressed with LZ4 against Parquet's encodings compressed with ZSTD
    static final double PAGE_BYTES_PER_PARQUET_BYTE = 1.5;
    // the share of rows assumed to pass a column test the stats cannot estimate (strings, no stats)
    public static final double UNKNOWN_SELECTIVITY = 0.25;
    static final double SATURATED_MAX_BYTE_RATIO = 0.5;
    private static final long SCAN_OVERHEAD_BYTES = 256;

    public record Estimate(long rawBytes, long scanBytes) {}

    private ScanModeChooser() {}

    public static ScanMode choose(Estimate estimate, Load load)
    {
        double limit = load.saturated() ? estimate.rawBytes() * SATURATED_MAX_BYTE_RATIO : estimate.rawBytes();
        return estimate.scanBytes() <= limit ? ScanMode.FILTER : ScanMode.RAW;
    }

    /**
     * @param readColumns columns decoded either way (output and predicate columns), by ordinal
     * @param outputColumns columns the scan returns
     * @param predicate the enforced predicate as key ranges, if any
     * @param fullyTranslated whether the key ranges are the whole enforced predicate
     * @param requestBytes what the scan's request carries beyond its fixed fields (the predicate's values)
     */
    public static Estimate estimate(
            CompactFileStats stats,
            List<Integer> rowGroups,
            List<Integer> readColumns,
            List<Integer> outputColumns,
            List<ColumnPredicate> predicate,
            boolean fullyTranslated,
            OptionalLong limit,
            long requestBytes)
    {
        requireNonNull(limit, "limit is null");
        long rawBytes = 0;
        double scanBytes = SCAN_OVERHEAD_BYTES;
        double rowsReturned = 0;
        long rows = 0;
        double outputBytes = 0;
        for (int rowGroup : rowGroups) {
            for (int column : readColumns) {
                rawBytes += stats.compressedSize(rowGroup, column);
            }
            double selectivity = selectivity(stats, rowGroup, predicate) * (fullyTranslated ? 1 : UNKNOWN_SELECTIVITY);
            double rowGroupOutputBytes = 0;
            for (int column : outputColumns) {
                rowGroupOutputBytes += stats.compressedSize(rowGroup, column);
            }
            scanBytes += selectivity * rowGroupOutputBytes * PAGE_BYTES_PER_PARQUET_BYTE;
            rowsReturned += selectivity * stats.rowGroupRowCount(rowGroup);
            rows += stats.rowGroupRowCount(rowGroup);
            outputBytes += rowGroupOutputBytes;
        }
        if (limit.isPresent() && rowsReturned > limit.getAsLong() && rows > 0) {
            double bytesPerRow = outputBytes * PAGE_BYTES_PER_PARQUET_BYTE / rows;
            scanBytes = min(scanBytes, SCAN_OVERHEAD_BYTES + limit.getAsLong() * bytesPerRow);
        }
        return new Estimate(rawBytes, (long) scanBytes + requestBytes);
    }

    /** The share of a row group's rows the predicate keeps, assuming values spread evenly between min and max. */
    public static double selectivity(CompactFileStats stats, int rowGroup, List<ColumnPredicate> predicate)
    {
        double selectivity = 1;
        long rows = stats.rowGroupRowCount(rowGroup);
        for (ColumnPredicate column : predicate) {
            double nullShare = rows == 0 ? 0 : (double) stats.nullCount(rowGroup, column.column()) / rows;
            double valueShare = valueShare(stats, rowGroup, column);
            selectivity *= clamp((1 - nullShare) * valueShare + (column.nullAllowed() ? nullShare : 0), 0.0, 1.0);
        }
        return selectivity;
    }

    private static double valueShare(CompactFileStats stats, int rowGroup, ColumnPredicate column)
    {
        if (column.ranges().size() == 1 && column.ranges().getFirst().isAll()) {
            return 1;
        }
        if (column.ranges().isEmpty()) {
            return 0;
        }
        if (!stats.hasMinMax(rowGroup, column.column())) {
            return UNKNOWN_SELECTIVITY;
        }
        return switch (stats.keyKind(column.column())) {
            case EXACT -> exactKeyShare(stats.min(rowGroup, column.column()), stats.max(rowGroup, column.column()), column.ranges());
            case FLOATING -> floatingShare(stats.min(rowGroup, column.column()), stats.max(rowGroup, column.column()), column.ranges());
            case LOSSY, NONE -> UNKNOWN_SELECTIVITY;
        };
    }

    /** Keys that are the values (integers, dates, short decimals): a range covers its keys, an equality one key. */
    private static double exactKeyShare(double min, double max, List<KeyRange> ranges)
    {
        if (max < min) {
            return 1;
        }
        double covered = 0;
        for (KeyRange range : ranges) {
            double low = range.lowUnbounded() ? min : Math.max(min, range.low());
            double high = range.highUnbounded() ? max : min(max, range.high());
            // a single value (equality) covers one key, not a zero-width interval
            covered += high > low ? high - low : (high == low ? 1 : 0);
        }
        return clamp(covered / (max - min + 1), 0.0, 1.0);
    }

    /**
     * Keys of real and double values keep their order but not their distances: the share is
     * measured between the values themselves. An equality on a floating-point column says nothing
     * the range can weigh.
     */
    private static double floatingShare(long minKey, long maxKey, List<KeyRange> ranges)
    {
        double min = StatsKeys.toDouble(minKey);
        double max = StatsKeys.toDouble(maxKey);
        if (!(max > min)) {
            return ranges.stream().anyMatch(range -> (range.lowUnbounded() || range.low() <= minKey) && (range.highUnbounded() || range.high() >= minKey)) ? 1 : 0;
        }
        double covered = 0;
        for (KeyRange range : ranges) {
            double low = range.lowUnbounded() ? min : Math.max(min, StatsKeys.toDouble(range.low()));
            double high = range.highUnbounded() ? max : min(max, StatsKeys.toDouble(range.high()));
            if (!range.lowUnbounded() && !range.highUnbounded() && range.low() == range.high()) {
                return UNKNOWN_SELECTIVITY;
            }
            covered += Math.max(0, high - low);
        }
        return clamp(covered / (max - min), 0.0, 1.0);
    }
}
