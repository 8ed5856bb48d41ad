package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.nsc.trino.metadata.NscColumnHandle;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.SchemaTableName;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A CREATE TABLE AS in progress. The table does not exist until {@code finishCreateTable} commits
 * every file with it in one metadata transaction.
 *
 * @param tableProperties the properties as the metadata service stores them (SQL text)
 * @param comment the table's comment ({@code CREATE TABLE ... COMMENT '...' AS})
 * @param replace CREATE OR REPLACE: the commit drops a table of that name
 */
public record NscOutputTableHandle(
        SchemaTableName schemaTableName,
        List<NscColumnHandle> columns,
        NscWriterSettings settings,
        Map<String, String> tableProperties,
        Optional<String> comment,
        boolean replace)
        implements ConnectorOutputTableHandle, NscWritableTable
{
    @Override
    public List<NscColumnHandle> droppedColumns()
    {
        // a new table has none
        return List.of();
    }

    public NscOutputTableHandle
    {
        requireNonNull(schemaTableName, "schemaTableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(settings, "settings is null");
        tableProperties = ImmutableMap.copyOf(requireNonNull(tableProperties, "tableProperties is null"));
        requireNonNull(comment, "comment is null");
    }
}
