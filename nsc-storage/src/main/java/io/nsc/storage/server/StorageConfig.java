package io.nsc.storage.server;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import io.airlift.units.MinDuration;
import io.nsc.protocol.client.ValidMetadataAddresses;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

public class StorageConfig
{
    private String nodeId;
    private List<String> dataDirs = ImmutableList.of();
    private String bindHost = "127.0.0.1";
    private String advertisedHost = "127.0.0.1";
    private int grpcPort = 7080;
    private int httpPort = 7081;
    @ValidMetadataAddresses
    private String metadataAddress;
    private DataSize readCoalesceGap = DataSize.of(1, MEGABYTE);
    private DataSize maxResponseChunk = DataSize.of(1, MEGABYTE);
    private Duration orphanCheckInterval = new Duration(1, MINUTES);
    private Duration orphanMinAge = new Duration(1, HOURS);
    private DataSize reservedSpace = DataSize.of(256, MEGABYTE);
    private DataSize scanFooterCacheSize = DataSize.of(64, MEGABYTE);
    private DataSize scanPageIndexCacheSize = DataSize.of(32, MEGABYTE);
    private DataSize fileStatsCacheSize = DataSize.of(16, MEGABYTE);
    private int scanThreads = Runtime.getRuntime().availableProcessors();
    private DataSize maxScanBatch = DataSize.of(4, DataSize.Unit.MEGABYTE);
    private DataSize maxRequestSize = DataSize.of(32, MEGABYTE);
    private int maxScanRowGroups = 10_000;
    private int maxReadRanges = 10_000;
    private int maxExpressionNodes = 10_000;
    private int maxExpressionDepth = 64;
    private DataSize maxPredicateValueSize = DataSize.of(16, MEGABYTE);
    private DataSize scanMemoryLimit = DataSize.of(256, MEGABYTE);
    private DataSize memoryPoolSize = defaultMemoryPoolSize();
    private DataSize scanAdmissionReservation = DataSize.of(4, MEGABYTE);
    private int scanAdmissionMaxQueued = 1000;
    private Duration scanAdmissionMaxWait = new Duration(5, SECONDS);
    private int grpcThreads = Math.max(16, 4 * Runtime.getRuntime().availableProcessors());
    private int grpcMaxConcurrentCallsPerConnection = 1000;
    private DataSize maxPageSize = DataSize.of(64, MEGABYTE);
    private DataSize maxFooterSize = DataSize.of(16, MEGABYTE);
    private DataSize checksumBlockSize = DataSize.of(64, KILOBYTE);
    private boolean verifyChecksums = true;
    private DataSize scrubRate = DataSize.of(50, MEGABYTE);
    private Duration scrubInterval = new Duration(7, DAYS);
    private DataSize repairCopyRate = DataSize.of(100, MEGABYTE);

    @NotNull
    @Pattern(regexp = "[a-z0-9-]{1,64}", message = "must be 1 to 64 characters of [a-z0-9-]")
    public String getNodeId()
    {
        return nodeId;
    }

    @Config("storage.node-id")
    @ConfigDescription("Identity of this storage node in the cluster; must stay the same across restarts")
    public StorageConfig setNodeId(String nodeId)
    {
        this.nodeId = nodeId;
        return this;
    }

    @NotEmpty
    public List<String> getDataDirs()
    {
        return dataDirs;
    }

    @Config("storage.data-dirs")
    @ConfigDescription("Comma-separated absolute paths of the data directories, one per disk")
    public StorageConfig setDataDirs(String dataDirs)
    {
        this.dataDirs = Splitter.on(',').trimResults().omitEmptyStrings().splitToList(dataDirs);
        return this;
    }

    public List<Path> getDataDirPaths()
    {
        return dataDirs.stream()
                .map(Path::of)
                .collect(toImmutableList());
    }

    @AssertTrue(message = "storage.data-dirs must be absolute paths")
    public boolean isDataDirsAbsolute()
    {
        return dataDirs.stream().allMatch(dir -> Path.of(dir).isAbsolute());
    }

