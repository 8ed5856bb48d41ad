package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * A table at the version resolved when the query was planned, plus the predicate the coordinator
 * prunes row groups with. The predicate is a pruning hint only: Trino still filters every row.
 */
public record NscTableHandle(
        SchemaTableName schemaTableName,
        long tableId,
        long version,
        List<NscColumnHandle> columns,
        TupleDomain<NscColumnHandle> constraint)
        implements ConnectorTableHandle
{
    public NscTableHandle
    {
        requireNonNull(schemaTableName, "schemaTableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(constraint, "constraint is null");
    }

    public NscTableHandle withConstraint(TupleDomain<NscColumnHandle> newConstraint)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, newConstraint);
    }

    @Override
    public String toString()
    {
        return schemaTableName + "@v" + version + (constraint.isAll() ? "" : " constraint=" + constraint.toString());
    }
}
