package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.delete.NscMergeSink;
import io.nsc.trino.delete.NscMergeTableHandle;
import io.nsc.trino.optimize.NscOptimizeHandle;
import io.nsc.trino.read.NscPageSourceProvider;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeSink;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;
import io.trino.spi.type.TypeOperators;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

public class NscPageSinkProvider
        implements ConnectorPageSinkProvider
{
    private final ReplicaUploader uploader;
    private final NscMetadataClient metadataClient;
    private final NscPageSourceProvider pageSources;
    private final TypeOperators typeOperators;
    private final WriterResources resources;

    @Inject
    public NscPageSinkProvider(ReplicaUploader uploader, NscMetadataClient metadataClient, NscPageSourceProvider pageSources, TypeManager typeManager, NscConfig config)
    {
        this.uploader = requireNonNull(uploader, "uploader is null");
        this.metadataClient = requireNonNull(metadataClient, "metadataClient is null");
        this.pageSources = requireNonNull(pageSources, "pageSources is null");
        this.typeOperators = typeManager.getTypeOperators();
        this.resources = new WriterResources(
                config.getWriterBufferSize().toBytes(),
                config.getWriterTargetFileSize().toBytes(),
                Path.of(Optional.ofNullable(config.getWriterTempDir()).orElseGet(() -> System.getProperty("java.io.tmpdir"))));
    }

    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transactionHandle, ConnectorSession session, ConnectorOutputTableHandle outputTableHandle, ConnectorPageSinkId pageSinkId)
    {
        return createPageSink(session, (NscOutputTableHandle) outputTableHandle);
    }

    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transactionHandle, ConnectorSession session, ConnectorInsertTableHandle insertTableHandle, ConnectorPageSinkId pageSinkId)
    {
        return createPageSink(session, (NscInsertTableHandle) insertTableHandle);
    }

    /** An OPTIMIZE's sink: the files it rewrites are written again as an INSERT into the table would write them. */
    @Override
    public ConnectorPageSink createPageSink(ConnectorTransactionHandle transactionHandle, ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle, ConnectorPageSinkId pageSinkId)
    {
        return createPageSink(session, ((NscOptimizeHandle) tableExecuteHandle).rewrite());
    }

    /** A row-level DELETE, UPDATE or MERGE's sink: the files it rewrites and the rows it inserts are written as an INSERT into the table would write them. */
    @Override
    public ConnectorMergeSink createMergeSink(ConnectorTransactionHandle transactionHandle, ConnectorSession session, ConnectorMergeTableHandle mergeHandle, ConnectorPageSinkId pageSinkId)
    {
        NscMergeTableHandle handle = (NscMergeTableHandle) mergeHandle;
        return NscMergeSink.create(handle, metadataClient, pageSources, transactionHandle, session, () -> createPageSink(session, handle.rewrite()));
    }

    private ConnectorPageSink createPageSink(ConnectorSession session, NscWritableTable table)
    {
        List<FileSlot> slots = FileSlot.of(table);
        List<String> names = slots.stream().map(FileSlot::fileColumnName).collect(toImmutableList());
        List<Type> types = slots.stream().map(slot -> slot.column().type()).collect(toImmutableList());
        ConnectorPageSink sink = new NscPageSink(
                WriteTypes.parquetSchema(names, types),
                types,
                table.settings(),
                sorter(table, names, types),
                resources,
                // the query id tells a person looking at the temporary directory whose files they are
                "nsc-%s-".formatted(session.getQueryId()),
                uploader);
        return table.droppedColumns().isEmpty() ? sink : new DroppedColumnsPageSink(sink, slots);
    }

    private Optional<RowSorter> sorter(NscWritableTable table, List<String> names, List<Type> types)
    {
        List<String> sortedBy = table.settings().sortedBy();
        if (sortedBy.isEmpty()) {
            return Optional.empty();
        }
        ImmutableList.Builder<Integer> channels = ImmutableList.builder();
        for (String column : sortedBy) {
            int channel = names.indexOf(column);
            checkArgument(channel >= 0, "sorted_by column %s is not a column of %s", column, table.schemaTableName());
            channels.add(channel);
        }
        return Optional.of(new RowSorter(types, channels.build(), typeOperators));
    }
}