    @AssertTrue(message = "storage.data-dirs must not name the same directory twice")
    public boolean isDataDirsDistinct()
    {
        return getDataDirPaths().stream().map(Path::normalize).distinct().count() == dataDirs.size();
    }

    @NotNull
    public String getBindHost()
    {
        return bindHost;
    }

    @Config("storage.bind-host")
    @ConfigDescription("Address the gRPC and HTTP endpoints listen on")
    public StorageConfig setBindHost(String bindHost)
    {
        this.bindHost = bindHost;
        return this;
    }

    @NotNull
    public String getAdvertisedHost()
    {
        return advertisedHost;
    }

    @Config("storage.advertised-host")
    @ConfigDescription("Host name or address that clients use to reach this node, registered with the metadata service")
    public StorageConfig setAdvertisedHost(String advertisedHost)
    {
        this.advertisedHost = advertisedHost;
        return this;
    }

    @Min(0)
    @Max(65535)
    public int getGrpcPort()
    {
        return grpcPort;
    }

    @Config("storage.grpc-port")
    @ConfigDescription("Port of the gRPC endpoint; 0 picks a free port")
    public StorageConfig setGrpcPort(int grpcPort)
    {
        this.grpcPort = grpcPort;
        return this;
    }

    @Min(0)
    @Max(65535)
    public int getHttpPort()
    {
        return httpPort;
    }

    @Config("storage.http-port")
    @ConfigDescription("Port of the HTTP endpoint (/v1/health, /v1/metrics); 0 picks a free port")
    public StorageConfig setHttpPort(int httpPort)
    {
        this.httpPort = httpPort;
        return this;
    }

    public Optional<String> getMetadataAddress()
    {
        return Optional.ofNullable(metadataAddress);
    }

    @Config("storage.metadata-address")
    @ConfigDescription("Comma-separated host:port of the metadata services, in order of preference: the node registers with the first that answers and fails over to the next; unset runs the node standalone")
    public StorageConfig setMetadataAddress(String metadataAddress)
    {
        this.metadataAddress = metadataAddress;
        return this;
    }

    @NotNull
    public DataSize getReadCoalesceGap()
    {
        return readCoalesceGap;
    }

