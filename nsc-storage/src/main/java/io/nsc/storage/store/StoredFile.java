package io.nsc.storage.store;

import io.nsc.protocol.stats.CompactFileStats;

import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * What the node keeps in memory per served file: where it is, the header of its block checksums
 * and its compact stats (one byte array). Nothing here grows with the number of row groups,
 * columns or blocks.
 */
public record StoredFile(FileId id, Path path, BlockChecksums checksums, CompactFileStats stats)
{
    public StoredFile
    {
        requireNonNull(id, "id is null");
        requireNonNull(path, "path is null");
        requireNonNull(checksums, "checksums is null");
        requireNonNull(stats, "stats is null");
    }

    public long sizeBytes()
    {
        return checksums.fileSize();
    }

    /** CRC32C of the whole file, as computed when it arrived. */
    public int crc32c()
    {
        return checksums.fileCrc32c();
    }

    public Path checksumPath()
    {
        return path.resolveSibling(id.value() + DataDirectory.CRC_SUFFIX);
    }

    public long rowCount()
    {
        return stats.rowCount();
    }

    public long columnChunkCount()
    {
        return stats.columnChunkCount();
    }
}
