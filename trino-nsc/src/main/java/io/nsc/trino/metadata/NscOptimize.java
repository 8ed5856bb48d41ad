package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableSet;
import io.airlift.log.Logger;
import io.airlift.slice.Slice;
import io.airlift.units.DataSize;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.FileRemovals;
import io.nsc.trino.NscTableProperties;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.optimize.CompactionCandidates;
import io.nsc.trino.optimize.CompactionCandidates.Compaction;
import io.nsc.trino.optimize.NscOptimizeHandle;
import io.nsc.trino.optimize.NscTableProcedureId;
import io.nsc.trino.optimize.OptimizeTableProcedure;
import io.nsc.trino.write.NscWriteFragment;
import io.nsc.trino.write.NscWriterSettings;
import io.nsc.trino.write.WriteTypes;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.predicate.TupleDomain;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static io.nsc.trino.metadata.NscTableWrites.checkNoRetries;
import static io.nsc.trino.metadata.NscTableWrites.toFileColumns;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static java.util.Objects.requireNonNull;

/**
 * {@code ALTER TABLE ... EXECUTE optimize} for {@link NscMetadata}: see {@link OptimizeTableProcedure}.
 * Its new files are written as an INSERT writes them ({@link NscTableWrites}). One per
 * transaction: the commit unpins the table from the transaction's {@link PlannedTables}.
 */
final class NscOptimize
{
    private static final Logger log = Logger.get(NscOptimize.class);

    private final NscMetadataClient client;
    private final TableFilesCache tableFilesCache;
    private final PlannedTables plannedTables;
    private final NscTableWrites writes;

    NscOptimize(NscMetadataClient client, TableFilesCache tableFilesCache, PlannedTables plannedTables, NscTableWrites writes)
    {
        this.client = requireNonNull(client, "client is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
        this.plannedTables = requireNonNull(plannedTables, "plannedTables is null");
        this.writes = requireNonNull(writes, "writes is null");
    }

    Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(ConnectorTableHandle tableHandle, String procedureName, Map<String, Object> executeProperties, RetryMode retryMode)
    {
        NscTableHandle table = (NscTableHandle) tableHandle;
        NscTableProcedureId procedure;
        try {
            procedure = NscTableProcedureId.valueOf(procedureName);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown table procedure: " + procedureName, e);
        }
        return switch (procedure) {
            case OPTIMIZE -> {
                checkNoRetries(retryMode);
                // the files are written again: a type nsc reads but does not write fails here, before anything is read
                for (NscColumnHandle column : table.columns()) {
                    WriteTypes.checkSupported(column.type());
                }
                long fileSizeThreshold = ((DataSize) executeProperties.get(OptimizeTableProcedure.FILE_SIZE_THRESHOLD)).toBytes();
                // the new files are written as an INSERT writes them: enough live storage nodes, or nothing is read
                NscWriterSettings settings = writes.writerSettings(NscTableProperties.fromStored(table.schemaTableName().toString(), table.properties()));
                yield Optional.of(new NscOptimizeHandle(table, fileSizeThreshold, writes.insertHandle(table, settings)));
            }
        };
    }

    /**
     * The scan reads the files the OPTIMIZE rewrites, whole: a WHERE clause would leave rows of
     * them out of the new files, so it is refused. With nothing worth rewriting, it reads nothing.
     */
    BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(ConnectorTableExecuteHandle tableExecuteHandle, ConnectorTableHandle updatedSourceTableHandle)
    {
        NscOptimizeHandle optimize = (NscOptimizeHandle) tableExecuteHandle;
        NscTableHandle source = (NscTableHandle) updatedSourceTableHandle;
        if (!source.constraint().isAll() || !source.filterExpressions().isEmpty()) {
            throw new TrinoException(NOT_SUPPORTED, "This connector does not support optimize with a WHERE clause: it rewrites whole files");
        }
        Compaction compaction = compaction(optimize);
        NscTableHandle scan = source.withOptimize(optimize.fileSizeThreshold());
        if (!compaction.isWorthDoing()) {
            scan = scan.withConstraint(TupleDomain.none(), true);
        }
        return new BeginTableExecuteResult<>(optimize, scan);
    }

    /**
     * One commit against the version the OPTIMIZE read: its files leave, the new ones enter, and
     * the metadata service checks that they hold the same rows; a commit that changed one of
     * those files since fails it with TRANSACTION_CONFLICT. Nothing worth rewriting commits
     * nothing: the table keeps its version.
     */
    void finishTableExecute(ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, Collection<Slice> fragments, List<Object> splitSourceInfo)
    {
        NscOptimizeHandle optimize = (NscOptimizeHandle) tableExecuteHandle;
        NscTableHandle table = optimize.table();
        Compaction compaction = compaction(optimize);
        List<NscWriteFragment> written = fragments.stream().map(NscWriteFragment::fromSlice).collect(toImmutableList());
        if (!compaction.isWorthDoing()) {
            checkState(written.isEmpty(), "OPTIMIZE of %s had nothing to rewrite, but wrote %s files", table.schemaTableName(), written.size());
            return;
        }
        // the files the scan listed, as its split source reported them: the same, or the new files hold other rows
        if (!ImmutableSet.copyOf(splitSourceInfo).equals(ImmutableSet.copyOf(compaction.fileIds()))) {
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "OPTIMIZE of %s read %s files of version %s, but planned to rewrite %s".formatted(
                    table.schemaTableName(), splitSourceInfo.size(), table.version(), compaction.fileIds().size()));
        }
        long rowsWritten = written.stream().mapToLong(NscWriteFragment::rowCount).sum();
        if (rowsWritten != compaction.rows()) {
            // never swap files for ones that lost or invented rows
            throw new TrinoException(NSC_BAD_DATA, "OPTIMIZE of %s read %s files of version %s holding %s rows, but wrote %s rows".formatted(
                    table.schemaTableName(), compaction.fileIds().size(), table.version(), compaction.rows(), rowsWritten));
        }
        try {
            CommitFilesResponse response = client.onBehalfOf(session).commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName(table.schemaTableName().getSchemaName())
                    .setTableName(table.schemaTableName().getTableName())
                    .addAllColumns(toFileColumns(optimize.rewrite()))
                    .setCreateTable(false)
                    // the table this statement began on, not another one created under its name since
                    .setExpectedTableId(table.tableId())
                    .addAllFiles(written.stream().map(NscWriteFragment::toDataFile).collect(toImmutableList()))
                    .setRemovals(FileRemovals.newBuilder()
                            .setReadVersion(table.version())
                            .addAllRewrittenFileIds(compaction.fileIds())
                            .setOptimize(true))
                    .build());
            log.info("OPTIMIZE of %s read version %s and committed version %s: %s files rewritten into %s, %s rows",
                    table.schemaTableName(), table.version(), response.getVersion(), response.getFilesRewritten(), written.size(), rowsWritten);
        }
        finally {
            tableFilesCache.invalidate(table.tableId());
            plannedTables.unpin(table.schemaTableName());
        }
    }

    private Compaction compaction(NscOptimizeHandle optimize)
    {
        try (TableFileBatches files = tableFilesCache.fileBatches(optimize.table())) {
            return CompactionCandidates.plan(files, optimize.fileSizeThreshold());
        }
    }
}
