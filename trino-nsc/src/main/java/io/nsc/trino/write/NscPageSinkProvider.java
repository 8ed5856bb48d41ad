package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorPageSink;
import io.trino.spi.connector.ConnectorPageSinkId;
import io.trino.spi.connector.ConnectorPageSinkProvider;
import io.trino.spi.connector.ConnectorSession;
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
    private final TypeOperators typeOperators;
    private final WriterResources resources;

    @Inject
    public NscPageSinkProvider(ReplicaUploader uploader, TypeManager typeManager, NscConfig config)
    {
        this.uploader = requireNonNull(uploader, "uploader is null");
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
