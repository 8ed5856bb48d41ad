package io.nsc.trino.split;

import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.NscTopN;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.util.Objects.requireNonNull;

/**
 * Plans the splits of one pruned scan, a batch of the table's files at a time: row groups pruned
 * by the query's predicate and by the join's dynamic filter, a scan mode chosen per split, row
 * groups dropped that a top-N cannot need, and row groups a pushed-down aggregation takes from
 * the compact stats instead of a scan. Everything but the top-N bound is decided file by file;
 * the bound needs every file's stats, so it is found first, in a pass over the files that keeps
 * only the candidates it needs.
 */
final class ScanPlanner
        implements SplitPlanning
{
    private final NscTableHandle handle;
    private final PushdownMode pushdown;
    private final Optional<PruningPredicate> predicate;
    private final RowGroupPlanner planner;
    private final StorageNodeLoad nodeLoad;
    private final boolean workersAwaitDynamicFilter;

    /**
     * @param predicate the query's predicate as key ranges; empty when stats pruning is off
     * @param workersAwaitDynamicFilter whether a split planned raw before the join's dynamic filter
     * waits for it on the worker ({@link DynamicFilterWait#workersAwait})
     */
    ScanPlanner(NscTableHandle handle, PushdownMode pushdown, Optional<PruningPredicate> predicate, RowGroupPlanner planner, StorageNodeLoad nodeLoad, boolean workersAwaitDynamicFilter)
    {
        this.workersAwaitDynamicFilter = workersAwaitDynamicFilter;
        this.handle = requireNonNull(handle, "handle is null");
        this.pushdown = requireNonNull(pushdown, "pushdown is null");
        this.predicate = requireNonNull(predicate, "predicate is null");
        this.planner = requireNonNull(planner, "planner is null");
        this.nodeLoad = requireNonNull(nodeLoad, "nodeLoad is null");
    }

    @Override
    public Optional<Preparation> start(TupleDomain<ColumnHandle> dynamicFilter, boolean dynamicFilterPending, Supplier<TableFileBatches> files)
    {
        TupleDomain<NscColumnHandle> dynamic = DynamicFilterDomains.ofTableColumns(dynamicFilter);
        if (dynamic.isNone() || handle.constraint().intersect(dynamic).isNone()) {
            // the join's build side is empty: nothing here can join with it, and no file need be read
            return Optional.empty();
        }
        Scan scan = new Scan(dynamic, dynamicFilterPending);
        if (scan.topN.isPresent()) {
            return Optional.of(new TopNPass(scan, files));
        }
        return Optional.of(Preparation.ready(scan.batchPlanner(Optional.empty())));
    }

    /** What the scan's predicates, dynamic filter and pushed-down operations decide for every batch. */
    private final class Scan
    {
        private final Optional<PruningPredicate> dynamicPruning;
        private final Optional<PruningPredicate> enforced;
        private final Optional<NscTopN> topN;
        private final Optional<NscAggregation> answeredFromStats;
        private final ModeChooser modes;

        Scan(TupleDomain<NscColumnHandle> dynamic, boolean dynamicFilterPending)
        {
            boolean pruning = predicate.isPresent();
            this.dynamicPruning = pruning && !dynamic.isAll() ? Optional.of(StatsPredicates.toPruningPredicate(dynamic)) : Optional.empty();
            // the enforced predicate (an aggregation is pushed only over one) decides which row groups match entirely
            this.enforced = handle.constraint().isAll() ? Optional.empty() : Optional.of(StatsPredicates.toPruningPredicate(handle.constraint()));
            // both need to know which row groups match entirely, which filter expressions hide
            boolean statsKnowMatches = pruning && dynamic.isAll() && handle.filterExpressions().isEmpty();
            this.topN = handle.topN().filter(_ -> statsKnowMatches && (handle.constraintEnforced() || handle.constraint().isAll()));
            this.answeredFromStats = handle.aggregation().filter(aggregation -> statsKnowMatches && StatsAnswers.applies(aggregation));
            this.modes = new ModeChooser(dynamic, dynamicFilterPending);
        }

        List<NscSplit> prunedSplits(List<FileEntry> batch)
        {
            return planner.plan(batch, predicate, dynamicPruning).splits();
        }

        /**
         * @param topNBound the top-N's bound over the whole table, if the stats give one
         */
        BatchPlanner batchPlanner(Optional<Long> topNBound)
        {
            return batch -> {
                RowGroupPlanner.Plan planned = planner.plan(batch, predicate, dynamicPruning);
                planned = planned.withSplits(modes.choose(planned.splits(), batch));
                if (topN.isPresent()) {
                    TopNBound.Result bounded = topNBound.isPresent()
                            ? TopNBound.prune(topN.get(), sortColumn(topN.get()), batch, planned.splits(), topNBound.get())
                            : new TopNBound.Result(planned.splits(), 0);
                    planned = planned.withTopNPruning(bounded.splits(), bounded.pruned());
                }
                if (answeredFromStats.isPresent()) {
                    StatsAnswers.Result answered = StatsAnswers.answer(answeredFromStats.get(), batch, planned.splits(), enforced);
                    planned = planned.withStatsAnswer(answered.splits(), answered.answer());
                }
                return planned;
            };
        }
    }

    /**
     * The top-N's bound needs every file's stats, so it is found first, in a pass over the files
     * that keeps only the candidates it needs, a few batches per call.
     */
    private static final class TopNPass
            implements Preparation
    {
        private final Scan scan;
        private final Supplier<TableFileBatches> files;
        private final TopNBound.Finder finder;
        private TableFileBatches batches;
        private Optional<BatchPlanner> ready = Optional.empty();

        TopNPass(Scan scan, Supplier<TableFileBatches> files)
        {
            this.scan = scan;
            this.files = files;
            NscTopN topN = scan.topN.orElseThrow();
            this.finder = new TopNBound.Finder(topN, sortColumn(topN), scan.enforced);
        }

        @Override
        public Optional<BatchPlanner> advance(int maxBatches)
        {
            if (ready.isPresent()) {
                return ready;
            }
            if (batches == null) {
                batches = files.get();
            }
            for (int read = 0; read < maxBatches && finder.canBound() && batches.hasNext(); read++) {
                List<FileEntry> batch = batches.next();
                finder.add(batch, scan.prunedSplits(batch));
            }
            if (finder.canBound() && batches.hasNext()) {
                return Optional.empty();
            }
            // the pass may stop before the last batch: closing lets go of what its listing kept
            batches.close();
            ready = Optional.of(scan.batchPlanner(finder.bound()));
            return ready;
        }

        @Override
        public void close()
        {
            if (batches != null) {
                batches.close();
            }
        }
    }

    private static int sortColumn(NscTopN topN)
    {
        return topN.order().getFirst().column().ordinal();
    }

    /**
     * The scan mode of each split, from what the query reads and filters and the node's load. A
     * split read raw while the join's dynamic filter is still to come carries its row groups'
     * stats, so that the worker can choose again once the filter stands
     * ({@link LateDynamicFilter}).
     */
    private final class ModeChooser
    {
        private final boolean chooses;
        private final SplitModeEstimator estimator;
        private final boolean dynamicFilterPending;

        ModeChooser(TupleDomain<NscColumnHandle> dynamicFilter, boolean dynamicFilterPending)
        {
            // a pruning-only predicate is Trino's to evaluate: storage scans would apply none
            this.chooses = pushdown != PushdownMode.RAW && (handle.constraintEnforced() || handle.constraint().isAll());
            this.estimator = new SplitModeEstimator(handle, dynamicFilter);
            this.dynamicFilterPending = dynamicFilterPending;
        }

        List<NscSplit> choose(List<NscSplit> splits, List<FileEntry> files)
        {
            if (!chooses) {
                return splits;
            }
            if (pushdown == PushdownMode.FILTER || handle.aggregation().isPresent()) {
                return splits.stream().map(split -> split.withMode(ScanMode.FILTER)).collect(toImmutableList());
            }
            Map<String, FileEntry> filesById = files.stream().collect(toImmutableMap(FileEntry::fileId, file -> file));
            return splits.stream()
                    .map(split -> {
                        CompactFileStats stats = filesById.get(split.fileId()).stats();
                        ScanMode mode = ScanModeChooser.choose(estimator.estimate(stats, split.rowGroups()), nodeLoad.get(split.addresses().getFirst().toString()));
                        NscSplit chosen = split.withMode(mode);
                        return mode == ScanMode.RAW && dynamicFilterPending ? chosen.withRowGroupStats(stats, workersAwaitDynamicFilter) : chosen;
                    })
                    .collect(toImmutableList());
        }
    }
}
