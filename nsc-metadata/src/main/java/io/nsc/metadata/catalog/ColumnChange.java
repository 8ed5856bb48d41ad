package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * One ALTER TABLE change of a table's columns (see {@link TableCatalog#alterColumn}).
 */
public sealed interface ColumnChange
{
    /** ADD COLUMN: a new slot after the last. */
    record Add(TableColumn column)
            implements ColumnChange
    {
        public Add
        {
            requireNonNull(column, "column is null");
            if (column.dropped()) {
                throw new IllegalArgumentException("an added column is not dropped");
            }
        }
    }

    /** RENAME COLUMN: the live column's slot takes the new name. */
    record Rename(String name, String newName)
            implements ColumnChange
    {
        public Rename
        {
            requireNonNull(name, "name is null");
            requireNonNull(newName, "newName is null");
        }
    }

    /** ALTER COLUMN ... SET DATA TYPE: the live column's slot takes a wider type (see TypeWidening). */
    record SetType(String name, String newType)
            implements ColumnChange
    {
        public SetType
        {
            requireNonNull(name, "name is null");
            requireNonNull(newType, "newType is null");
        }
    }

    /** DROP COLUMN: the live column's slot is marked dropped. */
    record Drop(String name)
            implements ColumnChange
    {
        public Drop
        {
            requireNonNull(name, "name is null");
        }
    }
}
