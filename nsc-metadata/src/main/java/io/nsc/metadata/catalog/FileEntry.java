package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One committed (or to-be-committed) data file. The compact stats stay an immutable
 * {@link ByteString}: the catalog only validates and stores them, and handing the same bytes to
 * the protobuf response avoids a copy per file. The column sketches (distinct-value sketches the
 * writer computed, empty when none) are stored and returned as they came.
 *
 * @param removedRowGroups in a listing, the row groups DELETEs removed from the file by the
 *        version listed, ascending; the other fields still describe the whole file
 */
public record FileEntry(
        String fileId,
        long sizeBytes,
        long rowCount,
        int crc32c,
        ByteString compactStats,
        List<String> replicaNodeIds,
        ByteString columnSketches,
        List<Integer> removedRowGroups)
{
    public FileEntry
    {
        requireNonNull(fileId, "fileId is null");
        requireNonNull(compactStats, "compactStats is null");
        replicaNodeIds = List.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
        requireNonNull(columnSketches, "columnSketches is null");
        removedRowGroups = List.copyOf(requireNonNull(removedRowGroups, "removedRowGroups is null"));
    }

    /** A file with all its row groups. */
    public FileEntry(String fileId, long sizeBytes, long rowCount, int crc32c, ByteString compactStats, List<String> replicaNodeIds, ByteString columnSketches)
    {
        this(fileId, sizeBytes, rowCount, crc32c, compactStats, replicaNodeIds, columnSketches, List.of());
    }

    /** A file without distinct-value sketches. */
    public FileEntry(String fileId, long sizeBytes, long rowCount, int crc32c, ByteString compactStats, List<String> replicaNodeIds)
    {
        this(fileId, sizeBytes, rowCount, crc32c, compactStats, replicaNodeIds, ByteString.EMPTY);
    }
}
