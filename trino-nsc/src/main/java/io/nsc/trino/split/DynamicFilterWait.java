package io.nsc.trino.split;

import io.nsc.trino.NscTableProperties;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableSummary;
import io.nsc.trino.metadata.TableSummary.ColumnSummary;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.DynamicFilter;

import java.util.List;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Whether split planning waits for a join's dynamic filter. Waiting lets the filter prune row
 * groups before any split exists, but it holds the probe side's splits back until the build side
 * is done and the filter has reached the coordinator, a delay every short query feels.
 * <p>
 * A filter prunes a row group only when none of its keys falls in the row group's range of the
 * column, or when the column's Bloom filters rule the keys out. Ranges are narrow where the files
 * are sorted by the column or were written in its order (each row group then covers a small
 * share of the column's whole range); where every row group covers most of it, a join's keys
 * fall in each one and waiting prunes nothing. Planning then starts at once, and the worker
 * chooses each split's mode with the filter as it stands when the split is read (the engine reads
 * a join's probe side once the build side is done: {@link LateDynamicFilter}).
 * <p>
 * Where a worker would wait for the filter, it saves at most the probe side's raw transfer: for a
 * small table that is a few milliseconds of link, while the wait keeps its scan from overlapping
 * the build side (TPC-H Q14's {@code part}, 1.4 MB, probed after a month of {@code lineitem}).
 */
public final class DynamicFilterWait
{
    // a row group covering at most a tenth of the column's range, on average: at least ten ranges apart
    static final double MAX_SPAN_SHARE = 0.1;

    private DynamicFilterWait() {}

    /**
     * @param summary the table version's summary (row groups' ranges per column), asked for only when a filter may
     * come, and once per covered column: the caller's supplier caches it
     * @param timeoutMillis the longest wait where waiting may prune
     */
    public static long waitMillis(NscTableHandle handle, DynamicFilter dynamicFilter, Supplier<TableSummary> summary, long timeoutMillis)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(dynamicFilter, "dynamicFilter is null");
        requireNonNull(summary, "summary is null");
        if (timeoutMillis <= 0 || !dynamicFilter.isAwaitable()) {
            return 0;
        }
        List<String> bloomFilterColumns = NscTableProperties.getBloomFilterColumns(NscTableProperties.fromStored(handle.schemaTableName().toString(), handle.properties()));
        for (ColumnHandle column : dynamicFilter.getColumnsCovered()) {
            // a filter on a computed value (a pushed-down projection) prunes nothing by stats
            if (column instanceof NscColumnHandle nscColumn && (bloomFilterColumns.contains(nscColumn.name()) || narrowRowGroups(summary.get(), nscColumn))) {
                return timeoutMillis;
            }
        }
        return 0;
    }

    /**
     * Whether a split planned raw before the join's filter waits for it on the worker (at most
     * the timeout) to choose its mode with it: only where the scan's columns hold at least
     * {@code minProbeBytes} in the table, compressed, which bounds what the filter could save.
     *
     * @param summary the table version's summary, asked for only when a filter may come
     */
    public static boolean workersAwait(NscTableHandle handle, DynamicFilter dynamicFilter, Supplier<TableSummary> summary, long timeoutMillis, long minProbeBytes)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(dynamicFilter, "dynamicFilter is null");
        requireNonNull(summary, "summary is null");
        if (timeoutMillis <= 0 || !dynamicFilter.isAwaitable()) {
            return false;
        }
        if (minProbeBytes <= 0) {
            return true;
        }
        List<ColumnSummary> columns = summary.get().columns();
        long readBytes = SplitModeEstimator.readColumns(handle).stream()
                .filter(ordinal -> ordinal < columns.size())
                .mapToLong(ordinal -> columns.get(ordinal).compressedBytes())
                .sum();
        return readBytes >= minProbeBytes;
    }

    private static boolean narrowRowGroups(TableSummary summary, NscColumnHandle column)
    {
        if (column.ordinal() >= summary.columns().size()) {
            return false;
        }
        ColumnSummary columnSummary = summary.columns().get(column.ordinal());
        return columnSummary.rowGroupSpanShare().isPresent() && columnSummary.rowGroupSpanShare().getAsDouble() <= MAX_SPAN_SHARE;
    }
}
