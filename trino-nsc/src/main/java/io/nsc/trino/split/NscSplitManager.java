package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.nsc.protocol.predicate.ColumnPredicate;
import io.nsc.trino.NscConfig;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.metadata.TableFiles;
import io.nsc.trino.metadata.TableFilesCache;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.nsc.trino.NscSessionProperties.getDynamicFilteringWaitTimeout;
import static io.nsc.trino.NscSessionProperties.getPushdown;
import static io.nsc.trino.NscSessionProperties.isStatsPruningEnabled;
import static java.util.Objects.requireNonNull;

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
        TableFiles files = tableFilesCache.get(handle);
        PushdownMode pushdown = getPushdown(session);
        // an aggregated scan is one split that merges every part's partial states, even of no part
        Function<RowGroupPlanner.Plan, List<? extends ConnectorSplit>> packer = handle.aggregation().isPresent()
                ? planned -> List.of(new NscAggregationSplit(planned.splits(), planned.statsAnswer()))
                : RowGroupPlanner.Plan::splits;
        if (pushdown == PushdownMode.NONE) {
            // the baseline ships every row group
            return NscSplitSource.of(planner.plan(files, Optional.empty()), packer);
        }
        TupleDomain<NscColumnHandle> predicate = handle.constraint()
                .intersect(NscColumnHandle.ofTableColumns(constraint.getSummary()));
        if (predicate.isNone()) {
            return NscSplitSource.of(RowGroupPlanner.Plan.empty(totalRowGroups(files)), packer);
        }
        boolean pruning = isStatsPruningEnabled(session);
        Optional<PruningPredicate> pruningPredicate = pruning ? Optional.of(StatsPredicates.toPruningPredicate(predicate)) : Optional.empty();
        Function<TupleDomain<ColumnHandle>, RowGroupPlanner.Plan> plan = dynamicPredicate -> {
            TupleDomain<NscColumnHandle> dynamic = NscColumnHandle.ofTableColumns(dynamicPredicate);
            if (dynamic.isNone() || handle.constraint().intersect(dynamic).isNone()) {
                // the join's build side is empty: nothing here can join with it
                return RowGroupPlanner.Plan.empty(totalRowGroups(files));
            }
            Optional<PruningPredicate> dynamicPruning = pruning && !dynamic.isAll() ? Optional.of(StatsPredicates.toPruningPredicate(dynamic)) : Optional.empty();
            RowGroupPlanner.Plan planned = planner.plan(files, pruningPredicate, dynamicPruning);
            planned = planned.withSplits(chooseModes(planned.splits(), files, handle, pushdown, dynamic));
            Optional<PruningPredicate> enforced = handle.constraint().isAll() ? Optional.empty() : Optional.of(StatsPredicates.toPruningPredicate(handle.constraint()));
            // both need to know which row groups match entirely, which filter expressions hide
            boolean statsKnowMatches = pruning && dynamic.isAll() && handle.filterExpressions().isEmpty();
            if (statsKnowMatches && handle.topN().isPresent() && (handle.constraintEnforced() || handle.constraint().isAll())) {
                TopNBound.Result bounded = TopNBound.prune(handle.topN().get(), handle.topN().get().order().getFirst().column().ordinal(), files, planned.splits(), enforced);
                planned = planned.withTopNPruning(bounded.splits(), bounded.pruned());
            }
            if (statsKnowMatches && handle.aggregation().isPresent() && StatsAnswers.applies(handle.aggregation().get())) {
                // the enforced predicate (an aggregation is pushed only over one) decides which row groups match entirely
                StatsAnswers.Result answered = StatsAnswers.answer(handle.aggregation().get(), files, planned.splits(), enforced);
                planned = planned.withStatsAnswer(answered.splits(), answered.answer());
            }
            return planned;
        };
        return new NscSplitSource(plan, packer, dynamicFilter, getDynamicFilteringWaitTimeout(session).toMillis());
    }

    private List<NscSplit> chooseModes(List<NscSplit> splits, TableFiles files, NscTableHandle handle, PushdownMode pushdown, TupleDomain<NscColumnHandle> dynamicFilter)
    {
        if (pushdown == PushdownMode.RAW || (!handle.constraintEnforced() && !handle.constraint().isAll())) {
            // a pruning-only predicate is Trino's to evaluate: storage scans would apply none
            return splits;
        }
        if (pushdown == PushdownMode.FILTER || handle.aggregation().isPresent()) {
            return splits.stream().map(split -> split.withMode(ScanMode.FILTER)).collect(toImmutableList());
        }
        Map<String, FileEntry> filesById = files.files().stream().collect(toImmutableMap(FileEntry::fileId, file -> file));
        List<Integer> outputColumns = handle.projectedColumns().orElse(handle.columns()).stream()
                .map(NscColumnHandle::ordinal)
                .collect(toImmutableList());
        Set<Integer> readColumns = new TreeSet<>(outputColumns);
        handle.constraint().getDomains().orElseThrow().keySet().forEach(column -> readColumns.add(column.ordinal()));
        TupleDomain<NscColumnHandle> scanPredicate = handle.constraint().intersect(dynamicFilter);
        PruningPredicate estimated = StatsPredicates.toPruningPredicate(scanPredicate);
        List<ColumnPredicate> columns = estimated.columns();
        return splits.stream()
                .map(split -> {
                    ScanModeChooser.Estimate estimate = ScanModeChooser.estimate(
                            filesById.get(split.fileId()).stats(),
                            split.rowGroups(),
                            ImmutableList.copyOf(readColumns),
                            outputColumns,
                            columns,
                            estimated.fullyTranslated() && handle.filterExpressions().isEmpty(),
                            rowBound(handle));
                    return split.withMode(ScanModeChooser.choose(estimate, nodeLoad.get(split.addresses().getFirst().toString())));
                })
                .collect(toImmutableList());
    }

    /** The most rows a storage scan of one split returns, if bounded. */
    private static OptionalLong rowBound(NscTableHandle handle)
    {
        if (handle.limit().isPresent()) {
            return handle.limit();
        }
        return handle.topN().map(topN -> OptionalLong.of(topN.count())).orElse(OptionalLong.empty());
    }

    private static long totalRowGroups(TableFiles files)
    {
        return files.files().stream().mapToLong(file -> file.stats().rowGroupCount()).sum();
    }
}
