package io.nsc.storage.store;

import io.nsc.protocol.stats.CompactFileStats;

import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What the node keeps in memory per served file. The compact stats are one byte array per file;
 * nothing here grows with the number of row groups or columns.
 */
public record StoredFile(FileId id, Path path, long sizeBytes, int crc32c, CompactFileStats stats)
{
    public StoredFile
    {
        requireNonNull(id, "id is null");
        requireNonNull(path, "path is null");
        checkArgument(sizeBytes >= 0, "sizeBytes is negative");
        requireNonNull(stats, "stats is null");
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
