package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import com.google.inject.Inject;
import io.nsc.protocol.host.HostCpus;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.storage.membership.ClusterIdentity;
import io.nsc.storage.membership.MembershipClient;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.read.RangeReader;
import io.nsc.storage.repair.ReplicaCopier;
import io.nsc.storage.scan.NearStorageScanner;
import io.nsc.storage.scrub.Scrubber;
import io.nsc.storage.store.ParquetFileStore;

import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The node's counters in one snapshot, answered by GetNodeStats and published at
 * {@code /v1/metrics} under the same names as the response's fields. (JMX shows the same
 * counters on the components that own them.)
 */
public final class NodeStatistics
{
    private final String nodeId;
    private final ParquetFileStore store;
    private final RangeReader reader;
    private final NearStorageScanner scanner;
    private final NodeMemoryPool pool;
    private final ClusterIdentity identity;
    private final Scrubber scrubber;
    private final ReplicaCopier copier;
    private final Optional<MembershipClient> membership;
    private final HostCpus hostCpus = HostCpus.current();

    @Inject
    public NodeStatistics(StorageConfig config, ParquetFileStore store, RangeReader reader, NearStorageScanner scanner, NodeMemoryPool pool, ClusterIdentity identity, Scrubber scrubber, ReplicaCopier copier, Optional<MembershipClient> membership)
    {
        this.membership = requireNonNull(membership, "membership is null");
        this.scrubber = requireNonNull(scrubber, "scrubber is null");
        this.copier = requireNonNull(copier, "copier is null");
        this.scanner = requireNonNull(scanner, "scanner is null");
        this.pool = requireNonNull(pool, "pool is null");
        this.nodeId = requireNonNull(config.getNodeId(), "nodeId is null");
        this.store = requireNonNull(store, "store is null");
        this.reader = requireNonNull(reader, "reader is null");
        this.identity = requireNonNull(identity, "identity is null");
    }

    public GetNodeStatsResponse snapshot()
    {
        return GetNodeStatsResponse.newBuilder()
                .setNodeId(nodeId)
                .setFileCount(store.getFileCount())
                .setCompactStatsBytes(store.getCompactStatsBytes())
                .setColumnChunkCount(store.getColumnChunkCount())
                .setBytesReadFromDisk(reader.getBytesReadFromDisk().getTotalCount())
                .setBytesSent(reader.getBytesSent().getTotalCount())
                .setReadRequests(reader.getReadRequests().getTotalCount())
                .setBytesUploaded(store.getBytesUploaded().getTotalCount())
                .setFilesDeleted(store.getFilesDeleted().getTotalCount())
                .setBytesDeleted(store.getBytesDeleted().getTotalCount())
                .setClusterId(identity.getClusterId())
                .setClusterIdMismatch(identity.isMismatch())
                .setScansActive(scanner.getActiveScans())
                .setScansQueued(pool.getQueuedRequests())
                .setScansCompleted(scanner.getScansCompleted().getTotalCount())
                .setScanRowsScanned(scanner.getRowsScanned().getTotalCount())
                .setScanRowsReturned(scanner.getRowsReturned().getTotalCount())
                .setScanBytesReadFromDisk(scanner.getBytesReadFromDisk().getTotalCount())
                .setScanBytesSent(scanner.getBytesSent().getTotalCount())
                .setScanCpuNanos(scanner.getCpuNanos().getTotalCount())
                .setAvailableProcessors(Runtime.getRuntime().availableProcessors())
                .setHost(hostCpus.host())
                .setCpus(hostCpus.cpuList())
                .setFilesQuarantined(store.getFilesQuarantined().getTotalCount())
                .setCorruptReads(reader.getCorruptReads().getTotalCount())
                .setCorruptScans(scanner.getCorruptScans().getTotalCount())
                .setScrubPassesCompleted(scrubber.getPassesCompleted())
                .setScrubFilesScrubbed(scrubber.getFilesScrubbed().getTotalCount())
                .setScrubBytesScrubbed(scrubber.getBytesScrubbed().getTotalCount())
                .setScrubDamagedFound(scrubber.getDamagedFound().getTotalCount())
                .setScrubLastPassCompletedMillis(scrubber.getLastPassCompletedMillis())
                .setScrubCurrentPassFiles(scrubber.getCurrentPassFiles())
                .setScrubCurrentPassDone(scrubber.getCurrentPassDone())
                .setCopiesCompleted(copier.getCopiesCompleted().getTotalCount())
                .setCopiesFailed(copier.getCopiesFailed().getTotalCount())
                .setCopiesInProgress(copier.getCopiesInProgress())
                .setBytesCopied(copier.getBytesCopied().getTotalCount())
                .build();
    }

