package io.nsc.trino.metadata;

import com.google.common.cache.Cache;
import com.google.common.collect.Lists;
import com.google.common.primitives.Ints;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.cache.EvictableCacheBuilder;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.trino.cache.CacheUtils.invalidateAllIf;
import static io.trino.cache.CacheUtils.uncheckedCacheGet;
import static java.util.Objects.requireNonNull;

/**
 * The coordinator's view of table versions' files, in bounded memory: every reader gets a table
 * version's files a batch at a time, from the cache when the version's files are there, otherwise
 * paged from the metadata service. A listing that reads a version to its end keeps its files (less
 * their sketches) for the next query if they take at most a quarter of the cache; a larger table
 * is listed anew each time, and nothing holds all of its files.
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

    private final NscMetadataClient metadataClient;
    private final int batchSize;
    private final long maxCachedTableBytes;
    private final Cache<TableVersion, TableFiles> files;
    private final Cache<TableVersion, TableSummary> summaries;

    @Inject
    public TableFilesCache(NscMetadataClient metadataClient, NscConfig config)
    {
        this.metadataClient = requireNonNull(metadataClient, "metadataClient is null");
        this.batchSize = config.getTableFilesBatchSize();
        long maxBytes = config.getTableFilesCacheMaxSize().toBytes();
        this.maxCachedTableBytes = maxBytes / CONCURRENCY_LEVEL;
        this.files = EvictableCacheBuilder.newBuilder()
                // replicas change (a node fails, a copy is repaired): the files of a version do not
                .expireAfterWrite(config.getTableFilesCacheTtl().toJavaTime())
                .maximumWeight(maxBytes)
                .concurrencyLevel(CONCURRENCY_LEVEL)
                .weigher((TableVersion _, TableFiles tableFiles) -> Ints.saturatedCast(tableFiles.retainedSizeInBytes()))
                // a size or lifetime of 0 turns caching off: then every query lists for itself
                .shareNothingWhenDisabled()
                .build();
        // a version's summary never goes stale: it holds no replicas
        this.summaries = EvictableCacheBuilder.newBuilder()
                .maximumSize(MAX_CACHED_SUMMARIES)
                .build();
    }

    /**
     * The files of the table version the handle names, in commit order, at most the configured
     * batch size at a time, without their column sketches.
     */
    public Iterator<List<FileEntry>> fileBatches(NscTableHandle table)
    {
        TableVersion key = TableVersion.of(table);
        TableFiles cached = files.getIfPresent(key);
        if (cached != null) {
            return Lists.partition(cached.files(), batchSize).iterator();
        }
        return new CachingListing(key, new TableFilePages(metadataClient, key.tableId(), key.version(), batchSize, false));
    }

    /** Row count, per-column figures and distinct counts of the table version the handle names. */
    public TableSummary summary(NscTableHandle table)
    {
        TableVersion key = TableVersion.of(table);
        return cacheGet(summaries, key, () -> summarize(key, table.columns().size()));
    }

    private TableSummary summarize(TableVersion key, int columnCount)
    {
        TableSummary.Builder summary = TableSummary.builder(key.tableId(), columnCount);
        // the sketches are only in the service's answers: a cached listing has none
        Iterator<List<FileEntry>> batches = new CachingListing(key, new TableFilePages(metadataClient, key.tableId(), key.version(), batchSize, true));
        while (batches.hasNext()) {
            batches.next().forEach(summary::add);
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
     * while they fit the cache: read to its end, a listing that still fits is cached. It stops
     * keeping them the moment they do not fit, so it never holds more than a cacheable table.
     */
    private final class CachingListing
            implements Iterator<List<FileEntry>>
    {
        private final TableVersion key;
        private final Iterator<List<FileEntry>> pages;
        private List<FileEntry> kept = new ArrayList<>();
        private long keptBytes;

        CachingListing(TableVersion key, Iterator<List<FileEntry>> pages)
        {
            this.key = key;
            this.pages = pages;
        }

        @Override
        public boolean hasNext()
        {
            return pages.hasNext();
        }

        @Override
        public List<FileEntry> next()
        {
            List<FileEntry> page = pages.next();
            keep(page);
            if (!pages.hasNext() && kept != null) {
                TableFiles listed = new TableFiles(key.tableId(), key.version(), kept);
                kept = null;
                // a concurrent listing may have cached the version first: either is right
                cacheGet(files, key, () -> listed);
            }
            return page;
        }

        private void keep(List<FileEntry> page)
        {
            if (kept == null) {
                return;
            }
            for (FileEntry file : page) {
                FileEntry withoutSketches = file.withoutColumnSketches();
                keptBytes += withoutSketches.retainedSizeInBytes();
                if (keptBytes > maxCachedTableBytes) {
                    kept = null;
                    return;
                }
                kept.add(withoutSketches);
            }
        }
    }
}
