package io.nsc.trino.client;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.base.Ticker;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.host.HostCpus;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.trino.NscCacheStatsMBean;
import io.trino.cache.EvictableCacheBuilder;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * How busy each storage node is with near-storage scans, as it last reported, at most a second
 * old: the coordinator asks each node at most once a second however many splits it plans.
 */
public class StorageNodeLoad
{
    private static final long STATS_DEADLINE_MILLIS = 2_000;

    /**
     * Active scans against the node's processors, scans waiting for the node's memory, and whether
     * the node's CPUs are this process's too (the same machine, CPU sets that meet). Unknown load
     * counts as saturated and shared.
     */
    public record Load(long activeScans, long queuedScans, int processors, boolean sharesCpus)
    {
        public static final Load UNKNOWN = new Load(1, 0, 0, true);

        /** Every processor busy with a scan, or scans already waiting for the node's memory. */
        public boolean saturated()
        {
            return activeScans >= processors || queuedScans > 0;
        }
    }

    private final StorageClients clients;
    private final LoadingCache<String, Load> loads;
    private final HostCpus self = HostCpus.current();
    private final NscCacheStatsMBean stats;

    @Inject
    public StorageNodeLoad(StorageClients clients)
    {
        this(clients, Ticker.systemTicker());
    }

    @VisibleForTesting
    StorageNodeLoad(StorageClients clients, Ticker ticker)
    {
        this.clients = requireNonNull(clients, "clients is null");
        this.loads = EvictableCacheBuilder.newBuilder()
                .expireAfterWrite(1, TimeUnit.SECONDS)
                .maximumSize(10_000)
                .ticker(ticker)
                .recordStats()
                .build(CacheLoader.from(this::fetch));
        this.stats = new NscCacheStatsMBean(loads);
    }

    /** A miss is a call to a storage node for its load. */
    @Managed
    @Nested
    public NscCacheStatsMBean getCacheStats()
    {
        return stats;
    }

    public Load get(String address)
    {
        try {
            return loads.getUnchecked(address);
        }
        catch (UncheckedExecutionException e) {
            return Load.UNKNOWN;
        }
    }

    private Load fetch(String address)
    {
        try {
            GetNodeStatsResponse stats = clients.blockingStub(address)
                    .withDeadlineAfter(STATS_DEADLINE_MILLIS, TimeUnit.MILLISECONDS)
                    .getNodeStats(GetNodeStatsRequest.getDefaultInstance());
            HostCpus node = stats.getHost().isEmpty() ? HostCpus.UNKNOWN : new HostCpus(stats.getHost(), HostCpus.parseCpuList(stats.getCpus()));
            return new Load(stats.getScansActive(), stats.getScansQueued(), stats.getAvailableProcessors(), node.sharesCpusWith(self));
        }
        catch (StatusRuntimeException e) {
            // a node that does not answer will not scan fast either
            return Load.UNKNOWN;
        }
    }
}
