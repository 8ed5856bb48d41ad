package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.stats.ColumnSketches;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.stats.CompactFileStats;
import io.trino.spi.HostAddress;
import io.trino.spi.TrinoException;

import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.nsc.trino.NscErrorCode.NSC_CORRUPT_STATS;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * The files of one table version with their compact stats decoded once (one byte array per file)
 * and their replicas resolved to addresses. Cached per version, so the distinct counts merged
 * from the files' sketches are merged once too, however often the optimizer asks.
 */
public final class TableFiles
{
    private final long tableId;
    private final long version;
    private final List<FileEntry> files;
    private final Map<Integer, List<OptionalLong>> distinctCounts = new ConcurrentHashMap<>();

    public TableFiles(long tableId, long version, List<FileEntry> files)
    {
        this.tableId = tableId;
        this.version = version;
        this.files = ImmutableList.copyOf(requireNonNull(files, "files is null"));
    }

    public long tableId()
    {
        return tableId;
    }

    public long version()
    {
        return version;
    }

    public List<FileEntry> files()
    {
        return files;
    }

    /**
     * @param columnSketches serialized distinct-value sketches of the file's columns, empty when its writer computed none
     */
    public record FileEntry(String fileId, long sizeBytes, long rowCount, List<HostAddress> replicas, CompactFileStats stats, byte[] columnSketches)
    {
        public FileEntry
        {
            requireNonNull(fileId, "fileId is null");
            replicas = ImmutableList.copyOf(requireNonNull(replicas, "replicas is null"));
            requireNonNull(stats, "stats is null");
            requireNonNull(columnSketches, "columnSketches is null");
        }

        public FileEntry(String fileId, long sizeBytes, long rowCount, List<HostAddress> replicas, CompactFileStats stats)
        {
            this(fileId, sizeBytes, rowCount, replicas, stats, new byte[0]);
        }
    }

    /**
     * Distinct non-null values per column (by ordinal) over all files, merged from their
     * sketches; empty for every column when a file has none.
     */
    public List<OptionalLong> distinctCounts(int columnCount)
    {
        return distinctCounts.computeIfAbsent(columnCount, this::mergeSketches);
    }

    private List<OptionalLong> mergeSketches(int columnCount)
    {
        try {
            return ColumnSketches.distinctCounts(files.stream().map(FileEntry::columnSketches).collect(toImmutableList()), columnCount);
        }
        catch (IllegalArgumentException e) {
            throw new TrinoException(NSC_CORRUPT_STATS, "Column sketches of nsc table %s are malformed: %s".formatted(tableId, e.getMessage()), e);
        }
    }

    public static TableFiles fromResponse(GetTableFilesResponse response)
    {
        Map<String, StorageNode> nodes = response.getNodesList().stream()
                .collect(toImmutableMap(StorageNode::getNodeId, Function.identity(), (first, _) -> first));
        List<FileEntry> files = response.getFilesList().stream()
                .map(file -> toFileEntry(file, nodes))
                .collect(toImmutableList());
        return new TableFiles(response.getTableId(), response.getVersion(), files);
    }

    public long rowCount()
    {
        return files.stream().mapToLong(FileEntry::rowCount).sum();
    }

    private static FileEntry toFileEntry(DataFile file, Map<String, StorageNode> nodes)
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
                .map(node -> HostAddress.fromString(node.getAddress()))
                .collect(toImmutableList());
        if (replicas.isEmpty()) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc file %s has no replica".formatted(file.getFileId()));
        }
        return new FileEntry(file.getFileId(), file.getSizeBytes(), file.getRowCount(), replicas, stats, file.getColumnSketches().toByteArray());
    }

    @Override
    public String toString()
    {
        return "TableFiles[tableId=%s, version=%s, files=%s]".formatted(tableId, version, files.size());
    }
}
