package io.nsc.trino.metadata;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.predicate.TupleDomain;
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

    /**
     * The part of a predicate on table columns: a scan's predicates may also name the columns
     * of a pushed-down aggregation's results, which no row group or row of the table holds.
     */
    public static TupleDomain<NscColumnHandle> ofTableColumns(TupleDomain<ColumnHandle> predicate)
    {
        return predicate
                .filter((column, _) -> column instanceof NscColumnHandle)
                .transformKeys(NscColumnHandle.class::cast);
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
