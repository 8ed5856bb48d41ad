package io.nsc.trino.metadata;

import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.TableInfo;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.spi.type.TypeManager;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.trino.NscErrorCode.NSC_UNSUPPORTED_TYPE;
import static java.util.Objects.requireNonNull;

/**
 * A top-level column of an nsc table. {@code ordinal} is its place among the table's columns,
 * dropped ones included, which is also its index in every file's columns and compact stats (a
 * file written before the column was added has fewer: it reads as NULL there).
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
     * The table's column at this place, dropped or not, with its type as this Trino knows it.
     *
     * @throws TrinoException NSC_UNSUPPORTED_TYPE when this Trino does not know the column's type
     */
    static NscColumnHandle fromStored(TypeManager typeManager, TableInfo table, int ordinal)
    {
        Column column = table.getColumns(ordinal);
        Type type;
        try {
            type = typeManager.fromSqlType(column.getType());
        }
        catch (RuntimeException e) {
            throw new TrinoException(NSC_UNSUPPORTED_TYPE, "Column %s of %s.%s has type %s, which this Trino does not know".formatted(
                    column.getName(), table.getSchemaName(), table.getTableName(), column.getType()), e);
        }
        return new NscColumnHandle(column.getName(), type, ordinal);
    }

    /**
     * The column at this place in the table's files. Places are not list positions: a dropped
     * column keeps its place and has no handle.
     */
    public static NscColumnHandle byOrdinal(List<NscColumnHandle> columns, int ordinal)
    {
        for (NscColumnHandle column : columns) {
            if (column.ordinal() == ordinal) {
                return column;
            }
        }
        throw new IllegalArgumentException("no column at place %s among %s".formatted(ordinal, columns));
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
