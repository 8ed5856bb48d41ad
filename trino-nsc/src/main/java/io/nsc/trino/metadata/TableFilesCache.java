package io.nsc.trino.metadata;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.base.Ticker;
import com.google.common.cache.Cache;
import com.google.common.cache.CacheStats;
import com.google.common.collect.Lists;
import com.google.common.primitives.Ints;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.nsc.trino.NscCacheStatsMBean;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.cache.EvictableCacheBuilder;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.cache.CacheUtils.invalidateAllIf;
import static io.trino.cache.CacheUtils.uncheckedCacheGet;
import static java.lang.Math.ceilDiv;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;

/**
 * The coordinator's view of table versions' files, in bounded memory: every reader gets a table
 * version's files a batch at a time, from the cache when the version's files are there, otherwise
 * paged from the metadata service. A listing that reads a version to its end keeps its files (less
 * their sketches) for the next query if they take at most a quarter of the cache and every
 * listing's kept files together stay within that quarter too; a larger table is listed anew each
 * time, and nothing holds all of its files.
 *
 * <p>Table-wide figures (statistics, distinct counts) come from a {@link TableSummary} per
 * version, folded in one listing that includes the sketches, and cached by itself: its size
 * depends on the columns, not on the files.
 */
public class TableFilesCache
{
    // Guava divides the weight among this many segments: an entry heavier than one segment's
    // share would be evicted as soon as it is cached
    private static final int CONCURRENCY_LEVEL = 4;
    private static final int MAX_CACHED_SUMMARIES = 1000;
    // entries are weighed in KiB: a weight is an int, and the cache may hold more than 2 GiB
    private static final long WEIGHT_UNIT_BYTES = 1024;

    private final NscMetadataClient metadataClient;
    private final int batchSize;
    private final Ticker ticker;
    private final long ttlNanos;
    private final long maxCachedTableBytes;
    // what all listings keep aside until they can cache it, within maxCachedTableBytes in all
    private final AtomicLong keptBytes = new AtomicLong();
    private final Cache<TableVersion, TableFiles> files;
    private final Cache<TableVersion, TableSummary> summaries;
    // the files cache's own statistics miss what fileBatches does not find: a lookup of a version
    // never cached leaves no trace in an EvictableCache, and a listing goes to the cache only at its end
    private final AtomicLong listingsFromCache = new AtomicLong();
    private final AtomicLong listingsFromService = new AtomicLong();
    private final NscCacheStatsMBean filesStats;
    private final NscCacheStatsMBean summariesStats;

    @Inject
    public TableFilesCache(NscMetadataClient metadataClient, NscConfig config)
    {
        this(metadataClient, config, Ticker.systemTicker());
    }

    public TableFilesCache(NscMetadataClient metadataClient, NscConfig config, Ticker ticker)
    {
        this.metadataClient = requireNonNull(metadataClient, "metadataClient is null");
        this.ticker = requireNonNull(ticker, "ticker is null");
        this.batchSize = config.getTableFilesBatchSize();
        this.ttlNanos = config.getTableFilesCacheTtl().roundTo(NANOSECONDS);
        long maxBytes = config.getTableFilesCacheMaxSize().toBytes();
        // nothing is cached with a lifetime of 0 (EvictableCacheBuilder shares nothing then), so nothing is kept for it either
        this.maxCachedTableBytes = ttlNanos == 0 ? 0 : maxBytes / CONCURRENCY_LEVEL;
        this.files = EvictableCacheBuilder.newBuilder()
                // replicas change (a node fails, a copy is repaired): the files of a version do not
                .expireAfterWrite(config.getTableFilesCacheTtl().toJavaTime())
                .maximumWeight(maxBytes / WEIGHT_UNIT_BYTES)
                .concurrencyLevel(CONCURRENCY_LEVEL)
                .weigher((TableVersion _, TableFiles tableFiles) -> Ints.saturatedCast(ceilDiv(tableFiles.retainedSizeInBytes(), WEIGHT_UNIT_BYTES)))
                .ticker(ticker)
                // a lifetime of 0 turns caching off: then every query lists for itself (a size of 0
                // builds a cache that evicts every entry at once, and no listing keeps any)
                .shareNothingWhenDisabled()
                .recordStats()
                .build();
        // a version's summary never goes stale: it holds no replicas
        this.summaries = EvictableCacheBuilder.newBuilder()
                .maximumSize(MAX_CACHED_SUMMARIES)
                .recordStats()
                .build();
        this.filesStats = new NscCacheStatsMBean(files, this::filesCacheStats);
        this.summariesStats = new NscCacheStatsMBean(summaries);
    }

    /**
     * The files of the table version the handle names, in commit order, at most the configured
     * batch size at a time (fewer when the metadata service's pages are smaller), without their
     * column sketches.
     */
    public TableFileBatches fileBatches(NscTableHandle table)
    {
        TableVersion key = TableVersion.of(table);
        TableFiles cached = files.getIfPresent(key);
        if (cached != null) {
            listingsFromCache.incrementAndGet();
            return TableFileBatches.of(Lists.partition(cached.files(), batchSize).iterator());
        }
        listingsFromService.incrementAndGet();
        return new CachingListing(key, new TableFilePages(metadataClient, key.tableId(), key.version(), batchSize, false));
    }

    /** Row count, per-column figures and distinct counts of the table version the handle names. */
    public TableSummary summary(NscTableHandle table)
    {
        TableVersion key = TableVersion.of(table);
        // the summary is indexed by the columns' places in the files, which dropped columns keep
        int slots = table.columns().stream().mapToInt(column -> column.ordinal() + 1).max().orElse(0);
        return cacheGet(summaries, key, () -> summarize(key, slots));
    }

