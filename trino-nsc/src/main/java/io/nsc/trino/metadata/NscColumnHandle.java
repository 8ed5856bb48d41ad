package io.nsc.trino.metadata;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A top-level column of an nsc table. {@code ordinal} is its position in the table schema, which
 * is also its index in every file's compact stats.
 */
public record NscColumnHandle(String name, Type type, int ordinal)
        implements ColumnHandle
{
    public NscColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        checkArgument(ordinal >= 0, "ordinal is negative");
    }

    public ColumnMetadata toColumnMetadata()
    {
        return new ColumnMetadata(name, type);
    }

    @Override
    public String toString()
    {
        return name + ":" + type;
    }
}
