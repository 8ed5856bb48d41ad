package io.nsc.trino.read;

/**
 * Names of the page sources' connector metrics (EXPLAIN ANALYZE VERBOSE sums them over splits).
 */
public final class ReadMetrics
{
    /** Splits read as raw byte ranges decoded on the worker. */
    public static final String SPLITS_RAW = "splits_raw";
    /** Splits scanned by a storage node. */
    public static final String SPLITS_FILTER = "splits_filter";
    /** Bytes that crossed the network from storage nodes: Parquet ranges or compressed pages. */
    public static final String STORAGE_BYTES_RECEIVED = "storage_bytes_received";
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
    /** Rows a worker decoded from raw byte ranges and rows it kept after the enforced predicate. */
    public static final String WORKER_ROWS_DECODED = "worker_rows_decoded";
    public static final String WORKER_ROWS_RETURNED = "worker_rows_returned";

    private ReadMetrics() {}
}
