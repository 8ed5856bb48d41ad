package io.nsc.metadata.catalog;

import static java.util.Objects.requireNonNull;

/**
 * A column of a table: its name and its Trino type signature, which the catalog stores as given.
 */
public record TableColumn(String name, String type)
{
    public TableColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
    }

    @Override
    public String toString()
    {
        return name + " " + type;
    }
}
