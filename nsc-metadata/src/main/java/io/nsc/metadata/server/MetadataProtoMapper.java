package io.nsc.metadata.server;

import io.nsc.metadata.catalog.ColumnChange;
import io.nsc.metadata.catalog.CommitRequest;
import io.nsc.metadata.catalog.FileEntry;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableColumn;
import io.nsc.metadata.catalog.TableEntry;
import io.nsc.metadata.catalog.ViewEntry;
import io.nsc.metadata.catalog.ViewRefresh;
import io.nsc.metadata.membership.StorageNodeState;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.RemovedRowGroups;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import io.nsc.protocol.proto.TableVersion;
import io.nsc.protocol.proto.ViewInfo;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static io.nsc.metadata.MetadataErrors.invalidArgument;

/**
 * Converts between the protocol's messages and the catalog's values. Requests that no catalog
 * value can express (a file named twice, an added column that is dropped) fail here, as
 * INVALID_ARGUMENT, before the catalog sees them.
 */
final class MetadataProtoMapper
{
    private MetadataProtoMapper() {}

    static TableInfo toTableInfo(TableEntry table)
    {
        TableInfo.Builder info = TableInfo.newBuilder()
                .setTableId(table.tableId())
                .setSchemaName(table.name().schemaName())
                .setTableName(table.name().tableName())
                .setVersion(table.version())
                .setRowCount(table.rowCount())
                .setFileCount(table.fileCount())
                .setSizeBytes(table.sizeBytes());
        for (TableColumn column : table.columns()) {
            Column.Builder builder = Column.newBuilder().setName(column.name()).setType(column.type()).setDropped(column.dropped());
            column.comment().ifPresent(builder::setComment);
            info.addColumns(builder);
        }
        info.putAllProperties(table.properties());
        table.comment().ifPresent(info::setComment);
        return info.build();
    }

    static TableName toTableName(SchemaTableName name)
    {
        return TableName.newBuilder()
                .setSchemaName(name.schemaName())
                .setTableName(name.tableName())
                .build();
    }

    static TableVersion toTableVersion(io.nsc.metadata.catalog.TableVersion version)
    {
        TableVersion.Builder builder = TableVersion.newBuilder()
                .setVersion(version.version())
                .setCommittedMillis(version.committedMillis())
                .setCurrent(version.current());
        version.operation().ifPresent(builder::setOperation);
        version.rowCount().ifPresent(builder::setRowCount);
        version.fileCount().ifPresent(builder::setFileCount);
        version.sizeBytes().ifPresent(builder::setSizeBytes);
        version.expiresMillis().ifPresent(builder::setExpiresMillis);
        return builder.build();
    }

    static AnalyzedColumn toAnalyzedColumn(io.nsc.metadata.catalog.AnalyzedColumn column)
    {
        return AnalyzedColumn.newBuilder()
                .setOrdinal(column.ordinal())
                .setAnalyzedVersion(column.analyzedVersion())
                .setAnalyzedMillis(column.analyzedMillis())
                .setRowCount(column.rowCount())
                .setNonNullCount(column.nonNullCount())
                .setDistinctCount(column.distinctCount())
                .build();
    }

    static List<TableColumn> toTableColumns(List<Column> columns)
    {
        return columns.stream()
                .map(MetadataProtoMapper::toTableColumn)
                .toList();
    }

    private static TableColumn toTableColumn(Column column)
    {
        return new TableColumn(column.getName(), column.getType(), column.hasComment() ? Optional.of(column.getComment()) : Optional.empty(), column.getDropped());
    }

    static ColumnChange toColumnChange(AlterColumnRequest request)
    {
        return switch (request.getChangeCase()) {
            case ADD_COLUMN -> {
                if (request.getAddColumn().getDropped()) {
                    throw invalidArgument("An added column cannot be dropped");
                }
                yield new ColumnChange.Add(toTableColumn(request.getAddColumn()));
            }
            case RENAME_COLUMN -> new ColumnChange.Rename(request.getRenameColumn().getName(), request.getRenameColumn().getNewName());
            case DROP_COLUMN -> new ColumnChange.Drop(request.getDropColumn());
            case SET_COLUMN_TYPE -> new ColumnChange.SetType(request.getSetColumnType().getName(), request.getSetColumnType().getNewType());
            case CHANGE_NOT_SET -> throw invalidArgument("AlterColumn needs add_column, rename_column, drop_column or set_column_type");
        };
    }