    /**
     * The cached file lists: a hit is a listing served from the cache, a miss one read from the
     * metadata service, a load a listing handed to the cache at its end.
     */
    @Managed
    @Nested
    public NscCacheStatsMBean getFilesCacheStats()
    {
        return filesStats;
    }

    /** The cached summaries: a miss is a listing of a version's files with their sketches. */
    @Managed
    @Nested
    public NscCacheStatsMBean getSummariesCacheStats()
    {
        return summariesStats;
    }

    private CacheStats filesCacheStats()
    {
        CacheStats cache = files.stats();
        return new CacheStats(listingsFromCache.get(), listingsFromService.get(), cache.loadSuccessCount(), cache.loadExceptionCount(), cache.totalLoadTime(), cache.evictionCount());
    }

    /** Bytes all unfinished listings keep aside for the cache: at most a quarter of its size. */
    @VisibleForTesting
    long keptBytes()
    {
        return keptBytes.get();
    }

    private TableSummary summarize(TableVersion key, int columnCount)
    {
        TableSummary.Builder summary = TableSummary.builder(key.tableId(), columnCount);
        // the sketches are only in the service's answers: a cached listing has none
        try (TableFileBatches batches = new CachingListing(key, new TableFilePages(metadataClient, key.tableId(), key.version(), batchSize, true))) {
            while (batches.hasNext()) {
                batches.next().forEach(summary::add);
            }
        }
        return summary.build();
    }

    /**
     * Forgets every cached version of the table: after a write by this coordinator, so that its
     * next query reads the table's files afresh rather than trusting an entry to be replaced.
     */
    public void invalidate(long tableId)
    {
        invalidateAllIf(files, key -> key.tableId() == tableId);
        invalidateAllIf(summaries, key -> key.tableId() == tableId);
    }

    /** The cached value, or the one {@code loader} computes, which fails with what {@code loader} throws (a TrinoException keeps its error code). */
    private static <V> V cacheGet(Cache<TableVersion, V> cache, TableVersion key, Supplier<V> loader)
    {
        try {
            return uncheckedCacheGet(cache, key, loader);
        }
        catch (UncheckedExecutionException e) {
            throwIfUnchecked(e.getCause());
            throw e;
        }
    }

    private record TableVersion(long tableId, long version)
    {
        static TableVersion of(NscTableHandle table)
        {
            return new TableVersion(table.tableId(), table.version());
        }
    }

    /**
     * Hands on a listing's pages as they come and keeps their files (without sketches) aside
     * while they fit: read to its end, a listing that still fits is cached. It stops keeping them
     * the moment they would take it past what a cached table may take, or all listings past what
     * they may keep together, so no listing holds more than a cacheable table and all of them no
     * more than one. Closed early (a query cancelled, a top-N pass that stops), it lets them go.
     *
     * <p>Its files' replicas are as old as its first page: a listing slower than the cache's
     * lifetime caches nothing, since the entry would outlive it.
     */
    private final class CachingListing
            implements TableFileBatches
    {
        private final TableVersion key;
        private final Iterator<List<FileEntry>> pages;
        private final long startNanos = ticker.read();
        // guarded by this: the scheduler's thread reads, a cancelled query's may close
        private List<FileEntry> kept;
        private long reservedBytes;
        private long keptBesidesLastPage;

        CachingListing(TableVersion key, Iterator<List<FileEntry>> pages)
        {
            this.key = key;
            this.pages = pages;
            this.kept = maxCachedTableBytes > 0 ? new ArrayList<>() : null;
        }

        @Override
        public boolean hasNext()
        {
            return pages.hasNext();
        }

        @Override
        public List<FileEntry> next()
        {
            List<FileEntry> page;
            try {
                page = pages.next();
            }
            catch (RuntimeException e) {
                close();
                throw e;
            }
            keep(page);
            if (!pages.hasNext()) {
                cacheKept();
            }
            return page;
        }

        @Override
        public synchronized long filesKept()
        {
            return keptBesidesLastPage;
        }

        @Override
        public synchronized void close()
        {
            stopKeeping();
        }

        private synchronized void keep(List<FileEntry> page)
        {
            if (kept == null) {
                return;
            }
            List<FileEntry> withoutSketches = page.stream().map(FileEntry::withoutColumnSketches).collect(toImmutableList());
            long bytes = withoutSketches.stream().mapToLong(FileEntry::retainedSizeInBytes).sum();
            if (reservedBytes + bytes > maxCachedTableBytes || !reserve(bytes)) {
                stopKeeping();
                return;
            }
            reservedBytes += bytes;
            keptBesidesLastPage = kept.size();
            kept.addAll(withoutSketches);
        }

        private synchronized void cacheKept()
        {
            if (kept != null && ticker.read() - startNanos < ttlNanos) {
                TableFiles listed = new TableFiles(key.tableId(), key.version(), kept);
                // a concurrent listing may have cached the version first: either is right
                cacheGet(files, key, () -> listed);
            }
            // the cache's weight accounts for what it took
            stopKeeping();
        }

        private boolean reserve(long bytes)
        {
            long before = keptBytes.getAndAdd(bytes);
            if (before + bytes > maxCachedTableBytes) {
                keptBytes.addAndGet(-bytes);
                return false;
            }
            return true;
        }

        private void stopKeeping()
        {
            keptBytes.addAndGet(-reservedBytes);
            reservedBytes = 0;
            kept = null;
            keptBesidesLastPage = 0;
        }
    }
}