    @Config("storage.read-coalesce-gap")
    @ConfigDescription("Requested ranges closer than this are read from disk in one read (the gap is read and discarded)")
    public StorageConfig setReadCoalesceGap(DataSize readCoalesceGap)
    {
        this.readCoalesceGap = readCoalesceGap;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    // gRPC messages are limited to 64MB; stay well below so that framing never trips the limit
    @MaxDataSize("32MB")
    public DataSize getMaxResponseChunk()
    {
        return maxResponseChunk;
    }

    @Config("storage.max-response-chunk")
    @ConfigDescription("Largest data payload of one ReadRanges response message; also the size of one disk read")
    public StorageConfig setMaxResponseChunk(DataSize maxResponseChunk)
    {
        this.maxResponseChunk = maxResponseChunk;
        return this;
    }

    @NotNull
    @MinDuration("10ms")
    public Duration getOrphanCheckInterval()
    {
        return orphanCheckInterval;
    }

    @Config("storage.orphan-check-interval")
    @ConfigDescription("How often the node asks the metadata service which of its files no commit claims, and deletes those")
    public StorageConfig setOrphanCheckInterval(Duration orphanCheckInterval)
    {
        this.orphanCheckInterval = orphanCheckInterval;
        return this;
    }

    @NotNull
    public Duration getOrphanMinAge()
    {
        return orphanMinAge;
    }

    @Config("storage.orphan-min-age")
    @ConfigDescription("Files uploaded more recently than this are never offered for deletion, whatever the metadata service says")
    public StorageConfig setOrphanMinAge(Duration orphanMinAge)
    {
        this.orphanMinAge = orphanMinAge;
        return this;
    }

    @NotNull
    public DataSize getReservedSpace()
    {
        return reservedSpace;
    }

    @Config("storage.reserved-space")
    @ConfigDescription("Space no upload may take on each data directory, left for the system and everything else on the disk (like HDFS's dfs.datanode.du.reserved)")
    public StorageConfig setReservedSpace(DataSize reservedSpace)
    {
        this.reservedSpace = reservedSpace;
        return this;
    }

    @NotNull
    @MaxDataSize("16GB")
    public DataSize getScanFooterCacheSize()
    {
        return scanFooterCacheSize;
    }

    @Config("storage.scan-footer-cache-size")
    @ConfigDescription("Memory for the parsed Parquet footers of files recently scanned (estimated retained bytes; 0B keeps none); evicted footers are read again from the file")
    public StorageConfig setScanFooterCacheSize(DataSize scanFooterCacheSize)
    {
        this.scanFooterCacheSize = scanFooterCacheSize;
        return this;
    }

    @NotNull
    @MaxDataSize("16GB")
    public DataSize getScanPageIndexCacheSize()
    {
        return scanPageIndexCacheSize;
    }

    @Config("storage.scan-page-index-cache-size")
    @ConfigDescription("Memory for the decoded Parquet page indexes of row groups whose pages scans recently skipped (estimated retained bytes; 0B keeps none); evicted indexes are read again from the file")
    public StorageConfig setScanPageIndexCacheSize(DataSize scanPageIndexCacheSize)
    {
        this.scanPageIndexCacheSize = scanPageIndexCacheSize;
        return this;
    }

    @NotNull
    @MaxDataSize("16GB")
    public DataSize getFileStatsCacheSize()
    {
        return fileStatsCacheSize;
    }

    @Config("storage.file-stats-cache-size")
    @ConfigDescription("Memory for the compact stats of files recently asked about (GetFileInfo, repair copies; 0B keeps none); the node keeps no stats per file otherwise and reads them from the footer")
    public StorageConfig setFileStatsCacheSize(DataSize fileStatsCacheSize)
    {
        this.fileStatsCacheSize = fileStatsCacheSize;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    // a batch is one gRPC message, limited to 64MB; a client may ask for less, never more
    @MaxDataSize("32MB")
    public DataSize getMaxScanBatch()
    {
        return maxScanBatch;
    }

    @Min(1)
    @Max(4096)
    public int getScanThreads()
    {
        return scanThreads;
    }

    @Config("storage.scan-threads")
    @ConfigDescription("Threads that run near-storage scans (decoding, filtering, aggregating); more scans than threads take turns, so concurrent scans share the cores instead of each taking a thread. Default: the node's processors")
    public StorageConfig setScanThreads(int scanThreads)
    {
        this.scanThreads = scanThreads;
        return this;
    }

    @Config("storage.max-scan-batch")
    @ConfigDescription("Largest batch of serialized pages (before compression) one scan response carries; bounds what a scan buffers")
    public StorageConfig setMaxScanBatch(DataSize maxScanBatch)
    {
        this.maxScanBatch = maxScanBatch;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    // the gRPC transport refuses messages over 64MB before they reach the service
    @MaxDataSize("64MB")
    public DataSize getMaxRequestSize()
    {
        return maxRequestSize;
    }

    @Config("storage.max-request-size")
    @ConfigDescription("Largest serialized scan request the node decodes; larger ones are refused (INVALID_ARGUMENT)")
    public StorageConfig setMaxRequestSize(DataSize maxRequestSize)
    {
        this.maxRequestSize = maxRequestSize;
        return this;
    }

    @Min(1)
    public int getMaxScanRowGroups()
    {
        return maxScanRowGroups;
    }

    @Config("storage.max-scan-row-groups")
    @ConfigDescription("Most row groups one scan may name (each once, in ascending order)")
    public StorageConfig setMaxScanRowGroups(int maxScanRowGroups)
    {
        this.maxScanRowGroups = maxScanRowGroups;
        return this;
    }

    @Min(1)
    public int getMaxReadRanges()
    {
        return maxReadRanges;
    }

    @Config("storage.max-read-ranges")
    @ConfigDescription("Most byte ranges one ReadRanges request may ask for")
    public StorageConfig setMaxReadRanges(int maxReadRanges)
    {
        this.maxReadRanges = maxReadRanges;
        return this;
    }

    @Min(1)
    public int getMaxExpressionNodes()
    {
        return maxExpressionNodes;
    }

    @Config("storage.max-expression-nodes")
    @ConfigDescription("Most nodes in all of one scan's filter expressions together")
    public StorageConfig setMaxExpressionNodes(int maxExpressionNodes)
    {
        this.maxExpressionNodes = maxExpressionNodes;
        return this;
    }

    @Min(1)
    // protobuf refuses messages nested deeper than 100, a few levels of which the request itself takes
    @Max(90)
    public int getMaxExpressionDepth()
    {
        return maxExpressionDepth;
    }

    @Config("storage.max-expression-depth")
    @ConfigDescription("Deepest nesting of one filter expression")
    public StorageConfig setMaxExpressionDepth(int maxExpressionDepth)
    {
        this.maxExpressionDepth = maxExpressionDepth;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    public DataSize getMaxPredicateValueSize()
    {
        return maxPredicateValueSize;
    }

    @Config("storage.max-predicate-value-size")
    @ConfigDescription("Most bytes of values (domain bounds, comparison and IN values, LIKE patterns) in one scan request, as encoded")
    public StorageConfig setMaxPredicateValueSize(DataSize maxPredicateValueSize)
    {
        this.maxPredicateValueSize = maxPredicateValueSize;
        return this;
    }

    @NotNull
    @MinDataSize("1MB")
    public DataSize getScanMemoryLimit()
    {
        return scanMemoryLimit;
    }

    @Config("storage.scan-memory-limit")
    @ConfigDescription("Memory one scan may hold (decoded predicate values, aggregation groups, top-N rows, reader buffers, the batch being built); past it the scan fails with RESOURCE_EXHAUSTED")
    public StorageConfig setScanMemoryLimit(DataSize scanMemoryLimit)
    {
        this.scanMemoryLimit = scanMemoryLimit;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    @MaxDataSize("1GB")
    public DataSize getMaxPageSize()
    {
        return maxPageSize;
    }

    @Config("storage.max-page-size")
    @ConfigDescription("Largest Parquet page (compressed or uncompressed) an uploaded file may declare; a reader allocates that much to decompress it")
    public StorageConfig setMaxPageSize(DataSize maxPageSize)
    {
        this.maxPageSize = maxPageSize;
        return this;
    }

    @NotNull
    @MinDataSize("1kB")
    @MaxDataSize("256MB")
    public DataSize getMaxFooterSize()
    {
        return maxFooterSize;
    }

    @Config("storage.max-footer-size")
    @ConfigDescription("Largest Parquet footer an uploaded file may have")
    public StorageConfig setMaxFooterSize(DataSize maxFooterSize)
    {
        this.maxFooterSize = maxFooterSize;
        return this;
    }

    @NotNull
    @MinDataSize("512B")
    @MaxDataSize("16MB")
    public DataSize getChecksumBlockSize()
    {
        return checksumBlockSize;
    }

    @Config("storage.checksum-block-size")
    @ConfigDescription("Bytes per CRC32C of newly stored files; every read checks whole blocks, so smaller blocks cost less for small reads and more checksum entries")
    public StorageConfig setChecksumBlockSize(DataSize checksumBlockSize)
    {
        this.checksumBlockSize = checksumBlockSize;
        return this;
    }

    public boolean isVerifyChecksums()
    {
        return verifyChecksums;
    }

    @Config("storage.verify-checksums")
    @ConfigDescription("Check every byte read against its block checksum; turn off only to measure what checking costs")
    public StorageConfig setVerifyChecksums(boolean verifyChecksums)
    {
        this.verifyChecksums = verifyChecksums;
        return this;
    }

    @NotNull
    public DataSize getScrubRate()
    {
        return scrubRate;
    }

    @Config("storage.scrub-rate")
    @ConfigDescription("Bytes per second the background scrubber reads to verify stored files; 0B turns scrubbing off")
    public StorageConfig setScrubRate(DataSize scrubRate)
    {
        this.scrubRate = scrubRate;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getScrubInterval()
    {
        return scrubInterval;
    }

    @Config("storage.scrub-interval")
    @ConfigDescription("Time from the start of one scrubbing pass over every stored file to the start of the next")
    public StorageConfig setScrubInterval(Duration scrubInterval)
    {
        this.scrubInterval = scrubInterval;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    public DataSize getRepairCopyRate()
    {
        return repairCopyRate;
    }

    @Config("storage.repair-copy-rate")
    @ConfigDescription("Bytes per second this node pulls from other nodes when the metadata service has it copy a replica (repair, drain)")
    public StorageConfig setRepairCopyRate(DataSize repairCopyRate)
    {
        this.repairCopyRate = repairCopyRate;
        return this;
    }

    /**
     * Half of the heap the node may grow to: the rest is for what the pool does not account (the
     * files' metadata, the stats cache, range reads, gRPC's buffers) and the collector's headroom.
     */
    static DataSize defaultMemoryPoolSize()
    {
        return DataSize.ofBytes(Runtime.getRuntime().maxMemory() / 2);
    }

    @NotNull
    @MinDataSize("64kB")
    public DataSize getMemoryPoolSize()
    {
        return memoryPoolSize;
    }

    @Config("storage.memory-pool-size")
    @ConfigDescription("Memory all scans of the node share: their budgets (reader buffers, batches, aggregation groups, top-N rows, footers) and the scan footer cache are reserved in it before they are allocated; a scan that cannot get its share waits or is refused with RESOURCE_EXHAUSTED. Default: half of the node's maximum heap")
    public StorageConfig setMemoryPoolSize(DataSize memoryPoolSize)
    {
        this.memoryPoolSize = memoryPoolSize;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    public DataSize getScanAdmissionReservation()
    {
        return scanAdmissionReservation;
    }

    @Config("storage.scan-admission-reservation")
    @ConfigDescription("Memory a scan reserves in the node's memory pool before it starts (at most its scan-memory-limit), and the step its reservation grows and shrinks by as it runs")
    public StorageConfig setScanAdmissionReservation(DataSize scanAdmissionReservation)
    {
        this.scanAdmissionReservation = scanAdmissionReservation;
        return this;
    }

    @Min(0)
    public int getScanAdmissionMaxQueued()
    {
        return scanAdmissionMaxQueued;
    }

    @Config("storage.scan-admission-max-queued")
    @ConfigDescription("Scans that may wait at once for their first reservation in the node's memory pool; more are refused at once with RESOURCE_EXHAUSTED")
    public StorageConfig setScanAdmissionMaxQueued(int scanAdmissionMaxQueued)
    {
        this.scanAdmissionMaxQueued = scanAdmissionMaxQueued;
        return this;
    }

    @NotNull
    @MinDuration("0ms")
    public Duration getScanAdmissionMaxWait()
    {
        return scanAdmissionMaxWait;
    }

    @Config("storage.scan-admission-max-wait")
    @ConfigDescription("Longest a scan waits for its first reservation in the node's memory pool before it is refused with RESOURCE_EXHAUSTED and a retry hint; it has allocated nothing while it waited")
    public StorageConfig setScanAdmissionMaxWait(Duration scanAdmissionMaxWait)
    {
        this.scanAdmissionMaxWait = scanAdmissionMaxWait;
        return this;
    }

    @Min(1)
    @Max(4096)
    public int getGrpcThreads()
    {
        return grpcThreads;
    }

    @Config("storage.grpc-threads")
    @ConfigDescription("Threads that run the gRPC handlers (range reads, uploads, the start of scans; scans themselves run on the scan threads); calls beyond them wait in turn. Default: four per processor, at least 16")
    public StorageConfig setGrpcThreads(int grpcThreads)
    {
        this.grpcThreads = grpcThreads;
        return this;
    }

    @Min(1)
    public int getGrpcMaxConcurrentCallsPerConnection()
    {
        return grpcMaxConcurrentCallsPerConnection;
    }

    @Config("storage.grpc-max-concurrent-calls-per-connection")
    @ConfigDescription("Calls one client connection may have open at once (HTTP/2 streams); further calls wait on the client's side")
    public StorageConfig setGrpcMaxConcurrentCallsPerConnection(int grpcMaxConcurrentCallsPerConnection)
    {
        this.grpcMaxConcurrentCallsPerConnection = grpcMaxConcurrentCallsPerConnection;
        return this;
    }
}
