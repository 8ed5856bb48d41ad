package io.nsc.trino.split;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.trino.metadata.NscAggregation;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.split.SplitPlanning.BatchPlanner;
import io.nsc.trino.split.SplitPlanning.Preparation;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.plugin.base.metrics.TDigestHistogram;
import io.trino.spi.connector.ConnectorSplit;
import io.trino.spi.connector.ConnectorSplitSource;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.metrics.Metric;
import io.trino.spi.metrics.Metrics;

import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import static io.nsc.trino.split.RowGroupPlanner.FILES_HELD_PEAK;
import static io.nsc.trino.split.RowGroupPlanner.FILES_LISTED;
import static io.nsc.trino.split.RowGroupPlanner.FILE_BATCHES;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The splits that survive coordinator-side pruning, planned a batch of the table's files at a
 * time: the next batch is read from the metadata service (or the cache) only when the scheduler
 * has taken every split of the last one, so the coordinator holds one batch of a table's files
 * however many it has (and what the listing keeps aside for the cache, within the cache's
 * bounds). Planning waits, up to a deadline, for the join's dynamic filter to complete, so that
 * it prunes row groups too; while it waits it hands the scheduler empty batches instead of
 * blocking its thread. A call reads at most a few batches (of a top-N's first pass, a run of
 * batches that leave no split, an aggregation's parts), so that no whole table is read on the
 * scheduler's thread in one call either; closed, the source reads no more. The pruning counts of all batches add
 * up to the split-generation metrics (EXPLAIN ANALYZE VERBOSE prints them), with how the files
 * were read.
 *
 * <p>A pushed-down aggregation is one split that merges the partial states of every part, so its
 * source reads every batch before it hands out that split; it keeps the parts (file ids, row
 * groups and addresses), never the files' stats. A scan that can match no row reads no file.
 */
public class NscSplitSource
        implements ConnectorSplitSource
{
    @VisibleForTesting
    static final int MAX_BATCHES_PER_CALL = 4;
    private static final ConnectorSplitBatch EMPTY_BATCH = new ConnectorSplitBatch(List.of(), false);

    private final Supplier<TableFileBatches> files;
    private final SplitPlanning planning;
    private final Optional<NscAggregation> aggregation;
    private final DynamicFilter dynamicFilter;
    private final long deadlineNanos;
    private final ImmutableList.Builder<NscSplit> aggregationParts = ImmutableList.builder();

    private boolean started;
    // empty once started: no row can match; read by whichever thread closes the source
    private volatile Optional<Preparation> preparation = Optional.empty();
    private Optional<BatchPlanner> batchPlanner = Optional.empty();
    // read by whichever thread closes the source
    private volatile TableFileBatches batches = TableFileBatches.none();
    private Iterator<? extends ConnectorSplit> pending = Collections.emptyIterator();
    private Optional<StatsAnswer> aggregationAnswer = Optional.empty();
    private boolean aggregationSplitPlanned;
    // set by whichever thread closes the source: a cancelled query's split source plans no more
    private volatile boolean closed;
    // written by the scheduler's thread, read by whoever asks for the metrics
    private volatile Metrics metrics = Metrics.EMPTY;
    private Metrics planned = new Metrics(Map.of(SPLITS, new LongCount(0)));
    private long fileBatches;
    private long filesListed;
    private long filesHeldPeak;

    /**
     * @param files opens a listing of the table version's files, a batch at a time
     * @param planning plans each batch, given the dynamic filter's predicate as it stands when planning starts
     * @param aggregation the pushed-down aggregation, whose parts all go into one split
     */
    public NscSplitSource(
            Supplier<TableFileBatches> files,
            SplitPlanning planning,
            Optional<NscAggregation> aggregation,
            DynamicFilter dynamicFilter,
            long dynamicFilterWaitMillis)
    {
        this.files = requireNonNull(files, "files is null");
        this.planning = requireNonNull(planning, "planning is null");
        this.aggregation = requireNonNull(aggregation, "aggregation is null");
        this.dynamicFilter = requireNonNull(dynamicFilter, "dynamicFilter is null");
        this.deadlineNanos = System.nanoTime() + MILLISECONDS.toNanos(dynamicFilterWaitMillis);
    }

    @Override
    public CompletableFuture<ConnectorSplitBatch> getNextBatch(int maxSize)
    {
        if (closed) {
            return CompletableFuture.completedFuture(new ConnectorSplitBatch(List.of(), true));
        }
        if (!started) {
            long leftMillis = NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
            if (dynamicFilter.isAwaitable() && leftMillis > 0) {
                return dynamicFilter.isBlocked()
                        .thenApply(_ -> EMPTY_BATCH)
                        .completeOnTimeout(EMPTY_BATCH, leftMillis, MILLISECONDS);
            }
            preparation = planning.start(dynamicFilter.getCurrentPredicate(), dynamicFilter.isAwaitable(), this::listFiles);
            started = true;
            publishMetrics();
        }
        // every call reads at most this many batches, of the pass and of the scan together
        long batchesBefore = fileBatches;
        if (preparation.isPresent() && batchPlanner.isEmpty()) {
            batchPlanner = preparation.get().advance(MAX_BATCHES_PER_CALL);
            if (batchPlanner.isEmpty()) {
                // a pass over the files before the first batch is planned (a top-N's bound): more next call
                return CompletableFuture.completedFuture(new ConnectorSplitBatch(List.of(), isFinished()));
            }
            batches = listFiles();
            if (closed) {
                // closed while the listing opened
                batches.close();
            }
        }
        while (!closed && !pending.hasNext() && batches.hasNext() && fileBatches - batchesBefore < MAX_BATCHES_PER_CALL) {
            RowGroupPlanner.Plan plan = planNextBatch();
            if (aggregation.isPresent()) {
                aggregationParts.addAll(plan.splits());
                aggregationAnswer = StatsAnswers.combine(aggregation.get(), aggregationAnswer, plan.statsAnswer());
            }
            else {
                pending = plan.splits().iterator();
            }
        }
        if (!closed && aggregation.isPresent() && everyBatchPlanned() && !aggregationSplitPlanned) {
            // one split that merges every part's partial states, even of no part
            pending = List.of(new NscAggregationSplit(aggregationParts.build(), aggregationAnswer)).iterator();
            aggregationSplitPlanned = true;
        }
        ImmutableList.Builder<ConnectorSplit> batch = ImmutableList.builder();
        for (int i = 0; i < maxSize && pending.hasNext(); i++) {
            batch.add(pending.next());
        }
        return CompletableFuture.completedFuture(new ConnectorSplitBatch(batch.build(), isFinished()));
    }

    private RowGroupPlanner.Plan planNextBatch()
    {
        RowGroupPlanner.Plan plan = batchPlanner.orElseThrow().plan(batches.next());
        planned = planned.mergeWith(plan.metrics());
        publishMetrics();
        return plan;
    }

    private TableFileBatches listFiles()
    {
        return new CountingListing(files.get());
    }

    /** A listing of the table's files that counts what it reads, and what is held at once, for the metrics. */
    private final class CountingListing
            implements TableFileBatches
    {
        private final TableFileBatches listing;

        CountingListing(TableFileBatches listing)
        {
            this.listing = listing;
        }

        /** Nothing more once the source is closed: a cancelled query's top-N pass stops at the next batch. */
        @Override
        public boolean hasNext()
        {
            return !closed && listing.hasNext();
        }

        @Override
        public List<FileEntry> next()
        {
            List<FileEntry> batch = listing.next();
            fileBatches++;
            filesListed += batch.size();
            // a batch is let go before the next is read; its listing may keep earlier ones for the cache
            filesHeldPeak = Math.max(filesHeldPeak, batch.size() + listing.filesKept());
            publishMetrics();
            return batch;
        }

        @Override
        public long filesKept()
        {
            return listing.filesKept();
        }

        @Override
        public void close()
        {
            listing.close();
        }
    }

    private void publishMetrics()
    {
        metrics = planned.mergeWith(new Metrics(ImmutableMap.<String, Metric<?>>of(
                FILE_BATCHES, new LongCount(fileBatches),
                FILES_LISTED, new LongCount(filesListed),
                // the most of any one scan, not their sum, when the metrics of scans merge
                FILES_HELD_PEAK, TDigestHistogram.fromValue(filesHeldPeak))));
    }

    @Override
    public boolean isFinished()
    {
        return closed || (everyBatchPlanned() && !pending.hasNext() && (aggregation.isEmpty() || aggregationSplitPlanned));
    }

    private boolean everyBatchPlanned()
    {
        return started && (preparation.isEmpty() || batchPlanner.isPresent()) && !batches.hasNext();
    }

    @Override
    public Metrics getMetrics()
    {
        return metrics;
    }

    /** A cancelled or finished query's source: it plans no more, and lets go of what its listing kept for the cache. */
    @Override
    public void close()
    {
        closed = true;
        preparation.ifPresent(Preparation::close);
        batches.close();
    }
}
