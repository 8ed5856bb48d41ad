package io.nsc.storage.scan;

import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.parquet.scan.RowGroupPageIndexes;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.storage.cache.BoundedMetadataCache;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.ParquetReaderOptions;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.concurrent.Threads.daemonThreadsNamed;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.Executors.newFixedThreadPool;

/**
 * Runs near-storage scans: decodes row groups of a local file with trino-parquet, keeps the rows
 * the predicate selects and sends the output columns as compressed pages. Counts what that
 * costs and saves, for GetNodeStats, /v1/metrics and JMX.
 */
public final class NearStorageScanner
{
    /** The counters every scan updates. */
    record Counters(
            AtomicLong active,
            CounterStat completed,
            CounterStat rowsScanned,
            CounterStat rowsReturned,
            CounterStat bytesReadFromDisk,
            CounterStat bytesSent,
            CounterStat cpuNanos,
            CounterStat refusedInvalid,
            CounterStat refusedMemory,
            CounterStat refusedBusy,
            CounterStat corruptScans,
            CounterStat earlyFlushes,
            AtomicLong peakMemoryBytes)
    {
        /** All at zero, for a new scanner. */
        static Counters zero()
        {
            return new Counters(
                    new AtomicLong(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new CounterStat(),
                    new AtomicLong());
        }
    }

    private final ExecutorService scanThreads;
    private final ParquetFileStore store;
    private final int maxBatchBytes;
    private final ScanLimits limits;
    private final NodeMemoryPool pool;
    private final ScanCaches caches;
    // page indexes skip pages a scan's predicate cannot match, in files whose writer wrote them
    private final ParquetReaderOptions readerOptions = ParquetReaderOptions.defaultOptions();
    private final Counters counters = Counters.zero();

    /**
     * @param footerCacheSize memory for the parsed footers of files recently scanned, reserved in
     *        {@code pool} for as long as the scanner lives
     * @param pageIndexCacheSize memory for the decoded page indexes of row groups recently scanned,
     *        reserved the same way
     * @param pool the node's memory, which every scan takes its budget from
     * @param scanThreads the threads all scans run on
     */
    public NearStorageScanner(ParquetFileStore store, DataSize maxBatch, DataSize footerCacheSize, DataSize pageIndexCacheSize, ScanLimits limits, NodeMemoryPool pool, int scanThreads)
    {
        checkArgument(scanThreads > 0, "scanThreads must be positive");
        this.pool = requireNonNull(pool, "pool is null");
        // the caches are bounded in bytes: their bounds are the node's to hold, before any scan
        long cacheBytes = footerCacheSize.toBytes() + pageIndexCacheSize.toBytes();
        checkArgument(cacheBytes + limits.admissionBytes() <= pool.getMaxBytes(),
                "the scan footer cache (%s), the page index cache (%s) and one scan's admission reservation (%s) must fit in the node's memory pool (%s)",
                footerCacheSize, pageIndexCacheSize, DataSize.ofBytes(limits.admissionBytes()).succinct(), DataSize.ofBytes(pool.getMaxBytes()).succinct());
        checkArgument(pool.tryReserve(cacheBytes), "the node's memory pool is already in use");
        this.scanThreads = newFixedThreadPool(scanThreads, daemonThreadsNamed("nsc-scan-%s"));
        this.store = requireNonNull(store, "store is null");
        this.maxBatchBytes = toIntExact(requireNonNull(maxBatch, "maxBatch is null").toBytes());
        this.limits = requireNonNull(limits, "limits is null");
        this.caches = new ScanCaches(
                new BoundedMetadataCache<>(footerCacheSize, ParsedFooter::retainedBytes),
                new BoundedMetadataCache<>(pageIndexCacheSize, RowGroupPageIndexes::retainedBytes));
    }

    /**
     * Streams the scan's batches, then its summary, as fast as the client takes them.
     */
    public void scan(StoredFile file, ScanRequest request, ServerCallStreamObserver<ScanResponse> call)
    {
        new ScanCall(store, file, request, maxBatchBytes, limits, pool, caches, readerOptions, call, counters, scanThreads).start();
    }

    /** Stops the scan threads; scans still running end with the node. */
    public void close()
    {
        scanThreads.shutdownNow();
    }

    /** Scans that met bytes not matching their checksums (each quarantined the copy). */
    @Managed
    @Nested
    public CounterStat getCorruptScans()
    {
        return counters.corruptScans();
    }

    @Managed
    public long getActiveScans()
    {
        return counters.active().get();
    }

    @Managed
    @Nested
    public CounterStat getScansCompleted()
    {
        return counters.completed();
    }

    @Managed
    @Nested
    public CounterStat getRowsScanned()
    {
        return counters.rowsScanned();
    }

    @Managed
    @Nested
    public CounterStat getRowsReturned()
    {
        return counters.rowsReturned();
    }

    @Managed
    @Nested
    public CounterStat getBytesReadFromDisk()
    {
        return counters.bytesReadFromDisk();
    }

    @Managed
    @Nested
    public CounterStat getBytesSent()
    {
        return counters.bytesSent();
    }

    @Managed
    @Nested
    public CounterStat getCpuNanos()
    {
        return counters.cpuNanos();
    }

    /** Scans refused as malformed or over a request limit (INVALID_ARGUMENT). */
    @Managed
    @Nested
    public CounterStat getScansRefusedInvalid()
    {
        return counters.refusedInvalid();
    }

    /**
     * Times an aggregation's groups or a top-N's rows filled their share of a scan's budget and
     * were sent early (the scan went on with empty ones).
     */
    @Managed
    @Nested
    public CounterStat getEarlyFlushes()
    {
        return counters.earlyFlushes();
    }

    /** The most any one scan held in its memory budget since the node started. */
    @Managed
    public long getPeakScanMemoryBytes()
    {
        return counters.peakMemoryBytes().get();
    }

    @Managed
    @Nested
    public BoundedMetadataCache<?, ?> getFooterCache()
    {
        return caches.footers();
    }

    @Managed
    @Nested
    public BoundedMetadataCache<?, ?> getPageIndexCache()
    {
        return caches.pageIndexes();
    }

    /**
     * Scans refused because the node's memory pool was exhausted (RESOURCE_EXHAUSTED with a retry
     * hint): at admission, or when a running scan's growth could not be given.
     */
    @Managed
    @Nested
    public CounterStat getScansRefusedBusy()
    {
        return counters.refusedBusy();
    }

    /** Scans stopped at their memory budget (RESOURCE_EXHAUSTED). */
    @Managed
    @Nested
    public CounterStat getScansRefusedMemory()
    {
        return counters.refusedMemory();
    }
}
