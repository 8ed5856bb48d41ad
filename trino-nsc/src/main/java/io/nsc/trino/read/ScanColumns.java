package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.trino.metadata.NscColumnHandle;
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
 * then the columns only the predicate reads. The predicate is keyed by position in that list.
 */
record ScanColumns(List<FileColumn> columns, int outputCount, TupleDomain<Integer> predicate)
{
    ScanColumns
    {
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(predicate, "predicate is null");
    }

    static ScanColumns create(List<NscColumnHandle> outputColumns, TupleDomain<NscColumnHandle> predicate)
    {
        List<NscColumnHandle> columns = new ArrayList<>(outputColumns);
        if (predicate.isNone()) {
            return new ScanColumns(toFileColumns(columns), outputColumns.size(), TupleDomain.none());
        }
        ImmutableMap.Builder<Integer, Domain> domains = ImmutableMap.builder();
        for (Map.Entry<NscColumnHandle, Domain> entry : predicate.getDomains().orElseThrow().entrySet()) {
            int index = columns.indexOf(entry.getKey());
            if (index < 0) {
                index = columns.size();
                columns.add(entry.getKey());
            }
            domains.put(index, entry.getValue());
        }
        return new ScanColumns(toFileColumns(columns), outputColumns.size(), TupleDomain.withColumnDomains(domains.buildOrThrow()));
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
