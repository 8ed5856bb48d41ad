package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A table at the version resolved when the query was planned, plus what the query pushed into
 * the scan.
 *
 * @param properties the table properties as the metadata service stores them (SQL text)
 * @param constraint the predicate row groups are pruned with
 * @param constraintEnforced whether page sources also apply {@code constraint} to every row they
 * return (then Trino does not filter again); otherwise it is a pruning hint only
 * @param projectedColumns the columns the query reads, once Trino has told the connector
 * @param limit each split returns at most this many rows (Trino still applies the limit)
 * @param aggregation the aggregation the scan computes in place of Trino's
 * @param topN each split returns only its first rows in this order (Trino still applies its top-N)
 * @param filterExpressions enforced filters no domain expresses (see {@link FilterExpressions}), conjuncts over column ordinals
 * @param optimizeFileSizeThreshold the scan of an {@code ALTER TABLE ... EXECUTE optimize}: it reads
 * every remaining row of the files it rewrites ({@link io.nsc.trino.optimize.CompactionCandidates}),
 * and nothing else
 */
public record NscTableHandle(
        SchemaTableName schemaTableName,
        long tableId,
        long version,
        List<NscColumnHandle> columns,
        Map<String, String> properties,
        TupleDomain<NscColumnHandle> constraint,
        boolean constraintEnforced,
        Optional<List<NscColumnHandle>> projectedColumns,
        OptionalLong limit,
        Optional<NscAggregation> aggregation,
        Optional<NscTopN> topN,
        List<String> filterExpressions,
        OptionalLong optimizeFileSizeThreshold)
        implements ConnectorTableHandle
{
    public NscTableHandle
    {
        requireNonNull(schemaTableName, "schemaTableName is null");
        columns = ImmutableList.copyOf(requireNonNull(columns, "columns is null"));
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        requireNonNull(constraint, "constraint is null");
        projectedColumns = requireNonNull(projectedColumns, "projectedColumns is null").map(ImmutableList::copyOf);
        requireNonNull(limit, "limit is null");
        checkArgument(limit.orElse(0) >= 0, "limit is negative");
        requireNonNull(aggregation, "aggregation is null");
        requireNonNull(topN, "topN is null");
        filterExpressions = ImmutableList.copyOf(requireNonNull(filterExpressions, "filterExpressions is null"));
        requireNonNull(optimizeFileSizeThreshold, "optimizeFileSizeThreshold is null");
    }

    public static NscTableHandle forTable(SchemaTableName name, long tableId, long version, List<NscColumnHandle> columns, Map<String, String> properties)
    {
        return new NscTableHandle(name, tableId, version, columns, properties, TupleDomain.all(), false, Optional.empty(), OptionalLong.empty(), Optional.empty(), Optional.empty(), List.of(), OptionalLong.empty());
    }

    public NscTableHandle withConstraint(TupleDomain<NscColumnHandle> newConstraint, boolean enforced)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, newConstraint, enforced, projectedColumns, limit, aggregation, topN, filterExpressions, optimizeFileSizeThreshold);
    }

    public NscTableHandle withProjectedColumns(List<NscColumnHandle> newProjectedColumns)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, Optional.of(newProjectedColumns), limit, aggregation, topN, filterExpressions, optimizeFileSizeThreshold);
    }

    public NscTableHandle withLimit(long newLimit)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, projectedColumns, OptionalLong.of(newLimit), aggregation, topN, filterExpressions, optimizeFileSizeThreshold);
    }

    public NscTableHandle withAggregation(NscAggregation newAggregation)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, projectedColumns, limit, Optional.of(newAggregation), topN, filterExpressions, optimizeFileSizeThreshold);
    }

    public NscTableHandle withFilterExpressions(List<String> newFilterExpressions)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, projectedColumns, limit, aggregation, topN, newFilterExpressions, optimizeFileSizeThreshold);
    }

    public NscTableHandle withTopN(NscTopN newTopN)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, projectedColumns, limit, aggregation, Optional.of(newTopN), filterExpressions, optimizeFileSizeThreshold);
    }

    /** The scan of an OPTIMIZE: only the files it rewrites, each read whole. */
    public NscTableHandle withOptimize(long fileSizeThreshold)
    {
        return new NscTableHandle(schemaTableName, tableId, version, columns, properties, constraint, constraintEnforced, projectedColumns, limit, aggregation, topN, filterExpressions, OptionalLong.of(fileSizeThreshold));
    }

    @Override
    public String toString()
    {
        StringBuilder text = new StringBuilder(schemaTableName + "@v" + version);
        if (!constraint.isAll()) {
            // enforced: the storage nodes return only matching rows; otherwise it prunes row groups and Trino filters the rows
            text.append(constraintEnforced ? " constraint=" : " pruning constraint=").append(constraint);
        }
        if (!filterExpressions.isEmpty()) {
            text.append(" filters=").append(filterExpressions.stream().map(expression -> FilterExpressions.deserialize(expression, columns).toString()).toList());
        }
        limit.ifPresent(value -> text.append(" limit=").append(value));
        aggregation.ifPresent(value -> text.append(" aggregation: ").append(value));
        topN.ifPresent(value -> text.append(" topN: ").append(value));
        optimizeFileSizeThreshold.ifPresent(value -> text.append(" optimize files below ").append(value).append(" bytes"));
        return text.toString();
    }
}
