package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

public record SchemaTableName(String schemaName, String tableName)
{
    public SchemaTableName
    {
        requireNonNull(schemaName, "schemaName is null");
        requireNonNull(tableName, "tableName is null");
    }

    @Override
    public String toString()
    {
        return schemaName + "." + tableName;
    }
}
