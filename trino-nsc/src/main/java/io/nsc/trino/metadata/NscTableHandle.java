package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * A table at the version resolved when the query was planned, plus the predicate the coordinator
 * prunes row groups with. The predicate is a pruning hint only: Trino still filters every row.
 *
 * @param properties the table properties as the metadata service stores them (SQL text)
 */
public record NscTableHandle(
        SchemaTableName schemaTableName,
        long tableId,
        long version,
        List<NscColumnHandle> columns,
        Map<String, String> properties,
        TupleDomain<NscColumnHandle> constraint)
        implements ConnectorTableHandle
{
    public NscTableHandle
    {
        requireNonNull(schemaTableName, "schemaTableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        requireNonNull(constraint, "constraint is null");
    }

    public NscTableHandle withConstraint(TupleDomain<NscColumnHandle> newConstraint)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, newConstraint);
    }

    @Override
    public String toString()
    {
        return schemaTableName + "@v" + version + (constraint.isAll() ? "" : " constraint=" + constraint.toString());
    }
}
