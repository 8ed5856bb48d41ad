package io.nsc.storage.scan;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import io.airlift.stats.CounterStat;
import io.airlift.units.DataSize;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.util.concurrent.atomic.AtomicLong;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

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
            CounterStat corruptScans) {}

    private final ParquetFileStore store;
    private final int maxBatchBytes;
    private final ScanLimits limits;
    private final Cache<String, ParquetMetadata> footers;
    private final ParquetReaderOptions readerOptions = ParquetReaderOptions.builder().withUseColumnIndex(false).build();
    private final Counters counters = new Counters(new AtomicLong(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat(), new CounterStat());

    public NearStorageScanner(ParquetFileStore store, DataSize maxBatch, int footerCacheSize, ScanLimits limits)
    {
        this.store = requireNonNull(store, "store is null");
        this.maxBatchBytes = toIntExact(requireNonNull(maxBatch, "maxBatch is null").toBytes());
        this.limits = requireNonNull(limits, "limits is null");
        this.footers = CacheBuilder.newBuilder().maximumSize(footerCacheSize).build();
    }

    /**
     * Streams the scan's batches, then its summary, as fast as the client takes them.
     */
    public void scan(StoredFile file, ScanRequest request, ServerCallStreamObserver<ScanResponse> call)
    {
        new ScanCall(store, file, request, maxBatchBytes, limits, footers, readerOptions, call, counters).start();
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

    /** Scans stopped at their memory budget (RESOURCE_EXHAUSTED). */
    @Managed
    @Nested
    public CounterStat getScansRefusedMemory()
    {
        return counters.refusedMemory();
    }
}
