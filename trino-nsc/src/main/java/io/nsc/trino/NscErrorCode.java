package io.nsc.trino;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

import static io.trino.spi.ErrorType.EXTERNAL;
import static io.trino.spi.ErrorType.INSUFFICIENT_RESOURCES;
import static io.trino.spi.ErrorType.INTERNAL_ERROR;

public enum NscErrorCode
        implements ErrorCodeSupplier
{
    /** The metadata service could not be reached or failed. */
    NSC_METADATA_ERROR(0, EXTERNAL),
    /** No replica of a file could serve a read. */
    NSC_STORAGE_ERROR(1, EXTERNAL),
    /** A file's bytes could not be decoded as Parquet. */
    NSC_BAD_DATA(2, EXTERNAL),
    /** A column type the connector does not know how to read. */
    NSC_UNSUPPORTED_TYPE(3, INTERNAL_ERROR),
    /** The statistics the metadata service sent are malformed. */
    NSC_CORRUPT_STATS(4, EXTERNAL),
    /** A storage-side read took longer than the configured timeout. */
    NSC_STORAGE_TIMEOUT(5, EXTERNAL),
    /** A page sink could not write its Parquet file to the worker's local temporary directory. */
    NSC_WRITER_ERROR(6, EXTERNAL),
    /** Fewer storage nodes are live than a write needs replicas. */
    NSC_NOT_ENOUGH_STORAGE_NODES(7, EXTERNAL),
    /** A commit failed in a way that leaves open whether the metadata service applied it. */
    NSC_COMMIT_OUTCOME_UNKNOWN(8, EXTERNAL),
    /** A storage node sent a page batch that is malformed or larger than the connector accepts. */
    NSC_BAD_STORAGE_RESPONSE(9, EXTERNAL),
    /** A storage-side scan needed more memory than a storage node allows one scan (every replica would refuse it alike). */
    NSC_STORAGE_SCAN_MEMORY_LIMIT(10, INSUFFICIENT_RESOURCES),
    /** The table version a query planned is no longer kept: a later version replaced it longer than the metadata service's retention ago. */
    NSC_TABLE_VERSION_EXPIRED(11, EXTERNAL);

    private final ErrorCode errorCode;

    NscErrorCode(int code, ErrorType type)
    {
        // 0x0700_0000 range: chosen clear of the codes Trino's own connectors use
        errorCode = new ErrorCode(code + 0x0700_0000, name(), type);
    }

    @Override
    public ErrorCode toErrorCode()
    {
        return errorCode;
    }
}
