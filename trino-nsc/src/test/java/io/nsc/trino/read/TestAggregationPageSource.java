package io.nsc.trino.read;

import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.trino.split.NscSplit;
import io.nsc.trino.split.ScanMode;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.HostAddress;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.FixedPageSource;
import io.trino.spi.connector.SourcePage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.trino.spi.type.BigintType.BIGINT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The merge of a pushed-down aggregation, driven as Trino's driver drives a page source: it
 * never waits for the parts (it returns nothing and says when to come back), merges each part's
 * pages of partial states as they arrive (a group in many pages, as storage nodes send when their
 * groups fill their budget), reports what it holds, and gives exactly one row per group.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
final class TestAggregationPageSource
{
    private static final List<AggregateSpec> COUNT_AND_SUM = List.of(
            new AggregateSpec(AggregateKind.COUNT_ALL, Optional.empty()),
            new AggregateSpec(AggregateKind.SUM, Optional.of(BIGINT)));

    private static final int THREADS = 4;

    private final ExecutorService executor = Executors.newFixedThreadPool(THREADS);

    @AfterAll
    void tearDown()
    {
        executor.shutdownNow();
    }

    @Test
    void testMergesPagesOfEveryPartAsTheyArrive()
            throws Exception
    {
        Random random = new Random(17);
        Map<Long, List<Long>> expected = new HashMap<>();
        List<List<Page>> partPages = new ArrayList<>();
        int pageCount = 0;
        for (int part = 0; part < 6; part++) {
            // many pages per part, each group in several of them: what early flushes send
            List<Page> pages = new ArrayList<>();
            for (int page = 0; page < 10; page++) {
                pages.add(partialPage(random, 500, 2_000, expected));
            }
            partPages.add(pages);
            pageCount += pages.size();
        }
        AggregationPageSource source = source(partPages.size(), part -> new FixedPageSource(partPages.get(part)));

        Driven driven = drive(source);
        assertThat(driven.rows()).isEqualTo(expected);
        // the merged groups were reported while held, and no more than they, a full queue and a page in each part's hands take
        GroupedAggregation all = new GroupedAggregation(List.of(BIGINT), COUNT_AND_SUM);
        partPages.forEach(pages -> pages.forEach(all::addPartial));
        long largestPage = partPages.stream().flatMap(List::stream).mapToLong(Page::getRetainedSizeInBytes).max().orElseThrow();
        assertThat(driven.peakMemory()).isPositive().isLessThanOrEqualTo(all.retainedBytes() + (AggregationPageSource.QUEUED_PAGES + THREADS) * largestPage);
        assertThat(((LongCount) source.getMetrics().getMetrics().get(ReadMetrics.AGGREGATION_PAGES_MERGED)).getTotal()).isEqualTo(pageCount);
        assertThat(((LongCount) source.getMetrics().getMetrics().get(ReadMetrics.AGGREGATION_PARTS)).getTotal()).isEqualTo(6);
    }

    @Test
    void testNeverWaitsForAPart()
            throws Exception
    {
        CountDownLatch release = new CountDownLatch(1);
        Map<Long, List<Long>> expected = new HashMap<>();
        Page only = partialPage(new Random(3), 10, 5, expected);
        AggregationPageSource source = source(1, _ -> new GatedPageSource(release, only));

        assertThat(source.getNextSourcePage()).isNull();
        CompletableFuture<?> blocked = source.isBlocked();
        assertThat(blocked).isNotDone();
        assertThat(source.isFinished()).isFalse();
        release.countDown();
        blocked.get(10, TimeUnit.SECONDS);
        assertThat(drive(source).rows()).isEqualTo(expected);
    }

    @Test
    void testPartsThatAnswerNothingYetAreWaitedFor()
            throws Exception
    {
        // parts like a storage scan: nothing yet (null, and a future) before each page
        Random random = new Random(5);
        Map<Long, List<Long>> expected = new HashMap<>();
        List<List<Page>> partPages = new ArrayList<>();
        for (int part = 0; part < 3; part++) {
            List<Page> pages = new ArrayList<>();
            for (int page = 0; page < 4; page++) {
                pages.add(partialPage(random, 50, 20, expected));
            }
            partPages.add(pages);
        }
        AggregationPageSource source = source(partPages.size(), part -> new LaterPageSource(partPages.get(part), executor));
        assertThat(drive(source).rows()).isEqualTo(expected);
    }

