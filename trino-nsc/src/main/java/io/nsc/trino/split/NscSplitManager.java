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
        if (pushdown == PushdownMode.NONE) {
            // the baseline ships every row group
            return NscSplitSource.of(planner.plan(files, Optional.empty()));
        }
        TupleDomain<NscColumnHandle> predicate = handle.constraint()
                .intersect(constraint.getSummary().transformKeys(NscColumnHandle.class::cast));
        if (predicate.isNone()) {
            return NscSplitSource.of(RowGroupPlanner.Plan.empty(totalRowGroups(files)));
        }
        boolean pruning = isStatsPruningEnabled(session);
        Optional<PruningPredicate> pruningPredicate = pruning ? Optional.of(StatsPredicates.toPruningPredicate(predicate)) : Optional.empty();
        Function<TupleDomain<ColumnHandle>, RowGroupPlanner.Plan> plan = dynamicPredicate -> {
            TupleDomain<NscColumnHandle> dynamic = dynamicPredicate.transformKeys(NscColumnHandle.class::cast);
            if (dynamic.isNone()) {
                // the join's build side is empty: nothing here can join with it
                return RowGroupPlanner.Plan.empty(totalRowGroups(files));
            }
            Optional<PruningPredicate> dynamicPruning = pruning && !dynamic.isAll() ? Optional.of(StatsPredicates.toPruningPredicate(dynamic)) : Optional.empty();
            RowGroupPlanner.Plan planned = planner.plan(files, pruningPredicate, dynamicPruning);
            return planned.withSplits(chooseModes(planned.splits(), files, handle, pushdown, dynamic));
        };
        return new NscSplitSource(plan, dynamicFilter, getDynamicFilteringWaitTimeout(session).toMillis());
    }

    private List<NscSplit> chooseModes(List<NscSplit> splits, TableFiles files, NscTableHandle handle, PushdownMode pushdown, TupleDomain<NscColumnHandle> dynamicFilter)
    {
        if (pushdown == PushdownMode.RAW || (!handle.constraintEnforced() && !handle.constraint().isAll())) {
            // a pruning-only predicate is Trino's to evaluate: storage scans would apply none
            return splits;
        }
        if (pushdown == PushdownMode.FILTER) {
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
                            estimated.fullyTranslated(),
                            handle.limit());
                    return split.withMode(ScanModeChooser.choose(estimate, nodeLoad.get(split.addresses().getFirst().toString())));
                })
                .collect(toImmutableList());
    }

    private static long totalRowGroups(TableFiles files)
    {
        return files.files().stream().mapToLong(file -> file.stats().rowGroupCount()).sum();
    }
}
