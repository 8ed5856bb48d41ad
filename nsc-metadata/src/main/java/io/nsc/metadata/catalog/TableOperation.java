package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * What made a table version, as its history names it: the statement whose commit the version is.
 * UPDATE and MERGE both commit as {@link #MERGE} (the connector sees one row-change statement).
 */
public enum TableOperation
{
    CREATE_TABLE("CREATE TABLE"),
    CREATE_TABLE_AS("CREATE TABLE AS"),
    INSERT("INSERT"),
    DELETE("DELETE"),
    MERGE("MERGE"),
    TRUNCATE("TRUNCATE"),
    ADD_COLUMN("ADD COLUMN"),
    RENAME_COLUMN("RENAME COLUMN"),
    DROP_COLUMN("DROP COLUMN"),
    /** {@code ALTER TABLE ... EXECUTE optimize}: the same rows in fewer files. */
    OPTIMIZE("OPTIMIZE"),
    SET_COLUMN_TYPE("SET COLUMN TYPE");

    private final String sql;

    TableOperation(String sql)
    {
        this.sql = requireNonNull(sql, "sql is null");
    }

    /** The words the catalog stores and the history shows. */
    public String sql()
    {
        return sql;
    }
}