    static ViewInfo toViewInfo(ViewEntry view)
    {
        ViewInfo.Builder info = ViewInfo.newBuilder()
                .setSchemaName(view.name().schemaName())
                .setViewName(view.name().tableName())
                .setDefinition(view.definition())
                .setVersion(view.version())
                .setCreatedMillis(view.createdMillis())
                .setMaterialized(view.materialized());
        view.comment().ifPresent(info::setComment);
        return info.build();
    }

    static DataFile toDataFile(FileEntry file)
    {
        return DataFile.newBuilder()
                .setFileId(file.fileId())
                .setSizeBytes(file.sizeBytes())
                .setRowCount(file.rowCount())
                .addAllReplicaNodeIds(file.replicaNodeIds())
                .setCompactStats(file.compactStats())
                .setCrc32C(file.crc32c())
                .setColumnSketches(file.columnSketches())
                .addAllRemovedRowGroups(file.removedRowGroups())
                .build();
    }

    static StorageNode toStorageNode(StorageNodeState node)
    {
        return StorageNode.newBuilder()
                .setNodeId(node.nodeId())
                .setAddress(node.address())
                .setAlive(node.alive())
                .setLastHeartbeatMillis(node.lastHeartbeatMillis())
                .setCapacityBytes(node.capacityBytes())
                .setFreeBytes(node.freeBytes())
                .setFileCount(node.fileCount())
                .setDraining(node.draining())
                .build();
    }

    /** A node as listed to operators, with how many replicas the catalog places on it. */
    static StorageNode toStorageNode(StorageNodeState node, Map<String, Long> replicaCounts)
    {
        return toStorageNode(node).toBuilder()
                .setReplicaCount(replicaCounts.getOrDefault(node.nodeId(), 0L))
                .build();
    }

    static CommitRequest toCommitRequest(CommitFilesRequest request)
    {
        return new CommitRequest(
                new SchemaTableName(request.getSchemaName(), request.getTableName()),
                toTableColumns(request.getColumnsList()),
                request.getCreateTable(),
                request.getFilesList().stream()
                        .map(MetadataProtoMapper::toFileEntry)
                        .toList(),
                // proto3 has no "unset": 0 means no expectation, and no existing table is ever at version 0
                request.getExpectedVersion() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedVersion()),
                request.getTablePropertiesMap(),
                request.getMustCreate(),
                // table ids start at 1, so 0 means no expectation
                request.getExpectedTableId() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedTableId()),
                request.hasTableComment() ? Optional.of(request.getTableComment()) : Optional.empty(),
                request.getReplace(),
                request.hasRemovals() ? Optional.of(toFileRemovals(request.getRemovals())) : Optional.empty(),
                request.hasMaterializedView() ? Optional.of(toViewRefresh(request)) : Optional.empty());
    }

    private static FileEntry toFileEntry(DataFile file)
    {
        if (file.getRemovedRowGroupsCount() > 0) {
            throw invalidArgument("File %s of the commit names removed row groups: a commit removes them with its removals", file.getFileId());
        }
        return new FileEntry(
                file.getFileId(),
                file.getSizeBytes(),
                file.getRowCount(),
                file.getCrc32C(),
                file.getCompactStats(),
                file.getReplicaNodeIdsList(),
                file.getColumnSketches());
    }

    private static io.nsc.metadata.catalog.FileRemovals toFileRemovals(FileRemovals removals)
    {
        Map<String, List<Integer>> rowGroups = new LinkedHashMap<>();
        for (RemovedRowGroups removed : removals.getRemovedRowGroupsList()) {
            if (rowGroups.put(removed.getFileId(), removed.getRowGroupsList()) != null) {
                throw invalidArgument("File %s is named twice in the commit's removals", removed.getFileId());
            }
        }
        Set<String> inserted = new HashSet<>();
        for (String fileId : removals.getInsertedFileIdsList()) {
            if (!inserted.add(fileId)) {
                throw invalidArgument("File %s is named twice as holding inserted rows", fileId);
            }
        }
        return new io.nsc.metadata.catalog.FileRemovals(removals.getReadVersion(), removals.getRemovedFileIdsList(), removals.getRewrittenFileIdsList(), rowGroups, inserted, removals.getOptimize());
    }

    private static ViewRefresh toViewRefresh(CommitFilesRequest request)
    {
        MaterializedViewRefresh refresh = request.getMaterializedView();
        return new ViewRefresh(
                new SchemaTableName(request.getSchemaName(), refresh.getViewName()),
                refresh.getDefinition(),
                refresh.hasComment() ? Optional.of(refresh.getComment()) : Optional.empty(),
                refresh.getExpectedVersion());
    }
}
