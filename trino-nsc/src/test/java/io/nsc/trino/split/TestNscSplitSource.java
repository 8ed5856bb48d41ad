package io.nsc.trino.split;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.protocol.predicate.RowGroupMatch;
import io.nsc.protocol.predicate.RowGroupPruner;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.metadata.NscAggregateColumnHandle;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.NscTopN;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.plugin.base.metrics.TDigestHistogram;
import io.trino.spi.HostAddress;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource.ConnectorSplitBatch;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.nsc.trino.split.RowGroupPlanner.FILES_HELD_PEAK;
import static io.nsc.trino.split.RowGroupPlanner.FILES_LISTED;
import static io.nsc.trino.split.RowGroupPlanner.FILE_BATCHES;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_ANSWERED_FROM_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_TOP_N;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS;
import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The split source over a table of many files read in tiny batches plans exactly what planning
 * the whole table at once does (splits, stats answers, top-N pruning, metrics), reads the next
 * batch only once the scheduler took every split of the last one, and never holds more than one
 * batch of files.
 */
final class TestNscSplitSource
{
    private static final int FILE_COUNT = 3000;
    private static final int BATCH_SIZE = 7;
    private static final NscColumnHandle X = new NscColumnHandle("x", BIGINT, 0);
    private static final NscColumnHandle Y = new NscColumnHandle("y", BIGINT, 1);
    private static final List<HostAddress> REPLICAS = List.of(HostAddress.fromString("127.0.0.1:1"));
    private static final NscTableHandle TABLE = NscTableHandle.forTable(new SchemaTableName("s", "t"), 1, 1, List.of(X, Y), Map.of());
    // no split of these tests asks a node for its load: RAW and FILTER modes choose none
    private static final StorageNodeLoad NO_LOAD = new StorageNodeLoad(new StorageClients(TransportSecurity.insecure()));
    private static final RowGroupPlanner PLANNER = new RowGroupPlanner(1000);
    // before planning starts the source reports no metrics at all
    private static final Metrics ZERO_SPLITS = new Metrics(Map.of(SPLITS, new LongCount(0)));

    // answerable from stats alone, for the row groups the predicate matches entirely
    private static final NscAggregation STATS_AGGREGATION = new NscAggregation(List.of(), List.of(
            new NscAggregateColumnHandle("c", AggregateKind.COUNT_ALL, Optional.empty(), BIGINT),
            new NscAggregateColumnHandle("cx", AggregateKind.COUNT, Optional.of(X), BIGINT),
            new NscAggregateColumnHandle("lo", AggregateKind.MIN, Optional.of(X), BIGINT),
            new NscAggregateColumnHandle("hi", AggregateKind.MAX, Optional.of(Y), BIGINT)));
    private static final TupleDomain<NscColumnHandle> X_ABOVE_30000 = TupleDomain.withColumnDomains(Map.of(X, Domain.create(ValueSet.ofRanges(Range.greaterThan(BIGINT, 30_000L)), false)));

    private final List<FileEntry> files = randomTable(new Random(14), FILE_COUNT);

