package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Streams;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.protocol.proto.MaterializedViewRefresh;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.write.FileSlot;
import io.nsc.trino.write.NscInsertTableHandle;
import io.nsc.trino.write.NscOutputTableHandle;
import io.nsc.trino.write.NscWritableTable;
import io.nsc.trino.write.NscWriteFragment;
import io.nsc.trino.write.NscWriterSettings;
import io.nsc.trino.write.WriteTypes;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.TypeManager;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.metadata.NameChecks.checkName;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.spi.connector.RetryMode.NO_RETRIES;
import static java.util.Objects.requireNonNull;

/**
 * What {@link NscMetadata} writes into tables: CREATE TABLE, CREATE TABLE AS, INSERT and the
 * commit of a materialized view's refresh; and how every write that makes files (these, the row
 * changes of {@link NscRowChanges}, OPTIMIZE) writes them. One per transaction: a write unpins
 * its table from the transaction's {@link PlannedTables}, so that the transaction reads what it
 * wrote.
 */
final class NscTableWrites
{
    private static final Logger log = Logger.get(NscTableWrites.class);

    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final TableFilesCache tableFilesCache;
    private final ParquetWriteCodec defaultCompressionCodec;
    private final PlannedTables plannedTables;

    /**
     * @param defaultCompressionCodec what writes into tables that set no compression_codec use
     */
    NscTableWrites(NscMetadataClient client, TypeManager typeManager, TableFilesCache tableFilesCache, ParquetWriteCodec defaultCompressionCodec, PlannedTables plannedTables)
    {
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
        this.defaultCompressionCodec = requireNonNull(defaultCompressionCodec, "defaultCompressionCodec is null");
        this.plannedTables = requireNonNull(plannedTables, "plannedTables is null");
    }

