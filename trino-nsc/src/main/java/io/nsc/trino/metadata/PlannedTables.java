package io.nsc.trino.metadata;

import io.nsc.protocol.proto.TableInfo;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.TableNotFoundException;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * The table versions one transaction pinned (see {@link NscMetadata}): the first reference to a
 * table pins the version current then. A statement that changes a table unpins it, so that the
 * transaction's next reference reads what it changed. One per transaction, shared by the parts
 * of its metadata that read or change tables.
 */
final class PlannedTables
{
    private final NscMetadataClient client;
    private final Map<SchemaTableName, TableInfo> tables = new ConcurrentHashMap<>();

    PlannedTables(NscMetadataClient client)
    {
        this.client = requireNonNull(client, "client is null");
    }

    /** The table at the version this transaction pinned, pinning the current one on its first reference; empty when it does not exist. */
    Optional<TableInfo> pin(SchemaTableName name)
    {
        TableInfo planned = tables.get(name);
        if (planned != null) {
            return Optional.of(planned);
        }
        // not pinned when missing: a table created later in this transaction is found then
        return client.getTable(name).map(current -> tables.computeIfAbsent(name, _ -> current));
    }

    /** The table as the handle's transaction planned it: comments and dropped columns are read from it, not from the handle. */
    TableInfo tableInfo(NscTableHandle handle)
    {
        TableInfo planned = tables.get(handle.schemaTableName());
        if (planned != null && planned.getTableId() == handle.tableId()) {
            return planned;
        }
        return client.getTable(handle.schemaTableName())
                .filter(table -> table.getTableId() == handle.tableId())
                .orElseThrow(() -> new TableNotFoundException(handle.schemaTableName()));
    }

    /** After a statement changed the table: the transaction's next reference reads the table as it is now. */
    void unpin(SchemaTableName name)
    {
        tables.remove(name);
    }

    /** After a statement changed the schema (dropped or renamed it): every table of it. */
    void unpinSchema(String schema)
    {
        tables.keySet().removeIf(table -> table.getSchemaName().equals(schema));
    }
}
