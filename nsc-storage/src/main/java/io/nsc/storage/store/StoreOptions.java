package io.nsc.storage.store;

import io.airlift.units.DataSize;
import io.nsc.protocol.parquet.ParquetLimits;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.Objects.requireNonNull;

/**
 * How the store checks what it keeps.
 *
 * @param limits what an uploaded file's footer and pages may declare; a file over them is refused
 * @param checksumBlockSize bytes per block checksum of newly stored files
 * @param verifyChecksums whether reads check the bytes they return (off only to measure what checking costs)
 * @param reservedSpaceBytes space no upload may take on any data directory (storage.reserved-space)
 * @param statsCacheSize memory for the compact stats of files recently asked about (storage.file-stats-cache-size)
 */
public record StoreOptions(ParquetLimits limits, int checksumBlockSize, boolean verifyChecksums, long reservedSpaceBytes, DataSize statsCacheSize)
{
    public static final int DEFAULT_CHECKSUM_BLOCK_SIZE = 64 * 1024;
    public static final DataSize DEFAULT_STATS_CACHE_SIZE = DataSize.of(16, MEGABYTE);
    public static final StoreOptions DEFAULT = new StoreOptions(ParquetLimits.DEFAULT, DEFAULT_CHECKSUM_BLOCK_SIZE, true, 0, DEFAULT_STATS_CACHE_SIZE);

    public StoreOptions
    {
        requireNonNull(limits, "limits is null");
        checkArgument(checksumBlockSize >= 512 && checksumBlockSize <= 16 * 1024 * 1024, "checksumBlockSize must be between 512 bytes and 16MB: %s", checksumBlockSize);
        checkArgument(reservedSpaceBytes >= 0, "reservedSpaceBytes is negative: %s", reservedSpaceBytes);
        requireNonNull(statsCacheSize, "statsCacheSize is null");
    }

    public StoreOptions withLimits(ParquetLimits limits)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes, statsCacheSize);
    }

    public StoreOptions withChecksumBlockSize(int checksumBlockSize)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes, statsCacheSize);
    }

    public StoreOptions withReservedSpace(long reservedSpaceBytes)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes, statsCacheSize);
    }

    public StoreOptions withStatsCacheSize(DataSize statsCacheSize)
    {
        return new StoreOptions(limits, checksumBlockSize, verifyChecksums, reservedSpaceBytes, statsCacheSize);
    }
}
