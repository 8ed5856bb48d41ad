package io.nsc.storage.store;

import io.nsc.protocol.parquet.ParquetLimits;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * How the store checks what it keeps.
 *
 * @param limits what an uploaded file's footer and pages may declare; a file over them is refused
 * @param checksumBlockSize bytes per block checksum of newly stored files
 * @param verifyChecksums whether reads check the bytes they return (off only to measure what checking costs)
 * @param reservedSpaceBytes space no upload may take on any data directory (storage.reserved-space)
 */
public record StoreOptions(ParquetLimits limits, int checksumBlockSize, boolean verifyChecksums, long reservedSpaceBytes)
{
    public static final int DEFAULT_CHECKSUM_BLOCK_SIZE = 64 * 1024;
    public static final StoreOptions DEFAULT = new StoreOptions(ParquetLimits.DEFAULT, DEFAULT_CHECKSUM_BLOCK_SIZE, true, 0);

    public StoreOptions
    {
        requireNonNull(limits, "limits is null");
        checkArgument(checksumBlockSize >= 512 && checksumBlockSize <= 16 * 1024 * 1024, "checksumBlockSize must be between 512 bytes and 16MB: %s", checksumBlockSize);
        checkArgument(reservedSpaceBytes >= 0, "reservedSpaceBytes is negative: %s", reservedSpaceBytes);
    }

    public StoreOptions withLimits(ParquetLimits limits)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes);
    }

    public StoreOptions withChecksumBlockSize(int checksumBlockSize)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes);
    }

    public StoreOptions withReservedSpace(long reservedSpaceBytes)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes);
    }
}