    @Test
    void testPrunedSplitsInBatchesEqualTheWholeTablePlan()
    {
        TupleDomain<NscColumnHandle> predicate = TupleDomain.withColumnDomains(Map.of(X, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 20_000L, true, 90_000L, false)), false)));
        NscTableHandle handle = TABLE.withConstraint(predicate, true);
        Optional<PruningPredicate> pruning = Optional.of(StatsPredicates.toPruningPredicate(predicate));

        Listing listing = new Listing(files, BATCH_SIZE);
        NscSplitSource source = source(handle, PushdownMode.RAW, listing);
        List<ConnectorSplit> splits = new ArrayList<>();
        drain(source, 3, splits);

        RowGroupPlanner.Plan whole = PLANNER.plan(files, pruning, Optional.empty());
        assertThat(splits).isEqualTo(whole.splits());
        assertThat(whole.splits()).hasSizeBetween(100, FILE_COUNT * 3);
        Metrics metrics = source.getMetrics();
        for (String name : List.of(ROW_GROUPS_TOTAL, ROW_GROUPS_PRUNED_BY_STATS, RowGroupPlanner.ROW_GROUPS_FULLY_MATCHING, SPLITS)) {
            assertThat(count(metrics, name)).as(name).isEqualTo(count(whole.metrics(), name));
        }
        assertThat(count(metrics, ROW_GROUPS_PRUNED_BY_STATS)).isPositive();
        assertThat(count(metrics, FILE_BATCHES)).isEqualTo((FILE_COUNT + BATCH_SIZE - 1) / BATCH_SIZE);
        assertThat(count(metrics, FILES_LISTED)).isEqualTo(FILE_COUNT);
        assertThat(peak(metrics)).isEqualTo(BATCH_SIZE);
        assertThat(listing.fetches()).isEqualTo(count(metrics, FILE_BATCHES));

        // a listing that keeps every batch aside (for the cache): all of them are held at the end
        Listing keeping = new Listing(files, BATCH_SIZE).keepingEverything();
        NscSplitSource kept = source(handle, PushdownMode.RAW, keeping);
        drain(kept, 3, new ArrayList<>());
        assertThat(peak(kept.getMetrics())).isEqualTo(FILE_COUNT);
        // the peaks of two scans merge into the larger, not their sum
        assertThat(peak(kept.getMetrics().mergeWith(metrics))).isEqualTo(FILE_COUNT);
    }

    @Test
    void testNextBatchIsReadOnlyWhenTheSchedulerTookTheLastOnesSplits()
    {
        Listing listing = new Listing(files, BATCH_SIZE);
        List<ConnectorSplit> splits = new ArrayList<>();
        NscSplitSource source = source(TABLE, PushdownMode.FILTER, listing);
        // at each read, every split planned from the batches before has gone to the scheduler:
        // no split, and so no batch, is held back while another batch is read
        listing.onRead = () -> assertThat((long) splits.size()).isEqualTo(count(source.getMetrics().mergeWith(ZERO_SPLITS), SPLITS));
        drain(source, 2, splits);
        assertThat(listing.fetches()).isEqualTo((FILE_COUNT + BATCH_SIZE - 1) / BATCH_SIZE);
        assertThat(splits).isEqualTo(plan(TABLE, FILE_COUNT).splits());
        assertThat(splits).allSatisfy(split -> assertThat(((NscSplit) split).mode()).isEqualTo(ScanMode.FILTER));
    }

    @Test
    void testTopNBoundOverBatchesEqualsTheWholeTables()
    {
        for (boolean ascending : List.of(true, false)) {
            for (long count : List.of(1L, 10L, 500L, 100_000L)) {
                NscTableHandle handle = TABLE.withTopN(new NscTopN(count, List.of(new NscTopN.SortItem(X, ascending, false), new NscTopN.SortItem(Y, true, false))));
                Result batched = plan(handle, BATCH_SIZE);
                Result whole = plan(handle, FILE_COUNT);
                assertThat(batched.splits()).isEqualTo(whole.splits());
                assertThat(count(batched.metrics(), ROW_GROUPS_PRUNED_BY_TOP_N)).isEqualTo(count(whole.metrics(), ROW_GROUPS_PRUNED_BY_TOP_N));
                // the bound needs a pass over every file before the first split, still a batch at a time
                assertThat(count(batched.metrics(), FILES_LISTED)).isEqualTo(2 * FILE_COUNT);
                assertThat(peak(batched.metrics())).isEqualTo(BATCH_SIZE);
                if (count <= 500) {
                    assertThat(count(batched.metrics(), ROW_GROUPS_PRUNED_BY_TOP_N)).as("top %s %s", count, ascending ? "ASC" : "DESC").isPositive();
                }
            }
        }
        // NULLS FIRST gives no bound, and needs no pass
        Result nullsFirst = plan(TABLE.withTopN(new NscTopN(10, List.of(new NscTopN.SortItem(X, false, true)))), BATCH_SIZE);
        assertThat(count(nullsFirst.metrics(), ROW_GROUPS_PRUNED_BY_TOP_N)).isZero();
        assertThat(count(nullsFirst.metrics(), FILES_LISTED)).isEqualTo(FILE_COUNT);
    }

    @Test
    void testTopNUnderAPredicateAgreesWithAPlainSort()
    {
        TupleDomain<NscColumnHandle> predicate = TupleDomain.withColumnDomains(Map.of(X, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 20_000L, true, 90_000L, false)), false)));
        PruningPredicate pruning = StatsPredicates.toPruningPredicate(predicate);
        for (boolean ascending : List.of(true, false)) {
            for (long count : List.of(1L, 10L, 500L)) {
                NscTableHandle handle = TABLE.withConstraint(predicate, true).withTopN(new NscTopN(count, List.of(new NscTopN.SortItem(X, ascending, false))));
                Result batched = plan(handle, BATCH_SIZE);

                // the reference: every row group the predicate keeps, the bound by sorting the fully
                // matching ones, and those dropped whose every value lies beyond it (or is NULL)
                Set<String> expected = new HashSet<>();
                long pruned = 0;
                record Candidate(long key, long values) {}

                List<Candidate> candidates = new ArrayList<>();
                for (FileEntry file : files) {
                    CompactFileStats stats = file.stats();
                    for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                        long values = stats.rowGroupRowCount(rowGroup) - stats.nullCount(rowGroup, 0);
                        if (RowGroupPruner.classify(stats, rowGroup, pruning.columns()) == RowGroupMatch.ALL && stats.hasMinMax(rowGroup, 0) && stats.nullCount(rowGroup, 0) >= 0 && values > 0) {
                            candidates.add(new Candidate(ascending ? stats.max(rowGroup, 0) : stats.min(rowGroup, 0), values));
                        }
                    }
                }
                candidates.sort(ascending ? Comparator.comparingLong(Candidate::key) : Comparator.comparingLong(Candidate::key).reversed());
                long rows = 0;
                Long bound = null;
                for (Candidate candidate : candidates) {
                    rows += candidate.values();
                    if (rows >= count) {
                        bound = candidate.key();
                        break;
                    }
                }
                assertThat(bound).as("top %s: the stats give a bound", count).isNotNull();
                for (FileEntry file : files) {
                    CompactFileStats stats = file.stats();
                    for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                        long rowGroupRows = stats.rowGroupRowCount(rowGroup);
                        if (RowGroupPruner.classify(stats, rowGroup, pruning.columns()) == RowGroupMatch.NONE) {
                            continue;
                        }
                        boolean allNull = rowGroupRows > 0 && stats.nullCount(rowGroup, 0) == rowGroupRows;
                        boolean beyond = stats.hasMinMax(rowGroup, 0) && (ascending ? stats.min(rowGroup, 0) > bound : stats.max(rowGroup, 0) < bound);
                        if (allNull || beyond) {
                            pruned++;
                        }
                        else {
                            expected.add(file.fileId() + "/" + rowGroup);
                        }
                    }
                }
                assertThat(rowGroupsOf(batched.splits())).as("top %s %s", count, ascending ? "ASC" : "DESC").isEqualTo(expected);
                assertThat(count(batched.metrics(), ROW_GROUPS_PRUNED_BY_TOP_N)).isEqualTo(pruned).isPositive();
            }
        }
    }

    @Test
    void testStatsAnswerAgreesWithAPlainFold()
    {
        NscAggregation aggregation = STATS_AGGREGATION;
        TupleDomain<NscColumnHandle> predicate = X_ABOVE_30000;
        PruningPredicate pruning = StatsPredicates.toPruningPredicate(predicate);
        NscAggregationSplit split = (NscAggregationSplit) plan(TABLE.withConstraint(predicate, true).withAggregation(aggregation), BATCH_SIZE).splits().getFirst();

        // the reference: every non-empty row group matching entirely whose stats hold what each aggregate needs, folded plainly
        long answered = 0;
        long rows = 0;
        long xValues = 0;
        Long minX = null;
        Long maxY = null;
        Set<String> scanned = new HashSet<>();
        for (FileEntry file : files) {
            CompactFileStats stats = file.stats();
            for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                long rowGroupRows = stats.rowGroupRowCount(rowGroup);
                RowGroupMatch match = RowGroupPruner.classify(stats, rowGroup, pruning.columns());
                if (match == RowGroupMatch.NONE) {
                    continue;
                }
                long xNulls = stats.nullCount(rowGroup, 0);
                long yNulls = stats.nullCount(rowGroup, 1);
                boolean knows = xNulls >= 0 && yNulls >= 0
                        && (xNulls == rowGroupRows || stats.hasMinMax(rowGroup, 0))
                        && (yNulls == rowGroupRows || stats.hasMinMax(rowGroup, 1));
                if (match != RowGroupMatch.ALL || !knows) {
                    scanned.add(file.fileId() + "/" + rowGroup);
                    continue;
                }
                answered++;
                rows += rowGroupRows;
                xValues += rowGroupRows - xNulls;
                if (xNulls < rowGroupRows) {
                    minX = minX == null ? stats.min(rowGroup, 0) : Math.min(minX, stats.min(rowGroup, 0));
                }
                if (yNulls < rowGroupRows) {
                    maxY = maxY == null ? stats.max(rowGroup, 1) : Math.max(maxY, stats.max(rowGroup, 1));
                }
            }
        }
        assertThat(answered).isPositive();
        assertThat(split.statsAnswer()).hasValue(new StatsAnswer(answered, Arrays.asList(rows, xValues, minX, maxY)));
        assertThat(rowGroupsOf(split.parts())).isEqualTo(scanned);
    }

    @Test
    void testFileCountThatIsAMultipleOfTheBatch()
    {
        List<FileEntry> table = files.subList(0, BATCH_SIZE * 400);
        Result batched = plan(TABLE, table, BATCH_SIZE);
        assertThat(batched.splits()).isEqualTo(PLANNER.plan(table, Optional.of(StatsPredicates.toPruningPredicate(TupleDomain.all()))).splits().stream()
                .map(split -> split.withMode(ScanMode.FILTER))
                .toList());
        assertThat(count(batched.metrics(), FILE_BATCHES)).isEqualTo(400);
        assertThat(count(batched.metrics(), FILES_LISTED)).isEqualTo(BATCH_SIZE * 400);
        assertThat(peak(batched.metrics())).isEqualTo(BATCH_SIZE);
    }

    private static Set<String> rowGroupsOf(List<? extends ConnectorSplit> splits)
    {
        Set<String> rowGroups = new HashSet<>();
        for (ConnectorSplit split : splits) {
            NscSplit nscSplit = (NscSplit) split;
            nscSplit.rowGroups().forEach(rowGroup -> assertThat(rowGroups.add(nscSplit.fileId() + "/" + rowGroup)).isTrue());
        }
        return rowGroups;
    }

    @Test
    void testTopNFinderAgreesWithSortingEveryCandidate()
    {
        Random random = new Random(3);
        for (int trial = 0; trial < 200; trial++) {
            List<FileEntry> table = randomTable(random, 1 + random.nextInt(40));
            boolean ascending = random.nextBoolean();
            long count = 1 + random.nextInt(random.nextBoolean() ? 20 : 2000);
            NscTopN topN = new NscTopN(count, List.of(new NscTopN.SortItem(X, ascending, false)));
            TopNBound.Finder finder = new TopNBound.Finder(topN, 0, Optional.empty());
            for (List<FileEntry> batch : Lists.partition(table, 1 + random.nextInt(5))) {
                finder.add(batch, PLANNER.plan(batch, Optional.empty()).splits());
                // it keeps only the candidates that hold n values, and one more at most while it adds
                assertThat(finder.candidates()).isLessThanOrEqualTo((int) Math.min(count, 1_000_000));
            }
            assertThat(finder.bound()).as("trial %s", trial).isEqualTo(boundBySorting(table, count, ascending));
        }
    }

    @Test
    void testStatsAnswerOverBatchesEqualsTheWholeTables()
    {
        NscAggregation aggregation = STATS_AGGREGATION;
        TupleDomain<NscColumnHandle> predicate = X_ABOVE_30000;
        NscTableHandle handle = TABLE.withConstraint(predicate, true).withAggregation(aggregation);
        Result batched = plan(handle, BATCH_SIZE);
        Result whole = plan(handle, FILE_COUNT);
        // one split merging every part, with the answer of the row groups the stats answered
        assertThat(batched.splits()).hasSize(1).isEqualTo(whole.splits());
        NscAggregationSplit split = (NscAggregationSplit) batched.splits().getFirst();
        assertThat(split.statsAnswer()).isPresent();
        assertThat(split.parts()).isNotEmpty();
        assertThat(count(batched.metrics(), ROW_GROUPS_ANSWERED_FROM_STATS))
                .isEqualTo(count(whole.metrics(), ROW_GROUPS_ANSWERED_FROM_STATS))
                .isEqualTo(split.statsAnswer().orElseThrow().rowGroups());
        assertThat(count(batched.metrics(), SPLITS)).isEqualTo(split.parts().size());
        assertThat(peak(batched.metrics())).isEqualTo(BATCH_SIZE);
    }

    @Test
    void testEmptyJoinSideListsNothing()
    {
        DynamicFilter nothing = TestingDynamicFilter.completed(TupleDomain.none());
        Listing listing = new Listing(files, BATCH_SIZE);
        ScanPlanner scan = new ScanPlanner(TABLE, PushdownMode.FILTER, Optional.of(new PruningPredicate(List.of(), true, List.of())), PLANNER, NO_LOAD, true);
        NscSplitSource source = new NscSplitSource(listing, scan, Optional.empty(), nothing, 1000);
        List<ConnectorSplit> splits = new ArrayList<>();
        ConnectorSplitBatch first = source.getNextBatch(100).join();
        assertThat(first.isNoMoreSplits()).isTrue();
        assertThat(first.getSplits()).isEmpty();
        assertThat(listing.opened()).isZero();
        assertThat(count(source.getMetrics(), FILES_LISTED)).isZero();
        assertThat(count(source.getMetrics(), SPLITS)).isZero();
        // how many row groups the table has is unknown without listing it: no count is made up
        assertThat(source.getMetrics().getMetrics()).doesNotContainKey(ROW_GROUPS_TOTAL);
        drain(source, 100, splits);
        assertThat(splits).isEmpty();
    }

    @Test
    void testRawSplitsPlannedBeforeTheDynamicFilterCarryTheirStats()
    {
        // auto without a predicate reads raw; the worker may choose again once a pending filter
        // stands, and waits for it only where the split manager found the probe side worth a wait
        for (boolean pending : List.of(true, false)) {
            for (boolean workersAwait : List.of(true, false)) {
                assertPendingFilterTravels(pending, workersAwait);
            }
        }
    }

    private void assertPendingFilterTravels(boolean pending, boolean workersAwait)
    {
        DynamicFilter filter = pending ? TestingDynamicFilter.pending() : TestingDynamicFilter.completed(TupleDomain.all());
        ScanPlanner scan = new ScanPlanner(TABLE, PushdownMode.AUTO, Optional.of(new PruningPredicate(List.of(), true, List.of())), PLANNER, NO_LOAD, workersAwait);
        NscSplitSource source = new NscSplitSource(new Listing(files, BATCH_SIZE), scan, Optional.empty(), filter, 0);
        List<ConnectorSplit> splits = new ArrayList<>();
        drain(source, 1000, splits);
        assertThat(splits).isNotEmpty();
        for (ConnectorSplit split : splits) {
            NscSplit nscSplit = (NscSplit) split;
            assertThat(nscSplit.mode()).isEqualTo(ScanMode.RAW);
            assertThat(nscSplit.rowGroupStats().isPresent()).as("pending %s", pending).isEqualTo(pending);
            assertThat(nscSplit.awaitsDynamicFilter()).as("pending %s, workers await %s", pending, workersAwait).isEqualTo(pending && workersAwait);
            if (pending) {
                FileEntry file = files.stream().filter(entry -> entry.fileId().equals(nscSplit.fileId())).findFirst().orElseThrow();
                CompactFileStats own = nscSplit.decodedRowGroupStats().orElseThrow();
                assertThat(own.rowGroupCount()).isEqualTo(nscSplit.rowGroups().size());
                for (int index = 0; index < nscSplit.rowGroups().size(); index++) {
                    int rowGroup = nscSplit.rowGroups().get(index);
                    assertThat(own.rowGroupRowCount(index)).isEqualTo(file.stats().rowGroupRowCount(rowGroup));
                    assertThat(own.min(index, 0)).isEqualTo(file.stats().min(rowGroup, 0));
                    assertThat(own.max(index, 1)).isEqualTo(file.stats().max(rowGroup, 1));
                    assertThat(own.nullCount(index, 1)).isEqualTo(file.stats().nullCount(rowGroup, 1));
                }
            }
        }
    }

    @Test
    void testScanMatchingNoRowListsNothingAndAnAggregationGetsItsSplit()
    {
        NscAggregation aggregation = new NscAggregation(List.of(), List.of(new NscAggregateColumnHandle("c", AggregateKind.COUNT_ALL, Optional.empty(), BIGINT)));
        Listing listing = new Listing(files, BATCH_SIZE);
        NscSplitSource source = new NscSplitSource(listing, (_, _, _) -> Optional.empty(), Optional.of(aggregation), DynamicFilter.EMPTY, 0);
        ConnectorSplitBatch batch = source.getNextBatch(100).join();
        assertThat(batch.getSplits()).containsExactly(new NscAggregationSplit(List.of(), Optional.empty()));
        assertThat(batch.isNoMoreSplits()).isTrue();
        assertThat(listing.opened()).isZero();
    }

    @Test
    void testRunOfPrunedBatchesIsPlannedAFewBatchesPerCall()
    {
        TupleDomain<NscColumnHandle> predicate = TupleDomain.withColumnDomains(Map.of(X, Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, -1_000L)), false)));
        Listing listing = new Listing(files, BATCH_SIZE);
        NscSplitSource source = source(TABLE.withConstraint(predicate, true), PushdownMode.FILTER, listing);
        int batches = (FILE_COUNT + BATCH_SIZE - 1) / BATCH_SIZE;
        int calls = 0;
        while (!source.isFinished()) {
            int before = listing.fetches();
            ConnectorSplitBatch batch = source.getNextBatch(100).join();
            calls++;
            assertThat(batch.getSplits()).isEmpty();
            assertThat(listing.fetches() - before).isLessThanOrEqualTo(NscSplitSource.MAX_BATCHES_PER_CALL);
        }
        assertThat(listing.fetches()).isEqualTo(batches);
        assertThat(calls).isEqualTo((batches + NscSplitSource.MAX_BATCHES_PER_CALL - 1) / NscSplitSource.MAX_BATCHES_PER_CALL);
        assertThat(count(source.getMetrics(), ROW_GROUPS_PRUNED_BY_STATS)).isEqualTo(count(source.getMetrics(), ROW_GROUPS_TOTAL)).isPositive();

        // a top-N's pass over every file before the first split: as few batches per call, pass and scan together
        Listing passAndScan = new Listing(files, BATCH_SIZE);
        NscSplitSource topN = source(TABLE.withTopN(new NscTopN(10, List.of(new NscTopN.SortItem(X, false, false)))), PushdownMode.FILTER, passAndScan);
        List<ConnectorSplit> splits = new ArrayList<>();
        int topNCalls = 0;
        while (!topN.isFinished()) {
            int before = passAndScan.fetches();
            ConnectorSplitBatch batch = topN.getNextBatch(1000).join();
            topNCalls++;
            splits.addAll(batch.getSplits());
            assertThat(passAndScan.fetches() - before).isLessThanOrEqualTo(NscSplitSource.MAX_BATCHES_PER_CALL);
        }
        assertThat(passAndScan.fetches()).isEqualTo(2 * batches);
        assertThat(topNCalls).isGreaterThanOrEqualTo(2 * batches / NscSplitSource.MAX_BATCHES_PER_CALL);
        assertThat(splits).isNotEmpty();
    }

    @Test
    void testClosedSourcePlansNoMoreAndClosesItsListing()
    {
        Listing listing = new Listing(files, BATCH_SIZE);
        NscSplitSource source = source(TABLE, PushdownMode.FILTER, listing);
        assertThat(source.getNextBatch(1).join().getSplits()).hasSize(1);
        int fetched = listing.fetches();
        source.close();
        assertThat(listing.closed()).isEqualTo(1);
        assertThat(source.isFinished()).isTrue();
        ConnectorSplitBatch after = source.getNextBatch(1000).join();
        assertThat(after.getSplits()).isEmpty();
        assertThat(after.isNoMoreSplits()).isTrue();
        assertThat(listing.fetches()).isEqualTo(fetched);

        // the top-N pass closes its listing (it may stop before the last batch), the scan's is closed with the source
        Listing passListing = new Listing(files, BATCH_SIZE);
        NscTableHandle topN = TABLE.withTopN(new NscTopN(10, List.of(new NscTopN.SortItem(X, true, false))));
        drain(source(topN, PushdownMode.FILTER, passListing), 1000, new ArrayList<>());
        assertThat(passListing.opened()).isEqualTo(2);
        assertThat(passListing.closed()).isEqualTo(1);

        // a query cancelled during the top-N pass: the pass stops at the next batch, nothing is planned
        Listing cancelled = new Listing(files, BATCH_SIZE);
        NscSplitSource cancelledSource = source(topN, PushdownMode.FILTER, cancelled);
        cancelled.onRead = () -> {
            if (cancelled.fetches() == 4) {
                cancelledSource.close();
            }
        };
        List<ConnectorSplit> none = new ArrayList<>();
        drain(cancelledSource, 1000, none);
        assertThat(none).isEmpty();
        assertThat(cancelled.fetches()).isEqualTo(5);
        assertThat(cancelled.closed()).isEqualTo(cancelled.opened());
    }

    @Test
    void testEmptyTable()
    {
        Result empty = plan(TABLE, List.of(), BATCH_SIZE);
        assertThat(empty.splits()).isEmpty();
        assertThat(count(empty.metrics(), ROW_GROUPS_TOTAL)).isZero();
        assertThat(count(empty.metrics(), FILE_BATCHES)).isEqualTo(1);
        Result aggregated = plan(TABLE.withAggregation(new NscAggregation(List.of(), List.of(new NscAggregateColumnHandle("c", AggregateKind.COUNT_ALL, Optional.empty(), BIGINT)))), List.of(), BATCH_SIZE);
        assertThat(aggregated.splits()).containsExactly(new NscAggregationSplit(List.of(), Optional.empty()));
    }

    private record Result(List<ConnectorSplit> splits, Metrics metrics) {}

    private Result plan(NscTableHandle handle, int batchSize)
    {
        return plan(handle, files, batchSize);
    }

    private static Result plan(NscTableHandle handle, List<FileEntry> table, int batchSize)
    {
        List<ConnectorSplit> splits = new ArrayList<>();
        NscSplitSource source = source(handle, PushdownMode.FILTER, new Listing(table, batchSize));
        drain(source, 1000, splits);
        return new Result(splits, source.getMetrics());
    }

    private static NscSplitSource source(NscTableHandle handle, PushdownMode pushdown, Listing listing)
    {
        TupleDomain<NscColumnHandle> predicate = handle.constraint();
        ScanPlanner scan = new ScanPlanner(handle, pushdown, Optional.of(StatsPredicates.toPruningPredicate(predicate)), PLANNER, NO_LOAD, true);
        return new NscSplitSource(listing, scan, handle.aggregation(), DynamicFilter.EMPTY, 0);
    }

    private static void drain(NscSplitSource source, int maxSize, List<ConnectorSplit> splits)
    {
        while (!source.isFinished()) {
            ConnectorSplitBatch batch = source.getNextBatch(maxSize).join();
            assertThat(batch.getSplits()).hasSizeLessThanOrEqualTo(maxSize);
            splits.addAll(batch.getSplits());
            if (batch.isNoMoreSplits()) {
                assertThat(source.isFinished()).isTrue();
            }
        }
    }

    private static long count(Metrics metrics, String name)
    {
        return ((LongCount) metrics.getMetrics().get(name)).getTotal();
    }

    /** The most files any scan held at once. */
    private static long peak(Metrics metrics)
    {
        return (long) ((TDigestHistogram) metrics.getMetrics().get(FILES_HELD_PEAK)).getMax();
    }

    /** The bound as the whole-table planner found it: every candidate sorted best first. */
    private static Optional<Long> boundBySorting(List<FileEntry> table, long count, boolean ascending)
    {
        record Candidate(long key, long values) {}

        List<Candidate> candidates = new ArrayList<>();
        for (NscSplit split : PLANNER.plan(table, Optional.empty()).splits()) {
            CompactFileStats stats = table.stream().filter(file -> file.fileId().equals(split.fileId())).findFirst().orElseThrow().stats();
            for (int rowGroup : split.rowGroups()) {
                if (stats.hasMinMax(rowGroup, 0) && stats.nullCount(rowGroup, 0) >= 0) {
                    candidates.add(new Candidate(ascending ? stats.max(rowGroup, 0) : stats.min(rowGroup, 0), stats.rowGroupRowCount(rowGroup) - stats.nullCount(rowGroup, 0)));
                }
            }
        }
        candidates.sort(ascending ? Comparator.comparingLong(Candidate::key) : Comparator.comparingLong(Candidate::key).reversed());
        long rows = 0;
        for (Candidate candidate : candidates) {
            rows += candidate.values();
            if (rows >= count) {
                return Optional.of(candidate.key());
            }
        }
        return Optional.empty();
    }

    /**
     * A table of files whose x grows with the file (as in a table sorted on it, with overlaps)
     * and whose y is random: row groups of 0 to 60 rows, some all-null, some with unknown nulls.
     */
    private static List<FileEntry> randomTable(Random random, int fileCount)
    {
        ImmutableList.Builder<FileEntry> table = ImmutableList.builder();
        for (int file = 0; file < fileCount; file++) {
            CompactFileStats.Builder stats = CompactFileStats.builder(List.of(KeyKind.EXACT, KeyKind.EXACT));
            int rowGroups = 1 + random.nextInt(3);
            long rows = 0;
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                int rowGroupRows = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(60);
                rows += rowGroupRows;
                stats.addRowGroup(rowGroupRows, 4 + rowGroup * 1000L);
                long low = file * 40L + random.nextInt(100);
                chunk(stats, random, rowGroupRows, low, low + random.nextInt(200));
                long y = random.nextInt(1_000_000);
                chunk(stats, random, rowGroupRows, y, y + random.nextInt(1000));
            }
            table.add(new FileEntry("%032x".formatted(file), 100_000, rows, REPLICAS, stats.footer(4 + rowGroups * 1000L, 10).build()));
        }
        return table.build();
    }

    private static void chunk(CompactFileStats.Builder stats, Random random, int rows, long min, long max)
    {
        int kind = random.nextInt(20);
        if (rows == 0 || kind == 0) {
            // no values: all null (or nothing at all)
            stats.addColumnChunk(300, OptionalLong.empty(), OptionalLong.empty(), rows);
        }
        else if (kind == 1) {
            stats.addColumnChunk(300, OptionalLong.of(min), OptionalLong.of(max), -1);
        }
        else {
            stats.addColumnChunk(300, OptionalLong.of(min), OptionalLong.of(max), random.nextInt(rows));
        }
    }

    /**
     * The table's files in batches, as the cache or the metadata service hands them out, counting
     * the listings opened and closed (each once) and the batches read; keeping everything, it holds every batch
     * it handed out, as a listing of a table the cache can take does.
     */
    private static final class Listing
            implements Supplier<TableFileBatches>
    {
        private final List<List<FileEntry>> batches;
        private Runnable onRead = () -> {};
        private boolean keepsEverything;
        private int fetches;
        private int opened;
        private int closed;

        Listing(List<FileEntry> files, int batchSize)
        {
            this.batches = files.isEmpty() ? List.of(List.of()) : Lists.partition(files, batchSize);
        }

        Listing keepingEverything()
        {
            keepsEverything = true;
            return this;
        }

        int fetches()
        {
            return fetches;
        }

        int opened()
        {
            return opened;
        }

        int closed()
        {
            return closed;
        }

        @Override
        public TableFileBatches get()
        {
            opened++;
            Iterator<List<FileEntry>> iterator = batches.iterator();
            return new TableFileBatches()
            {
                private long handedOut;
                private long kept;

                @Override
                public boolean hasNext()
                {
                    return iterator.hasNext();
                }

                @Override
                public List<FileEntry> next()
                {
                    List<FileEntry> batch = iterator.next();
                    onRead.run();
                    fetches++;
                    kept = keepsEverything ? handedOut : 0;
                    handedOut += batch.size();
                    return batch;
                }

                @Override
                public long filesKept()
                {
                    return kept;
                }

                private boolean wasClosed;

                @Override
                public void close()
                {
                    // closing twice is allowed, and counts once
                    if (!wasClosed) {
                        wasClosed = true;
                        closed++;
                    }
                }
            };
        }
    }

    /**
     * A join's filter, complete with its predicate, or still to come (and never coming, in the
     * test): planning's wait for it ran out.
     */
    private record TestingDynamicFilter(TupleDomain<ColumnHandle> predicate, boolean complete)
            implements DynamicFilter
    {
        static TestingDynamicFilter completed(TupleDomain<ColumnHandle> predicate)
        {
            return new TestingDynamicFilter(predicate, true);
        }

        static TestingDynamicFilter pending()
        {
            return new TestingDynamicFilter(TupleDomain.all(), false);
        }

        @Override
        public Set<ColumnHandle> getColumnsCovered()
        {
            return Set.of(X);
        }

        @Override
        public CompletableFuture<?> isBlocked()
        {
            return complete ? NOT_BLOCKED : new CompletableFuture<>();
        }

        @Override
        public boolean isComplete()
        {
            return complete;
        }

        @Override
        public boolean isAwaitable()
        {
            return !complete;
        }

        @Override
        public TupleDomain<ColumnHandle> getCurrentPredicate()
        {
            return predicate;
        }
    }
}
