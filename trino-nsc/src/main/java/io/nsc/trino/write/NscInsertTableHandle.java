package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * An INSERT in progress: its files are appended to the table by one commit in {@code finishInsert}.
 *
 * @param droppedColumns the table's dropped columns, by the name and type they had: their slots
 * are written as NULL
 */
public record NscInsertTableHandle(
        SchemaTableName schemaTableName,
        long tableId,
        List<NscColumnHandle> columns,
        List<NscColumnHandle> droppedColumns,
        NscWriterSettings settings)
        implements ConnectorInsertTableHandle, NscWritableTable
{
    public NscInsertTableHandle
    {
        requireNonNull(schemaTableName, "schemaTableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        droppedColumns = ImmutableList.copyOf(requireNonNull(droppedColumns, "droppedColumns is null"));
        requireNonNull(settings, "settings is null");
    }
}
