package io.nsc.trino;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.DefunctConfig;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MaxDuration;
import io.airlift.units.MinDataSize;
import io.airlift.units.MinDuration;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.client.ValidMetadataAddresses;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

// a footer's size on the heap grows with its row groups and columns: a count of footers bounded nothing
@DefunctConfig("nsc.footer-cache-size")
public class NscConfig
{
    private String metadataAddress;
    private DataSize targetSplitSize = DataSize.of(32, MEGABYTE);
    private Duration metadataTimeout = new Duration(30, SECONDS);
    private Duration storageTimeout = new Duration(2, MINUTES);
    private Duration tableFilesCacheTtl = new Duration(10, SECONDS);
    private DataSize tableFilesCacheMaxSize = DataSize.of(128, MEGABYTE);
    private int tableFilesBatchSize = 1000;
    private DataSize footerCacheMaxSize = DataSize.of(128, MEGABYTE);
    private boolean statsPruningEnabled = true;
    private DataSize writerBufferSize = DataSize.of(256, MEGABYTE);
    private DataSize writerTargetFileSize = DataSize.of(1, GIGABYTE);
    private ParquetWriteCodec compressionCodec = ParquetWriteCodec.DEFAULT;
    private String writerTempDir;
    private Duration uploadTimeout = new Duration(10, MINUTES);
    private int maxReplicaReplacements = 3;
    private PushdownMode pushdown = PushdownMode.AUTO;
    // off: no win over the coordinator's estimates shown (benchmarks/tpch-scale/results/sf1-modes*.txt)
    private boolean adaptiveScanModes;
    private ScanCompression scanCompression = ScanCompression.LZ4;
    private DataSize scanBatchSize = DataSize.of(1, MEGABYTE);
    // measured on TPC-H sf1 raw reads: 1MB (trino-parquet's object-store default) fetched 1,361 MB, 128kB 789 MB (docs/benchmarks.md)
    private DataSize rawReadMaxMergeDistance = DataSize.of(128, KILOBYTE);
    private Duration dynamicFilteringWaitTimeout = new Duration(1, SECONDS);
    // at 1 Gbit/s 64 ms of link: TPC-H Q14's part (1.4 MB) read at once instead of after the build side
    private DataSize dynamicFilteringMinProbeSize = DataSize.of(8, MEGABYTE);
    // TPC-H Q18's filter, from an aggregation of all of lineitem, reached its probe splits 1.2-1.8 s after they opened
    private Duration dynamicFilteringProbeWaitTimeout = new Duration(5, SECONDS);
    private long aggregationPushdownMaxGroups = 10_000;
    private Duration scanTimeout = new Duration(1, HOURS);
    private Duration busyNodeBackOff = new Duration(30, SECONDS);
    private int scanFanOutThreads = 16;

    @NotNull
    @ValidMetadataAddresses
    public String getMetadataAddress()
    {
        return metadataAddress;
    }

