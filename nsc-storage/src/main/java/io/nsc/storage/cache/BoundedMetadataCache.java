package io.nsc.storage.cache;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheStats;
import io.airlift.units.DataSize;
import io.trino.cache.EvictableCacheBuilder;
import org.weakref.jmx.Managed;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.function.ToLongFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Metadata of stored files read on demand (compact stats, parsed footers), kept while it fits in
 * a number of bytes: a node serves any number of files with the same memory, and reads the
 * metadata of a file again when it was evicted. Each value weighs what it retains, as estimated
 * by the caller, plus the cache's own entry; the values held never weigh more than the maximum
 * together (a value heavier than a quarter of it is not kept at all: Guava splits the weight
 * among four segments). A maximum of 0 keeps nothing.
 * <p>
 * Stored files are immutable and their ids never name other bytes, so an entry never goes stale.
 */
public final class BoundedMetadataCache<K, V>
{
    // the cache's entry and token, and the key's share: a file id and its string
    static final long ENTRY_BYTES = 160;

    private final Cache<K, Weighed<V>> cache;
    private final ToLongFunction<? super V> retainedBytes;
    private final long maxBytes;

    private record Weighed<V>(V value, int weight) {}

    /**
     * @param retainedBytes what a value retains on the heap
     */
    public BoundedMetadataCache(DataSize maxSize, ToLongFunction<? super V> retainedBytes)
    {
        this.maxBytes = requireNonNull(maxSize, "maxSize is null").toBytes();
        this.retainedBytes = requireNonNull(retainedBytes, "retainedBytes is null");
        checkArgument(maxBytes >= 0, "maxSize is negative");
        this.cache = EvictableCacheBuilder.newBuilder()
                .maximumWeight(maxBytes)
                .<K, Weighed<V>>weigher((_, weighed) -> weighed.weight())
                .shareNothingWhenDisabled()
                .recordStats()
                .build();
    }

    /**
     * The value of the key, loaded and kept (if it fits) when it is not held.
     *
     * @throws ExecutionException when the loader fails; nothing is kept
     */
    public V get(K key, Callable<V> loader)
            throws ExecutionException
    {
        return cache.get(key, () -> weighed(loader.call())).value();
    }

    public void invalidate(K key)
    {
        cache.invalidate(key);
    }

    private Weighed<V> weighed(V value)
    {
        long weight = ENTRY_BYTES + retainedBytes.applyAsLong(value);
        return new Weighed<>(value, (int) Math.min(weight, Integer.MAX_VALUE));
    }

    /** The weight of the values held: what they retain, with the cache's entries. */
    @Managed
    public long getRetainedBytes()
    {
        return cache.asMap().values().stream().mapToLong(Weighed::weight).sum();
    }

    @Managed
    public long getMaxBytes()
    {
        return maxBytes;
    }

    @Managed
    public long getEntries()
    {
        return cache.size();
    }

    @Managed
    public long getHits()
    {
        return stats().hitCount();
    }

    @Managed
    public long getMisses()
    {
        return stats().missCount();
    }

    @Managed
    public long getEvictions()
    {
        return stats().evictionCount();
    }

    private CacheStats stats()
    {
        return cache.stats();
    }
}
