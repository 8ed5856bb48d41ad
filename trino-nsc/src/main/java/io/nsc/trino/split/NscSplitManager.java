package io.nsc.trino.split;

import com.google.common.base.Suppliers;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFilesCache;
import io.nsc.trino.metadata.TableSummary;
import io.nsc.trino.optimize.CompactionCandidates;
import io.nsc.trino.optimize.OptimizeSplitSource;
import io.nsc.trino.split.SplitPlanning.Preparation;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import static io.nsc.trino.NscSessionProperties.getDynamicFilteringMinProbeSize;
import static io.nsc.trino.NscSessionProperties.getDynamicFilteringProbeWaitTimeout;
import static io.nsc.trino.NscSessionProperties.getDynamicFilteringWaitTimeout;
import static io.nsc.trino.NscSessionProperties.getPushdown;
import static io.nsc.trino.NscSessionProperties.isStatsPruningEnabled;
import static java.util.Objects.requireNonNull;

/**
 * Wires a scan's split source: which files (the table version the query planned, a batch at a
 * time) and how they are planned (see {@link ScanPlanner}).
 */
public class NscSplitManager
        implements ConnectorSplitManager
{
    private final TableFilesCache tableFilesCache;
    private final StorageNodeLoad nodeLoad;
    private final RowGroupPlanner planner;

    @Inject
    public NscSplitManager(TableFilesCache tableFilesCache, StorageNodeLoad nodeLoad, NscConfig config)
    {
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
        this.nodeLoad = requireNonNull(nodeLoad, "nodeLoad is null");
        this.planner = new RowGroupPlanner(config.getTargetSplitSize().toBytes());
    }

    @Override
    public ConnectorSplitSource getSplits(
            ConnectorTransactionHandle transaction,
            ConnectorSession session,
            ConnectorTableHandle table,
            DynamicFilter dynamicFilter,
            Constraint constraint)
    {
        NscTableHandle handle = (NscTableHandle) table;
        if (handle.optimizeFileSizeThreshold().isPresent()) {
            return optimizeSplits(handle, handle.optimizeFileSizeThreshold().getAsLong());
        }
        Supplier<TableFileBatches> files = () -> tableFilesCache.fileBatches(handle);
        PushdownMode pushdown = getPushdown(session);
        if (pushdown == PushdownMode.NONE) {
            // the baseline ships every row group
            return new NscSplitSource(files, (_, _, _) -> Optional.of(Preparation.ready(batch -> planner.plan(batch, Optional.empty()))), handle.aggregation(), DynamicFilter.EMPTY, 0);
        }
        TupleDomain<NscColumnHandle> predicate = handle.constraint()
                .intersect(NscColumnHandle.ofTableColumns(constraint.getSummary()));
        if (predicate.isNone()) {
            // no row can match: no file need be read (a pushed-down aggregation still gets its one split, of no part)
            return new NscSplitSource(files, (_, _, _) -> Optional.empty(), handle.aggregation(), DynamicFilter.EMPTY, 0);
        }
        Optional<PruningPredicate> pruningPredicate = isStatsPruningEnabled(session) ? Optional.of(StatsPredicates.toPruningPredicate(predicate)) : Optional.empty();
        Supplier<TableSummary> summary = Suppliers.memoize(() -> tableFilesCache.summary(handle));
        boolean workersAwait = DynamicFilterWait.workersAwait(handle, dynamicFilter, summary, getDynamicFilteringProbeWaitTimeout(session).toMillis(), getDynamicFilteringMinProbeSize(session).toBytes());
        ScanPlanner scan = new ScanPlanner(handle, pushdown, pruningPredicate, planner, nodeLoad, workersAwait);
        long waitMillis = DynamicFilterWait.waitMillis(handle, dynamicFilter, summary, getDynamicFilteringWaitTimeout(session).toMillis());
        return new NscSplitSource(files, scan, handle.aggregation(), dynamicFilter, waitMillis);
    }

    /**
     * An OPTIMIZE's scan: every remaining row group of the files it rewrites, raw (decoded by the
     * workers that write them again), and nothing of the other files; it reports the files it
     * listed. A constraint of none is an OPTIMIZE with nothing to do.
     */
    private ConnectorSplitSource optimizeSplits(NscTableHandle handle, long fileSizeThreshold)
    {
        Set<String> listed = ConcurrentHashMap.newKeySet();
        Supplier<TableFileBatches> files = handle.constraint().isNone()
                ? TableFileBatches::none
                : () -> CompactionCandidates.filter(tableFilesCache.fileBatches(handle), fileSizeThreshold, listed::add);
        NscSplitSource splits = new NscSplitSource(files, (_, _, _) -> Optional.of(Preparation.ready(batch -> planner.plan(batch, Optional.empty()))), Optional.empty(), DynamicFilter.EMPTY, 0);
        return new OptimizeSplitSource(splits, listed);
    }
}
