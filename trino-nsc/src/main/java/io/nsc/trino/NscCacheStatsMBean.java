package io.nsc.trino;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheStats;
import org.weakref.jmx.Managed;

import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * One of the connector's caches over JMX, exported {@code @Nested} in its owner's MBean. It has
 * the attributes of Trino's {@link io.trino.cache.CacheStatsMBean} (HitRate, MissRate,
 * RequestCount, LoadCount), so what reads Trino's caches reads these, and adds what a monitor
 * needs besides: counts, whose differences over time show the current rates (the rates above are
 * since start), and the size as an attribute (Trino's {@code size()} is an operation, which its
 * {@code jmx} connector does not show). The cache must record its statistics.
 */
public final class NscCacheStatsMBean
{
    private final Cache<?, ?> cache;
    private final Supplier<CacheStats> stats;

    public NscCacheStatsMBean(Cache<?, ?> cache)
    {
        this(cache, cache::stats);
    }

    /**
     * @param stats the cache's figures, for a cache whose owner counts its hits and misses itself
     *        (a lookup the cache's own statistics do not see)
     */
    public NscCacheStatsMBean(Cache<?, ?> cache, Supplier<CacheStats> stats)
    {
        this.cache = requireNonNull(cache, "cache is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @Managed
    public long getSize()
    {
        return cache.size();
    }

    @Managed
    public long getHitCount()
    {
        return stats.get().hitCount();
    }

    @Managed
    public long getMissCount()
    {
        return stats.get().missCount();
    }

    @Managed
    public long getRequestCount()
    {
        return stats.get().requestCount();
    }

    @Managed
    public double getHitRate()
    {
        return stats.get().hitRate();
    }

    @Managed
    public double getMissRate()
    {
        return stats.get().missRate();
    }

    @Managed
    public long getLoadCount()
    {
        return stats.get().loadCount();
    }

    @Managed
    public long getEvictionCount()
    {
        return stats.get().evictionCount();
    }
}
