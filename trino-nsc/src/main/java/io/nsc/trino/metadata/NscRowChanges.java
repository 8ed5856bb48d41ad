package io.nsc.trino.metadata;

import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.delete.MetadataOnlyDelete;
import io.nsc.trino.delete.NscDeletePartitioningHandle;
import io.nsc.trino.delete.NscMergeFragment;
import io.nsc.trino.delete.NscMergeTableHandle;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.nsc.trino.write.NscWriteFragment;
import io.nsc.trino.write.NscWriterSettings;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.metadata.NscTableWrites.checkNoRetries;
import static io.nsc.trino.metadata.NscTableWrites.toFileColumns;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * What {@link NscMetadata} changes of a table's rows: TRUNCATE, DELETE (metadata-only when the
 * files' stats answer it, row-level otherwise), UPDATE and MERGE. Files are immutable: a row
 * change removes files or rewrites them without the changed rows, and writes new rows as an
 * INSERT does ({@link NscTableWrites}). One per transaction: a change unpins its table from the
 * transaction's {@link PlannedTables}.
 */
final class NscRowChanges
{
    private static final Logger log = Logger.get(NscRowChanges.class);

    private final NscMetadataClient client;
    private final TableFilesCache tableFilesCache;
    private final PlannedTables plannedTables;
    private final NscTableWrites writes;

    NscRowChanges(NscMetadataClient client, TableFilesCache tableFilesCache, PlannedTables plannedTables, NscTableWrites writes)
    {
        this.client = requireNonNull(client, "client is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
        this.plannedTables = requireNonNull(plannedTables, "plannedTables is null");
        this.writes = requireNonNull(writes, "writes is null");
    }

    void truncateTable(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        // the table this statement planned, not another created under its name since
        client.onBehalfOf(session).truncateTable(handle.schemaTableName(), handle.tableId());
        tableFilesCache.invalidate(handle.tableId());
        plannedTables.unpin(handle.schemaTableName());
    }

    /**
     * The metadata-only DELETE: Trino asks when the connector enforces the statement's whole
     * predicate. It is taken when the compact stats tell of every row group of the version that
     * it matches the predicate entirely or not at all; otherwise the row-level path reads the rows.
     */
    Optional<ConnectorTableHandle> applyDelete(ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        if (handle.aggregation().isPresent() || handle.limit().isPresent() || handle.topN().isPresent()) {
            return Optional.empty();
        }
        if (!handle.constraintEnforced() && !handle.constraint().isAll()) {
            // a pruning hint: the rows it matches are Trino's to find
            return Optional.empty();
        }
        try (TableFileBatches files = tableFilesCache.fileBatches(handle)) {
            return new MetadataOnlyDelete(handle).plan(files).map(_ -> handle);
        }
    }

    OptionalLong executeDelete(ConnectorSession session, ConnectorTableHandle tableHandle)
    {
        NscTableHandle handle = (NscTableHandle) tableHandle;
        NscMergeFragment delete;
        // the version applyDelete planned on: the same files, the same answer
        try (TableFileBatches files = tableFilesCache.fileBatches(handle)) {
            delete = new MetadataOnlyDelete(handle).plan(files)
                    .orElseThrow(() -> new TrinoException(GENERIC_INTERNAL_ERROR, "DELETE from %s planned as metadata-only, but version %s of its files needs rows read".formatted(handle.schemaTableName(), handle.version())));
        }
        if (delete.isEmpty()) {
            return OptionalLong.of(0);
        }
        // a DELETE that writes no file: the table's columns as they are
        return OptionalLong.of(commit(session, handle, delete, plannedTables.tableInfo(handle).getColumnsList()).getRowsRemoved());
    }

    ColumnHandle getMergeRowIdColumnHandle()
    {
        return new NscRowIdColumnHandle();
    }

    /**
     * Files are immutable: an UPDATE or MERGE deletes the old row (its file rewritten or removed,
     * as a DELETE does) and inserts the new one (into new files, as an INSERT writes them), and
     * both are committed in one metadata transaction.
     */
    RowChangeParadigm getRowChangeParadigm()
    {
        return RowChangeParadigm.DELETE_ROW_AND_INSERT_ROW;
    }

    Optional<ConnectorPartitioningHandle> getUpdateLayout()
    {
        return Optional.of(NscDeletePartitioningHandle.INSTANCE);
    }

    ConnectorMergeTableHandle beginMerge(ConnectorTableHandle tableHandle, RetryMode retryMode)
    {
        checkNoRetries(retryMode);
        NscTableHandle table = (NscTableHandle) tableHandle;
        // live storage nodes are checked by the first file written, if any: a DELETE that only removes needs none
        NscWriterSettings settings = writes.resolveWriterSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties()));
        return new NscMergeTableHandle(table, writes.insertHandle(table, settings));
    }

    void finishMerge(ConnectorSession session, ConnectorMergeTableHandle mergeTableHandle, Collection<Slice> fragments)
    {
        NscMergeTableHandle handle = (NscMergeTableHandle) mergeTableHandle;
        NscMergeFragment changes = NscMergeFragment.combine(fragments.stream().map(NscMergeFragment::fromSlice).collect(toImmutableList()));
        if (changes.isEmpty()) {
            // no row matched and none was inserted: nothing to commit, and the version stays
            return;
        }
        // the files written have the columns the statement began with: a column change since fails the commit
        commit(session, handle.table(), changes, toFileColumns(handle.rewrite()));
    }

    /**
     * One metadata transaction against the version the statement read: the removals, the
     * rewritten files' survivors and the inserted rows' files. A MERGE that only inserts commits
     * as an INSERT does.
     */
    private CommitFilesResponse commit(ConnectorSession session, NscTableHandle table, NscMergeFragment changes, List<Column> fileColumns)
    {
        try {
            CommitFilesRequest.Builder request = CommitFilesRequest.newBuilder()
                    .setSchemaName(table.schemaTableName().getSchemaName())
                    .setTableName(table.schemaTableName().getTableName())
                    .addAllColumns(fileColumns)
                    .setCreateTable(false)
                    // the table this statement began on, not another one created under its name since
                    .setExpectedTableId(table.tableId())
                    .addAllFiles(changes.filesToAdd().stream().map(NscWriteFragment::toDataFile).collect(toImmutableList()));
            if (changes.removesFiles()) {
                request.setRemovals(changes.toRemovals(table.version()));
            }
            CommitFilesResponse response = client.onBehalfOf(session).commitFiles(request.build());
            log.info("Row changes in %s read version %s and committed version %s: %s files and %s row groups removed in the metadata, %s files rewritten into %s, %s rows deleted, %s files of inserted rows",
                    table.schemaTableName(), table.version(), response.getVersion(), response.getFilesRemoved(), response.getRowGroupsRemoved(),
                    response.getFilesRewritten(), changes.written().size(), response.getRowsRemoved(), changes.inserted().size());
            return response;
        }
        finally {
            tableFilesCache.invalidate(table.tableId());
            plannedTables.unpin(table.schemaTableName());
        }
    }
}
