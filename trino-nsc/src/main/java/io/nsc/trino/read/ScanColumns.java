package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.trino.metadata.FilterExpressions;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * The columns a filtered scan decodes: the query's output columns first, in the engine's order,
 * then the columns only the filters read. The predicate and the filter expressions are keyed by
 * position in that list (the scan's channels).
 */
record ScanColumns(List<FileColumn> columns, int outputCount, TupleDomain<Integer> predicate, List<RowExpression> expressions)
{
    ScanColumns
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(predicate, "predicate is null");
        expressions = ImmutableList.copyOf(requireNonNull(expressions, "expressions is null"));
    }

    /**
     * @param handle the table whose filter expressions (over column ordinals) apply too
     */
    static ScanColumns create(List<NscColumnHandle> outputColumns, TupleDomain<NscColumnHandle> predicate, NscTableHandle handle)
    {
        List<NscColumnHandle> columns = new ArrayList<>(outputColumns);
        List<RowExpression> byOrdinal = handle.constraintEnforced()
                ? handle.filterExpressions().stream().map(expression -> FilterExpressions.deserialize(expression, handle.columns())).collect(toImmutableList())
                : List.of();
        List<RowExpression> expressions = new ArrayList<>();
        for (RowExpression expression : byOrdinal) {
            expressions.add(expression.remap(ordinal -> channel(columns, NscColumnHandle.byOrdinal(handle.columns(), ordinal))));
        }
        if (predicate.isNone()) {
            return new ScanColumns(toFileColumns(columns), outputColumns.size(), TupleDomain.none(), expressions);
        }
        ImmutableMap.Builder<Integer, Domain> domains = ImmutableMap.builder();
        for (Map.Entry<NscColumnHandle, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
            domains.put(channel(columns, entry.getKey()), entry.getValue());
        }
        return new ScanColumns(toFileColumns(columns), outputColumns.size(), TupleDomain.withColumnDomains(domains.buildOrThrow()), expressions);
    }

    /** The column's channel, adding it (as a column only filters read) when it is not there yet. */
    private static int channel(List<NscColumnHandle> columns, NscColumnHandle column)
    {
        int index = columns.indexOf(column);
        if (index < 0) {
            index = columns.size();
            columns.add(column);
        }
        return index;
    }

    boolean filters()
    {
        return !predicate.isAll() || !expressions.isEmpty();
    }

    private static List<FileColumn> toFileColumns(List<NscColumnHandle> columns)
    {
        return columns.stream()
                .map(column -> new FileColumn(column.ordinal(), column.type()))
                .collect(toImmutableList());
    }

    List<Type> types()
    {
        return columns.stream().map(FileColumn::type).collect(toImmutableList());
    }

    int[] outputChannels()
    {
        int[] channels = new int[outputCount];
        for (int channel = 0; channel < outputCount; channel++) {
            channels[channel] = channel;
        }
        return channels;
    }
}