    @Config("nsc.metadata-address")
    @ConfigDescription("Comma-separated host:port of the nsc metadata services, in order of preference: the connector uses the first that answers and fails over to the next")
    public NscConfig setMetadataAddress(String metadataAddress)
    {
        this.metadataAddress = metadataAddress;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    @MaxDataSize("1GB")
    public DataSize getTargetSplitSize()
    {
        return targetSplitSize;
    }

    @Config("nsc.target-split-size")
    @ConfigDescription("Consecutive surviving row groups of a file are packed into one split up to this compressed size")
    public NscConfig setTargetSplitSize(DataSize targetSplitSize)
    {
        this.targetSplitSize = targetSplitSize;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getMetadataTimeout()
    {
        return metadataTimeout;
    }

    @Config("nsc.metadata-timeout")
    @ConfigDescription("Deadline of one call to the metadata service")
    public NscConfig setMetadataTimeout(Duration metadataTimeout)
    {
        this.metadataTimeout = metadataTimeout;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getStorageTimeout()
    {
        return storageTimeout;
    }

    @Config("nsc.storage-timeout")
    @ConfigDescription("Deadline of one byte-range read from a storage node before the next replica is tried")
    public NscConfig setStorageTimeout(Duration storageTimeout)
    {
        this.storageTimeout = storageTimeout;
        return this;
    }

    @NotNull
    public Duration getTableFilesCacheTtl()
    {
        return tableFilesCacheTtl;
    }

    @Config("nsc.table-files-cache-ttl")
    @ConfigDescription("How long the coordinator reuses a table's file list and compact stats for the same table version")
    public NscConfig setTableFilesCacheTtl(Duration tableFilesCacheTtl)
    {
        this.tableFilesCacheTtl = tableFilesCacheTtl;
        return this;
    }

    @NotNull
    @MaxDataSize("64GB")
    public DataSize getTableFilesCacheMaxSize()
    {
        return tableFilesCacheMaxSize;
    }

    @Config("nsc.table-files-cache-max-size")
    @ConfigDescription("Coordinator memory for cached file lists and compact stats of table versions; a table whose files take more than a quarter of it is listed anew for each query instead (0: cache none)")
    public NscConfig setTableFilesCacheMaxSize(DataSize tableFilesCacheMaxSize)
    {
        this.tableFilesCacheMaxSize = tableFilesCacheMaxSize;
        return this;
    }

    @Min(1)
    @Max(100_000)
    public int getTableFilesBatchSize()
    {
        return tableFilesBatchSize;
    }

    @Config("nsc.table-files-batch-size")
    @ConfigDescription("Files of a table the coordinator reads and plans at a time, one metadata-service page each: at most the service's page limits (split generation holds one batch; statistics fold one batch at a time)")
    public NscConfig setTableFilesBatchSize(int tableFilesBatchSize)
    {
        this.tableFilesBatchSize = tableFilesBatchSize;
        return this;
    }

    @NotNull
    @MaxDataSize("64GB")
    public DataSize getFooterCacheMaxSize()
    {
        return footerCacheMaxSize;
    }

    @Config("nsc.footer-cache-max-size")
    @ConfigDescription("Heap per worker for parsed Parquet footers, by file id (files are immutable; 0B: none cached)")
    public NscConfig setFooterCacheMaxSize(DataSize footerCacheMaxSize)
    {
        this.footerCacheMaxSize = footerCacheMaxSize;
        return this;
    }

    public boolean isStatsPruningEnabled()
    {
        return statsPruningEnabled;
    }

    @Config("nsc.stats-pruning-enabled")
    @ConfigDescription("Skip row groups whose compact stats prove no row can match (catalog default of the session property)")
    public NscConfig setStatsPruningEnabled(boolean statsPruningEnabled)
    {
        this.statsPruningEnabled = statsPruningEnabled;
        return this;
    }

    @NotNull
    @MinDataSize("1MB")
    @MaxDataSize("4GB")
    public DataSize getWriterBufferSize()
    {
        return writerBufferSize;
    }

    @Config("nsc.writer-buffer-size")
    @ConfigDescription("Memory of one page sink: the row group being written and, for sorted_by tables, the rows being sorted (spilled as sorted runs to nsc.writer-temp-dir beyond it)")
    public NscConfig setWriterBufferSize(DataSize writerBufferSize)
    {
        this.writerBufferSize = writerBufferSize;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    @MaxDataSize("64GB")
    public DataSize getWriterTargetFileSize()
    {
        return writerTargetFileSize;
    }

    @Config("nsc.writer-target-file-size")
    @ConfigDescription("Size of the Parquet files a page sink writes: it closes a file once it reaches this size (sorted_by tables: once its rows would make about this size)")
    public NscConfig setWriterTargetFileSize(DataSize writerTargetFileSize)
    {
        this.writerTargetFileSize = writerTargetFileSize;
        return this;
    }

    /** The codec of the files of tables that set no compression_codec. */
    @NotNull
    public ParquetWriteCodec getCompressionCodec()
    {
        return compressionCodec;
    }

    @Config("nsc.compression-codec")
    @ConfigDescription("Compression of the Parquet files CREATE TABLE AS, INSERT and DELETE write into tables that set no compression_codec: NONE, SNAPPY, GZIP or ZSTD (not LZ4: Trino 476 cannot read the LZ4 it writes)")
    public NscConfig setCompressionCodec(ParquetWriteCodec compressionCodec)
    {
        this.compressionCodec = compressionCodec;
        return this;
    }

    /** Where page sinks write their files before uploading them; null means {@code java.io.tmpdir}. */
    public String getWriterTempDir()
    {
        return writerTempDir;
    }

    @Config("nsc.writer-temp-dir")
    @ConfigDescription("Local directory for files being written, before they are uploaded to storage nodes, and for the sorted runs of sorted_by tables (default: java.io.tmpdir)")
    public NscConfig setWriterTempDir(String writerTempDir)
    {
        this.writerTempDir = writerTempDir;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getUploadTimeout()
    {
        return uploadTimeout;
    }

    @Config("nsc.upload-timeout")
    @ConfigDescription("Deadline of uploading one written file to one storage node")
    public NscConfig setUploadTimeout(Duration uploadTimeout)
    {
        this.uploadTimeout = uploadTimeout;
        return this;
    }

    @Min(0)
    @Max(100)
    public int getMaxReplicaReplacements()
    {
        return maxReplicaReplacements;
    }

    @Config("nsc.max-replica-replacements")
    @ConfigDescription("Uploads of one written file that may go to another storage node after the upload to a node failed (0: none; the write then needs min_replicas of the first nodes)")
    public NscConfig setMaxReplicaReplacements(int maxReplicaReplacements)
    {
        this.maxReplicaReplacements = maxReplicaReplacements;
        return this;
    }

    @NotNull
    public PushdownMode getPushdown()
    {
        return pushdown;
    }

    @Config("nsc.pushdown")
    @ConfigDescription("AUTO: per split, raw byte ranges or a storage-side scan; FILTER: storage nodes filter, project and limit every split; RAW: workers decode raw byte ranges; NONE: no pruning and no pushdown")
    public NscConfig setPushdown(PushdownMode pushdown)
    {
        this.pushdown = pushdown;
        return this;
    }

    public boolean isAdaptiveScanModes()
    {
        return adaptiveScanModes;
    }

    @Config("nsc.adaptive-scan-modes")
    @ConfigDescription("AUTO only: workers measure both modes on a scan's first splits and read the rest the cheaper way, overruling the coordinator's estimate")
    public NscConfig setAdaptiveScanModes(boolean adaptiveScanModes)
    {
        this.adaptiveScanModes = adaptiveScanModes;
        return this;
    }

    @NotNull
    public ScanCompression getScanCompression()
    {
        return scanCompression;
    }

    @Config("nsc.scan-compression")
    @ConfigDescription("Compression of the pages storage nodes send for storage-side scans: NONE, LZ4 or ZSTD")
    public NscConfig setScanCompression(ScanCompression scanCompression)
    {
        this.scanCompression = scanCompression;
        return this;
    }

    @NotNull
    @MinDataSize("16kB")
    @MaxDataSize("32MB")
    public DataSize getScanBatchSize()
    {
        return scanBatchSize;
    }

    @Config("nsc.scan-batch-size")
    @ConfigDescription("Pages a storage node serializes before it compresses and sends them as one message (storage nodes cap it with storage.max-scan-batch)")
    public NscConfig setScanBatchSize(DataSize scanBatchSize)
    {
        this.scanBatchSize = scanBatchSize;
        return this;
    }

    @NotNull
    @MaxDataSize("64MB")
    public DataSize getRawReadMaxMergeDistance()
    {
        return rawReadMaxMergeDistance;
    }

    @Config("nsc.raw-read-max-merge-distance")
    @ConfigDescription("A raw read fetches two byte ranges of a file as one request when at most this many bytes lie between them: fewer requests against bytes the query does not need crossing the link")
    public NscConfig setRawReadMaxMergeDistance(DataSize rawReadMaxMergeDistance)
    {
        this.rawReadMaxMergeDistance = rawReadMaxMergeDistance;
        return this;
    }

    @NotNull
    public Duration getDynamicFilteringWaitTimeout()
    {
        return dynamicFilteringWaitTimeout;
    }

    @Config("nsc.dynamic-filtering-wait-timeout")
    @ConfigDescription("How long split planning waits for a join's dynamic filter, to prune row groups with it, when the filter is on a Bloom filter column or on one whose row groups hold narrow ranges (sorted, or written in its order); elsewhere it prunes nothing and planning does not wait")
    public NscConfig setDynamicFilteringWaitTimeout(Duration dynamicFilteringWaitTimeout)
    {
        this.dynamicFilteringWaitTimeout = dynamicFilteringWaitTimeout;
        return this;
    }

    @NotNull
    public DataSize getDynamicFilteringMinProbeSize()
    {
        return dynamicFilteringMinProbeSize;
    }

    @Config("nsc.dynamic-filtering-min-probe-size")
    @ConfigDescription("A join's probe side whose columns hold less than this in the table (compressed) is read as soon as its splits reach a worker, without waiting for the join's dynamic filter: the filter could save little link time, and waiting keeps the probe from overlapping the build side")
    public NscConfig setDynamicFilteringMinProbeSize(DataSize dynamicFilteringMinProbeSize)
    {
        this.dynamicFilteringMinProbeSize = dynamicFilteringMinProbeSize;
        return this;
    }

    @NotNull
    public Duration getDynamicFilteringProbeWaitTimeout()
    {
        return dynamicFilteringProbeWaitTimeout;
    }

    @Config("nsc.dynamic-filtering-probe-wait-timeout")
    @ConfigDescription("How long a split of a join's probe side that opens before any of the join's dynamic filter has reached its worker waits for it there (without holding a thread) before it chooses its mode: a probe side read raw meanwhile sends all of its rows")
    public NscConfig setDynamicFilteringProbeWaitTimeout(Duration dynamicFilteringProbeWaitTimeout)
    {
        this.dynamicFilteringProbeWaitTimeout = dynamicFilteringProbeWaitTimeout;
        return this;
    }

    @Min(0)
    public long getAggregationPushdownMaxGroups()
    {
        return aggregationPushdownMaxGroups;
    }

    @Config("nsc.aggregation-pushdown-max-groups")
    @ConfigDescription("Aggregations are computed by storage nodes only when the columns' distinct counts bound their groups to this many (0: never)")
    public NscConfig setAggregationPushdownMaxGroups(long aggregationPushdownMaxGroups)
    {
        this.aggregationPushdownMaxGroups = aggregationPushdownMaxGroups;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getScanTimeout()
    {
        return scanTimeout;
    }

    @Config("nsc.scan-timeout")
    @ConfigDescription("Deadline of one storage-side scan of a split (an aggregation or top-N reads the whole split before it answers) before the next replica is tried")
    public NscConfig setScanTimeout(Duration scanTimeout)
    {
        this.scanTimeout = scanTimeout;
        return this;
    }

    @NotNull
    @MaxDuration("1h")
    public Duration getBusyNodeBackOff()
    {
        return busyNodeBackOff;
    }

    @Config("nsc.busy-node-back-off")
    @ConfigDescription("Longest a worker's scans leave a storage node alone after it refused one as busy (the node's retry hint, at most this): splits with another replica or a raw read go there at once instead of waiting in the node's admission queue; 0s asks the node every time")
    public NscConfig setBusyNodeBackOff(Duration busyNodeBackOff)
    {
        this.busyNodeBackOff = busyNodeBackOff;
        return this;
    }

    @Min(1)
    @Max(1024)
    public int getScanFanOutThreads()
    {
        return scanFanOutThreads;
    }

    @Config("nsc.scan-fan-out-threads")
    @ConfigDescription("Threads per worker that wait on the storage-side scans of pushed-down aggregations, one part each; more parts wait their turn")
    public NscConfig setScanFanOutThreads(int scanFanOutThreads)
    {
        this.scanFanOutThreads = scanFanOutThreads;
        return this;
    }
}
