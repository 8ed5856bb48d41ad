package io.nsc.trino.metadata;

import io.trino.spi.connector.SchemaTableName;

import java.util.Optional;

/**
 * Names of the metadata tables of an nsc table, {@code "<table>$<kind>"}: no nsc table name has a
 * '$' (NameRules), so such a name is never a table of its own.
 */
final class MetadataTableNames
{
    private MetadataTableNames() {}

    /** The table {@code name} describes when it ends with {@code suffix} (such as "$files"); empty otherwise. */
    static Optional<SchemaTableName> dataTable(SchemaTableName name, String suffix)
    {
        String table = name.getTableName();
        if (!table.endsWith(suffix) || table.length() == suffix.length()) {
            return Optional.empty();
        }
        return Optional.of(new SchemaTableName(name.getSchemaName(), table.substring(0, table.length() - suffix.length())));
    }
}