    public Map<String, Long> metrics()
    {
        GetNodeStatsResponse stats = snapshot();
        return ImmutableMap.<String, Long>builder()
                .put("file_count", stats.getFileCount())
                .put("compact_stats_bytes", stats.getCompactStatsBytes())
                .put("column_chunk_count", stats.getColumnChunkCount())
                .put("bytes_read_from_disk", stats.getBytesReadFromDisk())
                .put("bytes_sent", stats.getBytesSent())
                .put("read_requests", stats.getReadRequests())
                .put("bytes_uploaded", stats.getBytesUploaded())
                .put("files_deleted", stats.getFilesDeleted())
                .put("bytes_deleted", stats.getBytesDeleted())
                .put("scans_active", stats.getScansActive())
                .put("scans_completed", stats.getScansCompleted())
                .put("scan_rows_scanned", stats.getScanRowsScanned())
                .put("scan_rows_returned", stats.getScanRowsReturned())
                .put("scan_bytes_read_from_disk", stats.getScanBytesReadFromDisk())
                .put("scan_bytes_sent", stats.getScanBytesSent())
                .put("scan_cpu_nanos", stats.getScanCpuNanos())
                .put("files_quarantined", stats.getFilesQuarantined())
                .put("corrupt_reads", stats.getCorruptReads())
                .put("corrupt_scans", stats.getCorruptScans())
                .put("scrub_passes_completed", stats.getScrubPassesCompleted())
                .put("scrub_files_scrubbed", stats.getScrubFilesScrubbed())
                .put("scrub_bytes_scrubbed", stats.getScrubBytesScrubbed())
                .put("scrub_damaged_found", stats.getScrubDamagedFound())
                .put("scrub_last_pass_completed_millis", stats.getScrubLastPassCompletedMillis())
                .put("scrub_current_pass_files", stats.getScrubCurrentPassFiles())
                .put("scrub_current_pass_done", stats.getScrubCurrentPassDone())
                .put("copies_completed", stats.getCopiesCompleted())
                .put("copies_failed", stats.getCopiesFailed())
                .put("copies_in_progress", stats.getCopiesInProgress())
                .put("bytes_copied", stats.getBytesCopied())
                // 1 while the node refuses to reclaim files: worth an alert
                .put("cluster_id_mismatch", stats.getClusterIdMismatch() ? 1L : 0L)
                // 1 once the metadata service answered the node's last call (register or heartbeat); ./nsc waits for it after a restart
                .put("metadata_reachable", membership.map(client -> client.isMetadataReachable() ? 1L : 0L).orElse(0L))
                // not in GetNodeStatsResponse (heartbeats carry free_bytes): the room new files have, and what uploads in progress hold of it
                .put("free_bytes", store.getFreeBytes())
                .put("upload_reserved_bytes", store.getReservedBytes())
                // what the node holds in memory for its files: a constant per file, and two caches bounded in bytes
                .put("file_metadata_bytes", store.getFileMetadataBytes())
                .put("file_stats_cache_entries", store.getStatsCache().getEntries())
                .put("scan_footer_cache_bytes", scanner.getFooterCache().getRetainedBytes())
                .put("scan_footer_cache_entries", scanner.getFooterCache().getEntries())
                .put("scan_page_index_cache_bytes", scanner.getPageIndexCache().getRetainedBytes())
                .put("scan_page_index_cache_entries", scanner.getPageIndexCache().getEntries())
                // scans whose aggregation or top-N filled its share of the budget and sent early, and the most one scan held
                .put("scan_early_flushes", scanner.getEarlyFlushes().getTotalCount())
                .put("scan_peak_memory_bytes", scanner.getPeakScanMemoryBytes())
                // the memory all scans share: its size, what is reserved (the footer cache's bound included), the scans waiting for
                // their first reservation, and the scans refused because the node was busy
                .put("memory_pool_max_bytes", pool.getMaxBytes())
                .put("memory_pool_reserved_bytes", pool.getReservedBytes())
                .put("memory_pool_peak_reserved_bytes", pool.getPeakReservedBytes())
                .put("memory_pool_queued", (long) pool.getQueuedRequests())
                .put("memory_pool_queued_total", pool.getQueued().getTotalCount())
                .put("memory_pool_refused", pool.refusedTotal())
                .put("scans_refused_busy", scanner.getScansRefusedBusy().getTotalCount())
                .buildOrThrow();
    }
}