    void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode)
    {
        NewTable table = checkNewTable(tableMetadata);
        client.onBehalfOf(session).createTable(table.name(), table.protoColumns(), table.storedProperties(), table.comment(), saveMode);
        plannedTables.unpin(table.name());
    }

    ConnectorOutputTableHandle beginCreateTable(ConnectorTableMetadata tableMetadata, RetryMode retryMode, boolean replace)
    {
        checkNoRetries(retryMode);
        NewTable table = checkNewTable(tableMetadata);
        // Trino's CREATE TABLE AS has no syntax for column comments; were one to come, it must not be lost
        if (table.columnComments().stream().anyMatch(Optional::isPresent)) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support creating tables with column comment");
        }
        // checked again, atomically, by the commit (must_create); here so that nothing is written in vain
        if (!client.listSchemas().contains(table.name().getSchemaName())) {
            throw NscMetadataClient.schemaNotFound(table.name().getSchemaName(), null);
        }
        if (!replace && client.getTable(table.name()).isPresent()) {
            throw new TrinoException(TABLE_ALREADY_EXISTS, "Table '%s' already exists".formatted(table.name()));
        }
        return new NscOutputTableHandle(table.name(), table.columns(), table.settings(), table.storedProperties(), table.comment(), replace);
    }

    void finishCreateTable(ConnectorSession session, ConnectorOutputTableHandle tableHandle, Collection<Slice> fragments)
    {
        NscOutputTableHandle handle = (NscOutputTableHandle) tableHandle;
        // one transaction creates the table with every file of the statement; no files is a valid (empty) table
        CommitFilesRequest.Builder commit = CommitFilesRequest.newBuilder()
                .setSchemaName(handle.schemaTableName().getSchemaName())
                .setTableName(handle.schemaTableName().getTableName())
                .addAllColumns(toProtoColumns(handle.columns(), List.of()))
                .setCreateTable(true)
                .setMustCreate(true)
                // OR REPLACE: the table it replaces is dropped in the same transaction
                .setReplace(handle.replace())
                .putAllTableProperties(handle.tableProperties())
                .addAllFiles(toDataFiles(fragments));
        handle.comment().ifPresent(commit::setTableComment);
        client.onBehalfOf(session).commitFiles(commit.build());
        plannedTables.unpin(handle.schemaTableName());
    }

    NscInsertTableHandle beginInsert(ConnectorTableHandle tableHandle, List<ColumnHandle> columns, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        NscTableHandle table = (NscTableHandle) tableHandle;
        // pages arrive with one channel per column in the order given; files must have the table's order
        if (!columns.equals(table.columns())) {
            throw new TrinoException(NOT_SUPPORTED, "nsc inserts need every column of %s in table order, got %s".formatted(table.schemaTableName(), columns));
        }
        for (NscColumnHandle column : table.columns()) {
            WriteTypes.checkSupported(column.type());
        }
        return insertHandle(table, writerSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties())));
    }

    void finishInsert(ConnectorSession session, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments)
    {
        NscInsertTableHandle handle = (NscInsertTableHandle) insertHandle;
        if (fragments.isEmpty()) {
            // nothing written: a commit would only bump the table's version
            return;
        }
        try {
            client.onBehalfOf(session).commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName(handle.schemaTableName().getSchemaName())
                    .setTableName(handle.schemaTableName().getTableName())
                    .addAllColumns(toFileColumns(handle))
                    .setCreateTable(false)
                    // the table this INSERT began on, not another one created under its name since
                    .setExpectedTableId(handle.tableId())
                    .addAllFiles(toDataFiles(fragments))
                    .build());
        }
        finally {
            tableFilesCache.invalidate(handle.tableId());
            plannedTables.unpin(handle.schemaTableName());
        }
    }

    /**
     * A materialized view's refresh: every file of the version the refresh read leaves, the
     * refresh's files enter, and the view records what the refresh read: one metadata
     * transaction, one new version.
     *
     * @return whether the view recorded the refresh in that transaction; false when there was
     *         nothing to commit, or the metadata service is of a release that does not record it
     */
    boolean commitRefresh(ConnectorSession session, ConnectorTableHandle storageTable, ConnectorInsertTableHandle insertHandle, Collection<Slice> fragments, MaterializedViewRefresh view)
    {
        NscTableHandle table = (NscTableHandle) storageTable;
        List<String> oldFiles;
        try (TableFileBatches files = tableFilesCache.fileBatches(table)) {
            oldFiles = Streams.stream(files).flatMap(List::stream).map(TableFiles.FileEntry::fileId).collect(toImmutableList());
        }
        List<DataFile> newFiles = toDataFiles(fragments);
        if (oldFiles.isEmpty() && newFiles.isEmpty()) {
            return false;
        }
        CommitFilesRequest.Builder request = CommitFilesRequest.newBuilder()
                .setSchemaName(table.schemaTableName().getSchemaName())
                .setTableName(table.schemaTableName().getTableName())
                .addAllColumns(toFileColumns((NscInsertTableHandle) insertHandle))
                .setCreateTable(false)
                // the table the refresh began on, not another one created under its name since
                .setExpectedTableId(table.tableId())
                .addAllFiles(newFiles)
                .setMaterializedView(view);
        if (!oldFiles.isEmpty()) {
            request.setRemovals(FileRemovals.newBuilder()
                    .setReadVersion(table.version())
                    .addAllRemovedFileIds(oldFiles)
                    .addAllInsertedFileIds(newFiles.stream().map(DataFile::getFileId).collect(toImmutableList())));
        }
        CommitFilesResponse response;
        try {
            response = client.onBehalfOf(session).commitFiles(request.build());
        }
        finally {
            tableFilesCache.invalidate(table.tableId());
            plannedTables.unpin(table.schemaTableName());
        }
        if (!response.hasViewVersion()) {
            // a service of an earlier release ignores what it does not know: the caller records the view itself
            log.warn("The metadata service committed the refresh of materialized view %s.%s without recording it in the view: it is of a release that records a refresh in a second transaction",
                    table.schemaTableName().getSchemaName(), view.getViewName());
        }
        return response.hasViewVersion();
    }

    /** How a write into the table version writes its files: every live column in table order, NULL in the dropped ones' slots. */
    NscInsertTableHandle insertHandle(NscTableHandle table, NscWriterSettings settings)
    {
        TableInfo info = plannedTables.tableInfo(table);
        ImmutableList.Builder<NscColumnHandle> dropped = ImmutableList.builder();
        for (int ordinal = 0; ordinal < info.getColumnsCount(); ordinal++) {
            if (info.getColumns(ordinal).getDropped()) {
                dropped.add(NscColumnHandle.fromStored(typeManager, info, ordinal));
            }
        }
        return new NscInsertTableHandle(table.schemaTableName(), table.tableId(), table.columns(), dropped.build(), settings);
    }

    /** How a write into a table with these properties writes its files; the properties must be valid, and enough storage nodes live. */
    NscWriterSettings writerSettings(Map<String, Object> properties)
    {
        NscWriterSettings settings = resolveWriterSettings(properties);
        // the properties are valid; whether the cluster can take the write is checked last
        checkLiveNodes(settings.replication(), NscTableProperties.getReplication(properties).isEmpty());
        return settings;
    }

    /** How a write into a table with these properties writes its files, whatever storage nodes are live. */
    NscWriterSettings resolveWriterSettings(Map<String, Object> properties)
    {
        int replication = NscTableProperties.getReplication(properties).orElse(NscTableProperties.DEFAULT_REPLICATION);
        int minReplicas = NscTableProperties.resolveMinReplicas(properties, replication);
        // a DELETE's rewrite reads the table's properties too, so it keeps the table's codec
        ParquetWriteCodec compressionCodec = NscTableProperties.getCompressionCodec(properties).orElse(defaultCompressionCodec);
        return new NscWriterSettings(NscTableProperties.getSortedBy(properties), NscTableProperties.getRowGroupSize(properties), replication, minReplicas,
                ImmutableSet.copyOf(NscTableProperties.getBloomFilterColumns(properties)), compressionCodec);
    }

    /**
     * A write places every file on {@code replication} distinct live storage nodes: with fewer
     * live nodes it fails here, before anything is written. The replication is never lowered to
     * fit the cluster, the default no more than an explicit value: a table would silently hold
     * fewer copies than it says.
     *
     * @param isDefault the table does not set replication, so the connector's default applies
     */
    private void checkLiveNodes(int replication, boolean isDefault)
    {
        long live = client.listNodes().stream().filter(StorageNode::getAlive).count();
        if (replication > live) {
            throw new TrinoException(NSC_NOT_ENOUGH_STORAGE_NODES, "%s %s%s needs %s live storage nodes, but %s".formatted(
                    NscTableProperties.REPLICATION, replication, isDefault ? " (the default)" : "", replication, liveNodes(live)));
        }
    }

    private static String liveNodes(long live)
    {
        return switch ((int) live) {
            case 0 -> "no storage node is live";
            case 1 -> "only 1 is live";
            default -> "only %s are live".formatted(live);
        };
    }

    /** Every statement that writes files: a retried writer task would upload its files again under new ids, and both would be committed. */
    static void checkNoRetries(RetryMode retryMode)
    {
        if (retryMode != NO_RETRIES) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support query retries");
        }
    }

    /**
     * A table about to be created, checked: names, types and properties are all acceptable.
     *
     * @param columnComments the comment of each column, in column order
     */
    private record NewTable(
            SchemaTableName name,
            List<NscColumnHandle> columns,
            List<Optional<String>> columnComments,
            Optional<String> comment,
            NscWriterSettings settings,
            Map<String, String> storedProperties)
    {
        List<Column> protoColumns()
        {
            return toProtoColumns(columns, columnComments);
        }
    }

    private NewTable checkNewTable(ConnectorTableMetadata tableMetadata)
    {
        SchemaTableName name = tableMetadata.getTable();
        checkName("schema", name.getSchemaName());
        checkName("table", name.getTableName());
        ImmutableList.Builder<NscColumnHandle> columns = ImmutableList.builder();
        ImmutableList.Builder<Optional<String>> columnComments = ImmutableList.builder();
        List<ColumnMetadata> columnMetadata = tableMetadata.getColumns().stream().filter(column -> !column.isHidden()).collect(toImmutableList());
        for (int ordinal = 0; ordinal < columnMetadata.size(); ordinal++) {
            ColumnMetadata column = columnMetadata.get(ordinal);
            checkName("column", column.getName());
            WriteTypes.checkSupported(column.getType());
            columns.add(new NscColumnHandle(column.getName(), column.getType(), ordinal));
            columnComments.add(Optional.ofNullable(column.getComment()));
        }

        Map<String, Object> properties = tableMetadata.getProperties();
        NscTableProperties.checkSortedBy(NscTableProperties.getSortedBy(properties), columnMetadata.stream().map(ColumnMetadata::getName).collect(toImmutableList()));
        NscTableProperties.checkBloomFilterColumns(NscTableProperties.getBloomFilterColumns(properties), columnMetadata, NscTableProperties.getRowGroupSize(properties));
        return new NewTable(name, columns.build(), columnComments.build(), tableMetadata.getComment(), writerSettings(properties), NscTableProperties.toStored(properties));
    }

    /**
     * @param comments each column's comment, or none at all for columns without comments
     */
    private static List<Column> toProtoColumns(List<NscColumnHandle> columns, List<Optional<String>> comments)
    {
        ImmutableList.Builder<Column> protoColumns = ImmutableList.builder();
        for (int i = 0; i < columns.size(); i++) {
            Column.Builder column = Column.newBuilder()
                    .setName(columns.get(i).name())
                    .setType(columns.get(i).type().getTypeSignature().toString());
            if (!comments.isEmpty()) {
                comments.get(i).ifPresent(column::setComment);
            }
            protoColumns.add(column.build());
        }
        return protoColumns.build();
    }

    /** Every slot of the table's files, dropped ones too: what the commit checks against the table. */
    static List<Column> toFileColumns(NscWritableTable table)
    {
        return FileSlot.of(table).stream()
                .map(slot -> Column.newBuilder()
                        .setName(slot.column().name())
                        .setType(slot.column().type().getTypeSignature().toString())
                        .setDropped(slot.dropped())
                        .build())
                .collect(toImmutableList());
    }

    private static List<DataFile> toDataFiles(Collection<Slice> fragments)
    {
        return fragments.stream()
                .map(NscWriteFragment::fromSlice)
                .map(NscWriteFragment::toDataFile)
                .collect(toImmutableList());
    }
}
