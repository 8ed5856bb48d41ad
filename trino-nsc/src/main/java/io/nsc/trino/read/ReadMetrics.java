package io.nsc.trino.read;

/**
 * Names of the page sources' connector metrics (EXPLAIN ANALYZE VERBOSE sums them over splits).
 * None may share a name with a split-source metric of {@link io.nsc.trino.split.RowGroupPlanner}:
 * the coordinator merges both into one map, and on a real server the split source's metric
 * objects come from the plugin's class loader while the workers' arrive deserialized by the
 * engine's, so merging two of the same name fails with a ClassCastException.
 */
public final class ReadMetrics
{
    /** Splits read as raw byte ranges decoded on the worker. */
    public static final String SPLITS_RAW = "raw_splits_read";
    /** Parts (row groups of one file) a pushed-down aggregation merged. */
    public static final String AGGREGATION_PARTS = "aggregation_parts";
    /** Pages of partial states a pushed-down aggregation merged (more than its parts when storage nodes sent early). */
    public static final String AGGREGATION_PAGES_MERGED = "aggregation_pages_merged";
    /** Row groups whose part of a pushed-down aggregation the compact stats answered. */
    public static final String AGGREGATION_ROW_GROUPS_FROM_STATS = "aggregation_row_groups_from_stats";
    /** Splits the worker read in the other mode than the coordinator chose, from what earlier splits measured ({@code auto}). */
    public static final String SPLITS_MODE_CHANGED = "splits_mode_changed_by_worker";
    /** Splits planned as raw reads before the join's dynamic filter arrived, scanned by a storage node with it ({@code auto}). */
    public static final String SPLITS_FILTER_AFTER_DYNAMIC_FILTER = "splits_filter_after_dynamic_filter";
    /** Splits scanned by a storage node. */
    public static final String SPLITS_FILTER = "filter_splits_scanned";
    /** Bytes that crossed the network from storage nodes: Parquet ranges or compressed pages. */
    public static final String STORAGE_BYTES_RECEIVED = "storage_bytes_received";
    /** Of the bytes received by raw reads, those of the Parquet footers a worker had not cached yet. */
    public static final String STORAGE_FOOTER_BYTES_RECEIVED = "storage_footer_bytes_received";
    /** Bytes the storage nodes read from disk for scans (raw reads: equal to the bytes received). */
    public static final String STORAGE_BYTES_READ_FROM_DISK = "storage_bytes_read_from_disk";
    /** Rows storage nodes decoded for scans. */
    public static final String STORAGE_ROWS_SCANNED = "storage_rows_scanned";
    /** Rows storage nodes sent back for scans. */
    public static final String STORAGE_ROWS_RETURNED = "storage_rows_returned";
    /** CPU time storage nodes spent on scans. */
    public static final String STORAGE_CPU_NANOS = "storage_cpu_nanos";
    public static final String STORAGE_READ_REQUESTS = "storage_read_requests";
    public static final String STORAGE_REPLICA_FAILOVERS = "storage_replica_failovers";
    /** Storage scans a node refused because its memory pool was exhausted (the node was busy, not the scan too big). */
    public static final String STORAGE_SCANS_REFUSED_BUSY = "storage_scans_refused_busy";
    /** Replicas a storage scan did not ask because they refused another of the worker's scans as busy within their retry hint. */
    public static final String STORAGE_BUSY_NODES_SKIPPED = "storage_busy_nodes_skipped";
    /** Splits (or parts of a pushed-down aggregation) read raw because every replica was too busy to scan them. */
    public static final String SPLITS_FALLEN_BACK_TO_RAW = "splits_fallen_back_to_raw";
    /** Times a storage scan's aggregation groups or top-N rows filled their share of its budget and were sent early. */
    public static final String STORAGE_EARLY_FLUSHES = "storage_early_flushes";
    /** Rows a worker decoded from raw byte ranges and rows it kept after the enforced predicate. */
    public static final String WORKER_ROWS_DECODED = "worker_rows_decoded";
    public static final String WORKER_ROWS_RETURNED = "worker_rows_returned";

    private ReadMetrics() {}
}
