package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.stats.CompactFileStats;
import io.trino.spi.HostAddress;
import io.trino.spi.TrinoException;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.airlift.slice.SizeOf.estimatedSizeOf;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOf;
import static io.nsc.trino.NscErrorCode.NSC_CORRUPT_STATS;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * The files of one table version with their compact stats decoded once (one byte array per file)
 * and their replicas resolved to addresses: what the coordinator caches of a table small enough
 * to keep (see {@link TableFilesCache}); larger tables are only ever seen a batch at a time.
 */
public record TableFiles(long tableId, long version, List<FileEntry> files)
{
    private static final int INSTANCE_SIZE = instanceSize(TableFiles.class);

    public TableFiles
    {
        files = ImmutableList.copyOf(requireNonNull(files, "files is null"));
    }

    public long retainedSizeInBytes()
    {
        return INSTANCE_SIZE + estimatedSizeOf(files, FileEntry::retainedSizeInBytes);
    }

    /**
     * @param rowCount the rows of the whole file, as stored (see {@link #remainingRowCount})
     * @param columnSketches serialized distinct-value sketches of the file's columns; empty when its
     *         writer computed none, or when they were not asked for (split planning needs none)
     * @param removedRowGroups the row groups DELETEs removed from the file by the listed version,
     *         ascending: none of their rows is the table's, and no reader may return them
     */
    public record FileEntry(String fileId, long sizeBytes, long rowCount, List<HostAddress> replicas, CompactFileStats stats, byte[] columnSketches, List<Integer> removedRowGroups)
    {
        private static final int INSTANCE_SIZE = instanceSize(FileEntry.class);
        private static final int STATS_INSTANCE_SIZE = instanceSize(CompactFileStats.class);
        private static final int INTEGER_INSTANCE_SIZE = instanceSize(Integer.class);

        public FileEntry
        {
            requireNonNull(fileId, "fileId is null");
            replicas = ImmutableList.copyOf(requireNonNull(replicas, "replicas is null"));
            requireNonNull(stats, "stats is null");
            requireNonNull(columnSketches, "columnSketches is null");
            removedRowGroups = ImmutableList.copyOf(requireNonNull(removedRowGroups, "removedRowGroups is null"));
        }

        public FileEntry(String fileId, long sizeBytes, long rowCount, List<HostAddress> replicas, CompactFileStats stats)
        {
            this(fileId, sizeBytes, rowCount, replicas, stats, new byte[0], List.of());
        }

        public FileEntry withoutColumnSketches()
        {
            return columnSketches.length == 0 ? this : new FileEntry(fileId, sizeBytes, rowCount, replicas, stats, new byte[0], removedRowGroups);
        }

        /** Whether a DELETE removed the row group: its rows are no longer the table's. */
        public boolean isRemoved(int rowGroup)
        {
            // a handful at most: a file losing many row groups is one a DELETE rewrites or removes
            return removedRowGroups.contains(rowGroup);
        }

        /** The row groups still the table's, ascending. */
        public List<Integer> remainingRowGroups()
        {
            ImmutableList.Builder<Integer> remaining = ImmutableList.builder();
            for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                if (!isRemoved(rowGroup)) {
                    remaining.add(rowGroup);
                }
            }
            return remaining.build();
        }

        /** The rows of the row groups still the table's. */
        public long remainingRowCount()
        {
            long rows = rowCount;
            for (int rowGroup : removedRowGroups) {
                rows -= stats.rowGroupRowCount(rowGroup);
            }
            return rows;
        }

        /** An upper bound: the replicas' addresses are shared by the files of one page, but counted for each. */
        public long retainedSizeInBytes()
        {
            return INSTANCE_SIZE
                    + estimatedSizeOf(fileId)
                    + estimatedSizeOf(replicas, HostAddress::getRetainedSizeInBytes)
                    + STATS_INSTANCE_SIZE + sizeOf(stats.encoded())
                    + sizeOf(columnSketches)
                    + estimatedSizeOf(removedRowGroups, _ -> INTEGER_INSTANCE_SIZE);
        }
    }

    /** The files of one GetTableFiles answer (a page of a listing, or a whole table). */
    public static List<FileEntry> filesOf(GetTableFilesResponse response)
    {
        Map<String, StorageNode> nodes = response.getNodesList().stream()
                .collect(toImmutableMap(StorageNode::getNodeId, Function.identity(), (first, _) -> first));
        // one address object per node, however many files it holds
        Map<String, HostAddress> addresses = new HashMap<>();
        return response.getFilesList().stream()
                .map(file -> toFileEntry(file, nodes, addresses))
                .collect(toImmutableList());
    }

    private static FileEntry toFileEntry(DataFile file, Map<String, StorageNode> nodes, Map<String, HostAddress> addresses)
    {
        CompactFileStats stats;
        try {
            stats = CompactFileStats.wrap(file.getCompactStats().toByteArray());
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(NSC_CORRUPT_STATS, "Compact stats of nsc file %s are malformed: %s".formatted(file.getFileId(), e.getMessage()), e);
        }
        // Live replicas first, in placement order; down nodes stay last as a final fallback.
        List<HostAddress> replicas = file.getReplicaNodeIdsList().stream()
                .map(nodeId -> {
                    StorageNode node = nodes.get(nodeId);
                    if (node == null) {
                        throw new TrinoException(NSC_METADATA_ERROR, "nsc file %s names unknown storage node %s".formatted(file.getFileId(), nodeId));
                    }
                    return node;
                })
                .sorted(Comparator.comparing(node -> !node.getAlive()))
                .map(node -> addresses.computeIfAbsent(node.getNodeId(), _ -> HostAddress.fromString(node.getAddress())))
                .collect(toImmutableList());
        if (replicas.isEmpty()) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc file %s has no replica".formatted(file.getFileId()));
        }
        List<Integer> removedRowGroups = file.getRemovedRowGroupsList().stream().sorted().distinct().collect(toImmutableList());
        if (removedRowGroups.stream().anyMatch(rowGroup -> rowGroup < 0 || rowGroup >= stats.rowGroupCount())) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc file %s has %s row groups, but row groups %s are listed as removed".formatted(file.getFileId(), stats.rowGroupCount(), removedRowGroups));
        }
        return new FileEntry(file.getFileId(), file.getSizeBytes(), file.getRowCount(), replicas, stats, file.getColumnSketches().toByteArray(), removedRowGroups);
    }
}
