package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * What a split of one scan would send in either mode ({@link ScanModeChooser}'s estimate), from
 * the scan's table handle and a join's dynamic filter: the coordinator's estimate when it plans
 * the split, and the worker's when the dynamic filter arrived after that.
 */
public final class SplitModeEstimator
{
    private final List<Integer> outputColumns;
    private final List<Integer> readColumns;
    private final List<ColumnPredicate> columnPredicates;
    private final boolean exact;
    private final OptionalLong rowBound;
    private final long requestBytes;

    public SplitModeEstimator(NscTableHandle handle, TupleDomain<NscColumnHandle> dynamicFilter)
    {
        requireNonNull(handle, "handle is null");
        requireNonNull(dynamicFilter, "dynamicFilter is null");
        this.outputColumns = outputColumns(handle);
        this.readColumns = readColumns(handle);
        TupleDomain<NscColumnHandle> scanPredicate = handle.constraint().intersect(dynamicFilter);
        PruningPredicate estimated = StatsPredicates.toPruningPredicate(scanPredicate);
        this.columnPredicates = estimated.columns();
        this.exact = estimated.fullyTranslated() && handle.filterExpressions().isEmpty();
        this.rowBound = rowBound(handle);
        this.requestBytes = requestBytes(scanPredicate);
    }

    public ScanModeChooser.Estimate estimate(CompactFileStats stats, List<Integer> rowGroups)
    {
        return ScanModeChooser.estimate(stats, rowGroups, readColumns, outputColumns, columnPredicates, exact, rowBound, requestBytes);
    }

    /** The columns a scan of the handle decodes either way, by ordinal: its output and its predicate's. */
    static List<Integer> readColumns(NscTableHandle handle)
    {
        Set<Integer> read = new TreeSet<>(outputColumns(handle));
        handle.constraint().getDomains().ifPresent(domains -> domains.keySet().forEach(column -> read.add(column.ordinal())));
        return ImmutableList.copyOf(read);
    }

    private static List<Integer> outputColumns(NscTableHandle handle)
    {
        return handle.projectedColumns().orElse(handle.columns()).stream()
                .map(NscColumnHandle::ordinal)
                .collect(toImmutableList());
    }

    /** Every split's scan request carries the whole predicate, the dynamic filter's values included. */
    private static long requestBytes(TupleDomain<NscColumnHandle> predicate)
    {
        return predicate.getDomains()
                .map(domains -> domains.values().stream().mapToLong(TupleDomainCodec::estimateEncodedBytes).sum())
                .orElse(0L);
    }

    /** The most rows a storage scan of one split returns, if bounded. */
    private static OptionalLong rowBound(NscTableHandle handle)
    {
        if (handle.limit().isPresent()) {
            return handle.limit();
        }
        return handle.topN().map(topN -> OptionalLong.of(topN.count())).orElse(OptionalLong.empty());
    }
}
