package io.nsc.metadata.catalog;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A column of a table, one slot of its schema: its name and its Trino type signature, which the
 * catalog stores as given, its comment, and whether it was dropped. The comment describes the
 * column; it is no part of the schema files must match. A dropped column keeps its slot so that
 * the columns after it keep their place in every file (see {@code Column} in nsc.proto).
 */
public record TableColumn(String name, String type, Optional<String> comment, boolean dropped)
{
    public TableColumn
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        requireNonNull(comment, "comment is null");
    }

    public TableColumn(String name, String type, Optional<String> comment)
    {
        this(name, type, comment, false);
    }

    public TableColumn(String name, String type)
    {
        this(name, type, Optional.empty());
    }

    /** The same name, type and state: what a file's column must have to be stored in this slot. */
    public boolean sameSchema(TableColumn other)
    {
        return name.equals(other.name) && type.equals(other.type) && dropped == other.dropped;
    }

    @Override
    public String toString()
    {
        return name + " " + type + (dropped ? " (dropped)" : "");
    }
}
