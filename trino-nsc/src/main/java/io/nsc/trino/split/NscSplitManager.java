package io.nsc.trino.split;

import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFiles;
import io.nsc.trino.metadata.TableFilesCache;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorSplitManager;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;

import static io.nsc.trino.NscSessionProperties.isStatsPruningEnabled;
import static java.util.Objects.requireNonNull;

public class NscSplitManager
        implements ConnectorSplitManager
{
    private final TableFilesCache tableFilesCache;
    private final RowGroupPlanner planner;

    @Inject
    public NscSplitManager(TableFilesCache tableFilesCache, NscConfig config)
    {
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
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
        TupleDomain<NscColumnHandle> predicate = handle.constraint()
                .intersect(constraint.getSummary().transformKeys(NscColumnHandle.class::cast));

        Optional<PruningPredicate> pruningPredicate = Optional.empty();
        if (isStatsPruningEnabled(session)) {
            if (predicate.isNone()) {
                return new NscSplitSource(List.of(), new RowGroupPlanner.Plan(List.of(), totalRowGroups(files), totalRowGroups(files), 0).metrics());
            }
            pruningPredicate = Optional.of(StatsPredicates.toPruningPredicate(predicate));
        }
        RowGroupPlanner.Plan plan = planner.plan(files, pruningPredicate);
        return new NscSplitSource(plan.splits(), plan.metrics());
    }

    private static long totalRowGroups(TableFiles files)
    {
        return files.files().stream().mapToLong(file -> file.stats().rowGroupCount()).sum();
    }
}