    private AggregationPageSource source(int parts, PartSources sources)
    {
        List<NscSplit> splits = new ArrayList<>();
        for (int part = 0; part < parts; part++) {
            splits.add(new NscSplit("%032x".formatted(part), 1000, List.of(0), 10, 100, List.of(HostAddress.fromParts("127.0.0.1", 1)), ScanMode.FILTER));
        }
        return new AggregationPageSource(
                splits,
                Optional.empty(),
                split -> sources.open(splits.indexOf(split)),
                List.of(BIGINT),
                COUNT_AND_SUM,
                new int[] {0, 1, 2},
                executor);
    }

    private interface PartSources
    {
        ConnectorPageSource open(int part);
    }

    private record Driven(Map<Long, List<Long>> rows, long peakMemory) {}

    /** As Trino's driver does: a page when there is one, else wait for isBlocked, then ask again. */
    private static Driven drive(AggregationPageSource source)
            throws Exception
    {
        Map<Long, List<Long>> rows = new HashMap<>();
        long peakMemory = 0;
        while (!source.isFinished()) {
            SourcePage page = source.getNextSourcePage();
            peakMemory = Math.max(peakMemory, source.getMemoryUsage());
            if (page != null) {
                for (int position = 0; position < page.getPositionCount(); position++) {
                    long key = BIGINT.getLong(page.getBlock(0), position);
                    assertThat(rows).doesNotContainKey(key);
                    rows.put(key, List.of(BIGINT.getLong(page.getBlock(1), position), BIGINT.getLong(page.getBlock(2), position)));
                }
            }
            source.isBlocked().get(10, TimeUnit.SECONDS);
        }
        source.close();
        return new Driven(rows, peakMemory);
    }

    /** Partial states (key, count, sum) of random groups, added to what the merge must give. */
    private static Page partialPage(Random random, int rows, int groups, Map<Long, List<Long>> expected)
    {
        BlockBuilder keys = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder counts = BIGINT.createBlockBuilder(null, rows);
        BlockBuilder sums = BIGINT.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            long key = random.nextInt(groups);
            long count = 1 + random.nextInt(5);
            long sum = random.nextInt(1000) - 500;
            BIGINT.writeLong(keys, key);
            BIGINT.writeLong(counts, count);
            BIGINT.writeLong(sums, sum);
            expected.merge(key, List.of(count, sum), (left, right) -> List.of(left.get(0) + right.get(0), left.get(1) + right.get(1)));
        }
        return new Page(keys.build(), counts.build(), sums.build());
    }

    /** A part that answers null before each of its pages, and completes its future a moment later. */
    private static final class LaterPageSource
            implements ConnectorPageSource
    {
        private final Iterator<Page> pages;
        private final ExecutorService executor;
        private CompletableFuture<Void> arrived = CompletableFuture.completedFuture(null);
        private boolean waited;

        private LaterPageSource(List<Page> pages, ExecutorService executor)
        {
            this.pages = pages.iterator();
            this.executor = executor;
        }

        @Override
        public SourcePage getNextSourcePage()
        {
            if (!waited) {
                waited = true;
                arrived = CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS, executor));
                return null;
            }
            waited = false;
            return pages.hasNext() ? SourcePage.create(pages.next()) : null;
        }

        @Override
        public CompletableFuture<?> isBlocked()
        {
            return arrived;
        }

        @Override
        public long getCompletedBytes()
        {
            return 0;
        }

        @Override
        public OptionalLong getCompletedPositions()
        {
            return OptionalLong.empty();
        }

        @Override
        public long getReadTimeNanos()
        {
            return 0;
        }

        @Override
        public boolean isFinished()
        {
            return !waited && !pages.hasNext();
        }

        @Override
        public long getMemoryUsage()
        {
            return 0;
        }

        @Override
        public void close() {}
    }

    /** A part whose one page comes only once the test releases it. */
    private static final class GatedPageSource
            implements ConnectorPageSource
    {
        private final CountDownLatch release;
        private Page page;

        private GatedPageSource(CountDownLatch release, Page page)
        {
            this.release = release;
            this.page = page;
        }

        @Override
        public SourcePage getNextSourcePage()
        {
            try {
                release.await();
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
            Page next = page;
            page = null;
            return next == null ? null : SourcePage.create(next);
        }

        @Override
        public long getCompletedBytes()
        {
            return 0;
        }

        @Override
        public OptionalLong getCompletedPositions()
        {
            return OptionalLong.empty();
        }

        @Override
        public long getReadTimeNanos()
        {
            return 0;
        }

        @Override
        public boolean isFinished()
        {
            return page == null;
        }

        @Override
        public long getMemoryUsage()
        {
            return 0;
        }

        @Override
        public void close() {}
    }
}
