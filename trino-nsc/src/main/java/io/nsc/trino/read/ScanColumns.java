package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.metadata.FilterExpressions;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscComputedColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * The channels of a filtered scan: the table columns it decodes (the query's output columns
 * first, in the engine's order, then the columns only computed values and filters read), then,
 * for a DELETE's scan, each row's position in its file (what its {@link NscRowIdColumnHandle row
 * id} is made of), then the values it computes from them. The predicate, the filter expressions
 * and the computed values are keyed by channel; the output is a list of channels in the engine's
 * order.
 */
record ScanColumns(List<FileColumn> columns, List<ValueExpression> computed, int[] outputChannels, TupleDomain<Integer> predicate, List<RowExpression> expressions)
{
    ScanColumns
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        computed = ImmutableList.copyOf(requireNonNull(computed, "computed is null"));
        outputChannels = outputChannels.clone();
        requireNonNull(predicate, "predicate is null");
        expressions = ImmutableList.copyOf(requireNonNull(expressions, "expressions is null"));
    }

    /**
     * @param outputs table columns, computed values ({@link NscComputedColumnHandle}) and row ids, in the engine's order
     * @param handle the table whose filter expressions (over column ordinals) apply too
     */
    static ScanColumns create(List<? extends ColumnHandle> outputs, TupleDomain<NscColumnHandle> predicate, NscTableHandle handle)
    {
        List<NscColumnHandle> columns = new ArrayList<>();
        for (ColumnHandle output : outputs) {
            if (output instanceof NscColumnHandle column && !columns.contains(column)) {
                columns.add(column);
            }
        }
        // computed values read the decoded columns; their channels follow the columns'
        List<ValueExpression> byOrdinal = outputs.stream()
                .filter(NscComputedColumnHandle.class::isInstance)
                .map(NscComputedColumnHandle.class::cast)
                .distinct()
                .map(NscComputedColumnHandle::value)
                .collect(toImmutableList());
        List<ValueExpression> computed = new ArrayList<>();
        for (ValueExpression value : byOrdinal) {
            computed.add(value.remap(ordinal -> channel(columns, NscColumnHandle.byOrdinal(handle.columns(), ordinal))));
        }
        List<RowExpression> expressions = new ArrayList<>();
        if (handle.constraintEnforced()) {
            for (String serialized : handle.filterExpressions()) {
                RowExpression expression = FilterExpressions.deserialize(serialized, handle.columns());
                expressions.add(expression.remap(ordinal -> channel(columns, NscColumnHandle.byOrdinal(handle.columns(), ordinal))));
            }
        }
        TupleDomain<Integer> channelPredicate = TupleDomain.none();
        if (!predicate.isNone()) {
            ImmutableMap.Builder<Integer, Domain> domains = ImmutableMap.builder();
            for (Map.Entry<NscColumnHandle, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
                domains.put(channel(columns, entry.getKey()), entry.getValue());
            }
            channelPredicate = TupleDomain.withColumnDomains(domains.buildOrThrow());
        }
        boolean rowPositions = outputs.stream().anyMatch(NscRowIdColumnHandle.class::isInstance);
        int rowPositionChannel = columns.size();
        int firstComputedChannel = columns.size() + (rowPositions ? 1 : 0);
        int[] outputChannels = new int[outputs.size()];
        for (int i = 0; i < outputs.size(); i++) {
            outputChannels[i] = switch (outputs.get(i)) {
                case NscColumnHandle column -> columns.indexOf(column);
                // the positions: the page source turns them into row ids
                case NscRowIdColumnHandle _ -> rowPositionChannel;
                case NscComputedColumnHandle value -> firstComputedChannel + byOrdinal.indexOf(value.value());
                default -> throw new IllegalArgumentException("not a column of an nsc scan: " + outputs.get(i));
            };
        }
        List<FileColumn> fileColumns = toFileColumns(columns);
        if (rowPositions) {
            fileColumns = ImmutableList.<FileColumn>builder().addAll(fileColumns).add(FileColumn.rowPosition()).build();
        }
        return new ScanColumns(fileColumns, computed, outputChannels, channelPredicate, expressions);
    }

    /** The column's channel, adding it (as a column only filters or computed values read) when it is not there yet. */
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

    /**
     * A constraint the engine applies after the read, on the columns this scan decodes anyway, by
     * channel: what a reader may skip pages by without filtering rows itself (a row the engine
     * would drop need not be read). Domains on columns the scan does not decode are left out.
     */
    TupleDomain<Integer> onDecodedColumns(TupleDomain<NscColumnHandle> constraint)
    {
        if (constraint.isNone()) {
            return TupleDomain.none();
        }
        ImmutableMap.Builder<Integer, Domain> domains = ImmutableMap.builder();
        constraint.getDomains().orElseThrow().forEach((column, domain) -> {
            for (int channel = 0; channel < columns.size(); channel++) {
                FileColumn decoded = columns.get(channel);
                if (!decoded.isRowPosition() && decoded.ordinal() == column.ordinal() && decoded.type().equals(column.type())) {
                    domains.put(channel, domain);
                    return;
                }
            }
        });
        return TupleDomain.withColumnDomains(domains.buildOrThrow());
    }

    /** Whether the output is exactly the decoded columns, in order: nothing to filter, compute or drop. */
    boolean decodesOutputOnly()
    {
        if (filters() || !computed.isEmpty() || outputChannels.length != columns.size()) {
            return false;
        }
        for (int i = 0; i < outputChannels.length; i++) {
            if (outputChannels[i] != i) {
                return false;
            }
        }
        return true;
    }

    private static List<FileColumn> toFileColumns(List<NscColumnHandle> columns)
    {
        return columns.stream()
                .map(column -> new FileColumn(column.ordinal(), column.type()))
                .collect(toImmutableList());
    }

    /** The types of the channels: the columns' (the row positions' too), then the computed values'. */
    List<Type> types()
    {
        return ImmutableList.<Type>builder()
                .addAll(columns.stream().map(FileColumn::type).iterator())
                .addAll(computed.stream().map(ValueExpression::type).iterator())
                .build();
    }

    @Override
    public int[] outputChannels()
    {
        return outputChannels.clone();
    }
}
