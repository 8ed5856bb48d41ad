package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One committed (or to-be-committed) data file. The compact stats stay an immutable
 * {@link ByteString}: the catalog only validates and stores them, and handing the same bytes to
 * the protobuf response avoids a copy per file. The column sketches (distinct-value sketches the
 * writer computed, empty when none) are stored and returned as they came.
 */
public record FileEntry(
        String fileId,
        long sizeBytes,
        long rowCount,
        int crc32c,
        ByteString compactStats,
        List<String> replicaNodeIds,
        ByteString columnSketches)
{
    public FileEntry
    {
        requireNonNull(fileId, "fileId is null");
        requireNonNull(compactStats, "compactStats is null");
        replicaNodeIds = List.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
        requireNonNull(columnSketches, "columnSketches is null");
    }

    /** A file without distinct-value sketches. */
    public FileEntry(String fileId, long sizeBytes, long rowCount, int crc32c, ByteString compactStats, List<String> replicaNodeIds)
    {
        this(fileId, sizeBytes, rowCount, crc32c, compactStats, replicaNodeIds, ByteString.EMPTY);
    }
}
