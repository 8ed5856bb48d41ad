package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A column of a table: its name and its Trino type signature, which the catalog stores as given,
 * and its comment. The comment describes the column; it is no part of the schema files must match.
 */
public record TableColumn(String name, String type, Optional<String> comment)
{
    public TableColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(comment, "comment is null");
    }

    public TableColumn(String name, String type)
    {
        this(name, type, Optional.empty());
    }

    /** The same name and type: what a file's column must have to be stored in this one. */
    public boolean sameSchema(TableColumn other)
    {
        return name.equals(other.name) && type.equals(other.type);
    }

    @Override
    public String toString()
    {
        return name + " " + type;
    }
}
