package io.nsc.trino.split;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.client.StorageNodeLoad.Load;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A worker's second choice for an {@code auto} split that the coordinator planned as a raw read
 * while the join's dynamic filter was still to come (its wait for the filter ran out). The
 * engine starts reading a join's probe side when the join can take rows, which is when its build
 * side, and so the filter, is done: by then the filter usually stands. The split is then
 * estimated again as the coordinator would have, with the filter, from the row groups' stats it
 * carries, and read by a storage scan when that now sends fewer bytes: a join on a few keys (the
 * orders of TPC-H Q18's subquery, the parts of Q17) then sends the matching rows instead of
 * every chunk of the probe table.
 */
public final class LateDynamicFilter
{
    private LateDynamicFilter() {}

    /**
     * @param dynamicFilter the join's dynamic filter as it stands now, over the table's columns
     * @param load the load of the storage node the split's scan would go to
     */
    public static ScanMode mode(NscTableHandle handle, NscSplit split, TupleDomain<NscColumnHandle> dynamicFilter, Load load)
    {
        Optional<CompactFileStats> stats = split.decodedRowGroupStats();
        // an empty build side joins nothing: the engine ends the probe side itself
        if (split.mode() != ScanMode.RAW || stats.isEmpty() || dynamicFilter.isAll() || dynamicFilter.isNone()) {
            return split.mode();
        }
        List<Integer> rowGroups = IntStream.range(0, stats.get().rowGroupCount()).boxed().toList();
        return ScanModeChooser.choose(new SplitModeEstimator(handle, dynamicFilter).estimate(stats.get(), rowGroups), load);
    }
}
