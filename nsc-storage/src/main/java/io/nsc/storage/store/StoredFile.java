package io.nsc.storage.store;

import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.stats.CompactFileStats;

import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.util.Objects.requireNonNull;

/**
 * What the node keeps in memory per served file, the same few dozen bytes whatever the file's
 * size, row groups, columns or blocks: its id, the data directory holding it (shared by all its
 * files), the header of its block checksums (size, whole-file CRC32C, block size), and two
 * numbers of its footer. The compact stats and the parsed footer are read from the file when
 * asked for, into caches bounded in bytes ({@link ParquetFileStore#stats}, the scanner's footers).
 *
 * @param footerLength bytes of the file's Parquet footer, which weighs its parsed form in a cache
 * @param columnChunkCount the file's row groups times its columns
 */
public record StoredFile(FileId id, DataDirectory directory, BlockChecksums checksums, int footerLength, int columnChunkCount)
{
    // a ConcurrentHashMap node and its share of the table
    private static final long MAP_ENTRY_BYTES = 40;

    /** What one served file retains: this record, its id, its checksum header and the store's map entry. */
    public static final long RETAINED_BYTES_PER_FILE = instanceSize(StoredFile.class) + FileId.RETAINED_BYTES + BlockChecksums.INSTANCE_BYTES + MAP_ENTRY_BYTES;

    public StoredFile
    {
        requireNonNull(id, "id is null");
        requireNonNull(directory, "directory is null");
        requireNonNull(checksums, "checksums is null");
        checkArgument(footerLength >= 0, "footerLength is negative");
        checkArgument(columnChunkCount >= 0, "columnChunkCount is negative");
    }

    /** The file as its footer summary describes it: a verified upload, or a file found at start-up. */
    static StoredFile of(DataDirectory directory, FileId id, BlockChecksums checksums, ParquetFileSummary summary)
    {
        CompactFileStats stats = summary.stats();
        return new StoredFile(id, directory, checksums, stats.footerLength(), stats.columnChunkCount());
    }

    public Path path()
    {
        return directory.parquetPath(id);
    }

    public Path checksumPath()
    {
        return directory.crcPath(id);
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
}
