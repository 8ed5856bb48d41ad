package io.nsc.trino.read;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.trino.split.NscSplit;
import io.nsc.trino.split.StatsAnswer;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * The merging split of a pushed-down aggregation: every part is scanned by a storage node that
 * returns partial states per group (in parallel, on the fan-out threads), and this merges them
 * into one page with each group once, its columns in the order the engine asked for.
 */
public class AggregationPageSource
        implements ConnectorPageSource
{
    /** A part's scan, given the request template, the file and the row groups. */
    public interface PartScan
    {
        StorageScanPageSource open(NscSplit part);
    }

    private final List<NscSplit> parts;
    private final Optional<StatsAnswer> statsAnswer;
    private final PartScan partScan;
    private final List<Type> groupTypes;
    private final List<AggregateSpec> aggregates;
    private final int[] outputChannels;
    private final ExecutorService executor;
    private Metrics metrics = Metrics.EMPTY;
    private long bytesReceived;
    private long readTimeNanos;
    private boolean finished;

    /**
     * @param outputChannels for each column the engine asked for, its channel in the final page (group keys, then aggregates)
     */
    public AggregationPageSource(List<NscSplit> parts, Optional<StatsAnswer> statsAnswer, PartScan partScan, List<Type> groupTypes, List<AggregateSpec> aggregates, int[] outputChannels, ExecutorService executor)
    {
        this.parts = ImmutableList.copyOf(parts);
        this.statsAnswer = requireNonNull(statsAnswer, "statsAnswer is null");
        this.partScan = requireNonNull(partScan, "partScan is null");
        this.groupTypes = ImmutableList.copyOf(groupTypes);
        this.aggregates = ImmutableList.copyOf(aggregates);
        this.outputChannels = outputChannels.clone();
        this.executor = requireNonNull(executor, "executor is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (finished) {
            return null;
        }
        finished = true;
        long start = System.nanoTime();
        List<Future<PartResult>> results = new ArrayList<>();
        for (NscSplit part : parts) {
            results.add(executor.submit(() -> scan(part)));
        }
        GroupedAggregation merged = new GroupedAggregation(groupTypes, aggregates);
        statsAnswer.ifPresent(answer -> merged.addPartial(partialPage(answer)));
        try {
            for (Future<PartResult> result : results) {
                PartResult part = result.get();
                part.pages().forEach(merged::addPartial);
                metrics = metrics.mergeWith(part.metrics());
                bytesReceived += part.bytesReceived();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            results.forEach(result -> result.cancel(true));
            throw new TrinoException(NSC_STORAGE_ERROR, "Interrupted while waiting for storage-side aggregation", e);
        }
        catch (ExecutionException e) {
            results.forEach(result -> result.cancel(true));
            throwIfUnchecked(e.getCause());
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "Storage-side aggregation failed: " + e.getCause(), e.getCause());
        }
        finally {
            readTimeNanos += System.nanoTime() - start;
        }
        Page page = merged.finalPage();
        Block[] blocks = new Block[outputChannels.length];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = page.getBlock(outputChannels[i]);
        }
        return SourcePage.create(new Page(page.getPositionCount(), blocks));
    }

    /** The stats' answer as a partial state row: counts, and min/max values whose exact key is the value. */
    private Page partialPage(StatsAnswer answer)
    {
        Block[] blocks = new Block[aggregates.size()];
        for (int i = 0; i < aggregates.size(); i++) {
            Type type = aggregates.get(i).partialTypes().getFirst();
            BlockBuilder builder = type.createBlockBuilder(null, 1);
            writeNativeValue(type, builder, answer.values().get(i));
            blocks[i] = builder.build();
        }
        return new Page(1, blocks);
    }

    private record PartResult(List<Page> pages, Metrics metrics, long bytesReceived) {}

    private PartResult scan(NscSplit part)
    {
        StorageScanPageSource source = partScan.open(part);
        try {
            ImmutableList.Builder<Page> pages = ImmutableList.builder();
            for (SourcePage page = source.getNextSourcePage(); page != null; page = source.getNextSourcePage()) {
                pages.add(page.getPage());
            }
            return new PartResult(pages.build(), source.getMetrics(), source.getCompletedBytes());
        }
        finally {
            source.close();
        }
    }

    @Override
    public long getCompletedBytes()
    {
        return bytesReceived;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.empty();
    }

    @Override
    public long getReadTimeNanos()
    {
        return readTimeNanos;
    }

    @Override
    public boolean isFinished()
    {
        return finished;
    }

    @Override
    public long getMemoryUsage()
    {
        return 0;
    }

    @Override
    public Metrics getMetrics()
    {
        return metrics.mergeWith(new Metrics(ImmutableMap.of(
                ReadMetrics.AGGREGATION_PARTS, new LongCount(parts.size()),
                ReadMetrics.AGGREGATION_ROW_GROUPS_FROM_STATS, new LongCount(statsAnswer.map(StatsAnswer::rowGroups).orElse(0L)))));
    }

    @Override
    public void close()
    {
        finished = true;
    }
}
