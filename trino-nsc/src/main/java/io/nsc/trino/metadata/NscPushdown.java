package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.topn.TopNRows;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.delete.NscRowIdColumnHandle;
import io.trino.spi.connector.AggregateFunction;
import io.trino.spi.connector.AggregationApplicationResult;
import io.trino.spi.connector.Assignment;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.SortItem;
import io.trino.spi.connector.TopNApplicationResult;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Variable;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.nsc.trino.NscSessionProperties.getAggregationPushdownMaxGroups;
import static io.nsc.trino.NscSessionProperties.getPushdown;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.Objects.requireNonNull;

/**
 * What {@link NscMetadata} pushes into a scan: predicates, computed values, limits, aggregations
 * and top-N, each decided on the table handle alone, except that an aggregation's groups are
 * weighed against the files' distinct counts. It holds no state of the transaction, so its
 * decisions depend only on the handle, the session and the table's files.
 */
final class NscPushdown
{
    // Large IN lists are widened to their span beyond this many ranges: the handle stays small and
    // pruning stays correct (a wider predicate only prunes less).
    private static final int DOMAIN_COMPACTION_THRESHOLD = 1000;
    // storage nodes keep a top-N's rows in memory, boxed: beyond this Trino sorts
    private static final long MAX_PUSHED_TOP_N = 100_000;

    private final TableFilesCache tableFilesCache;

    NscPushdown(TableFilesCache tableFilesCache)
    {
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
    }

    Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(ConnectorSession session, ConnectorTableHandle table, Constraint constraint)
    {
        NscTableHandle handle = (NscTableHandle) table;
        PushdownMode pushdown = getPushdown(session);
        if (pushdown == PushdownMode.NONE || handle.aggregation().isPresent() || handle.topN().isPresent()) {
            // the baseline: nothing pruned, nothing filtered before Trino sees the rows; and an
            // aggregated or top-N scan's rows are no longer the table's, which a predicate on them no longer fits
            return Optional.empty();
        }
        // a domain over a value the scan computes stays Trino's to apply
        TupleDomain<NscColumnHandle> summary = NscColumnHandle.ofTableColumns(constraint.getSummary());
        TupleDomain<ColumnHandle> computedDomains = constraint.getSummary().filter((column, _) -> !(column instanceof NscColumnHandle));
        if (!pushdown.enforcesPredicate()) {
            return applyPruningOnly(handle, summary, constraint);
        }
        if (!handle.constraint().isAll() && !handle.constraintEnforced()) {
            // planned under another mode earlier in this query: keep that contract
            return applyPruningOnly(handle, summary, constraint);
        }
        // Storage nodes (or the worker, for raw splits) evaluate these domains on every row,
        // exactly as Trino would. A huge IN list stays with Trino: the handle travels with every split.
        Map<NscColumnHandle, Domain> enforced = new HashMap<>();
        Map<ColumnHandle, Domain> remaining = new HashMap<>(computedDomains.getDomains().orElse(Map.of()));
        if (summary.isNone()) {
            return Optional.of(new ConstraintApplicationResult<>(handle.withConstraint(TupleDomain.none(), true), TupleDomain.all(), constraint.getExpression(), false));
        }
        summary.getDomains().orElseThrow().forEach((column, domain) -> {
            if (domain.getValues().isAll() || domain.getValues().getRanges().getRangeCount() <= DOMAIN_COMPACTION_THRESHOLD) {
                enforced.put(column, domain);
            }
            else {
                remaining.put(column, domain);
            }
        });
        TupleDomain<NscColumnHandle> newConstraint = handle.constraint().intersect(TupleDomain.withColumnDomains(enforced));
        // what no domain expresses: LIKE, OR across columns, ... where evaluated exactly
        FilterExpressions.Split expressions = FilterExpressions.split(constraint.getExpression(), constraint.getAssignments());
        List<String> filterExpressions = ImmutableList.<String>builder()
                .addAll(handle.filterExpressions())
                .addAll(expressions.pushed().stream().map(FilterExpressions::serialize).filter(expression -> !handle.filterExpressions().contains(expression)).toList())
                .build();
        if (newConstraint.equals(handle.constraint()) && handle.constraintEnforced() && filterExpressions.equals(handle.filterExpressions())) {
            return Optional.empty();
        }
        return Optional.of(new ConstraintApplicationResult<>(
                handle.withConstraint(newConstraint, true).withFilterExpressions(filterExpressions),
                TupleDomain.withColumnDomains(remaining),
                expressions.remaining(),
                false));
    }

    private static Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyPruningOnly(NscTableHandle handle, TupleDomain<NscColumnHandle> summary, Constraint constraint)
    {
        TupleDomain<NscColumnHandle> newConstraint = handle.constraint()
                .intersect(summary)
                .simplify(DOMAIN_COMPACTION_THRESHOLD);
        if (newConstraint.equals(handle.constraint())) {
            return Optional.empty();
        }
        // Row-group pruning is not row filtering: the whole predicate stays for Trino to evaluate.
        return Optional.of(new ConstraintApplicationResult<>(
                handle.withConstraint(newConstraint, handle.constraintEnforced()),
                constraint.getSummary(),
                constraint.getExpression(),
                false));
    }

    Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(
            ConnectorSession session,
            ConnectorTableHandle table,
            List<ConnectorExpression> projections,
            Map<String, ColumnHandle> assignments)
    {
        NscTableHandle handle = (NscTableHandle) table;
        if (handle.aggregation().isPresent()) {
            return Optional.empty();
        }
        if (assignments.values().stream().anyMatch(NscRowIdColumnHandle.class::isInstance)) {
            // a DELETE's scan: it projects row ids, which only the raw read of each file knows, and nothing to compute
            return Optional.empty();
        }
        // Arithmetic and casts the scan computes exactly as Trino would: storage nodes send the
        // value, and an aggregate over it can be pushed down too (sum(price * (1 - discount))).
        boolean compute = getPushdown(session).enforcesPredicate();
        List<ConnectorExpression> newProjections = new ArrayList<>();
        Map<String, Assignment> newAssignments = new LinkedHashMap<>();
        assignments.forEach((variable, column) -> newAssignments.put(variable, new Assignment(variable, column, columnType(column))));
        boolean computed = false;
        for (ConnectorExpression projection : projections) {
            Optional<NscComputedColumnHandle> value = compute && !(projection instanceof Variable)
                    ? ValueExpressions.translate(projection, assignments)
                            .filter(ValueExpressions::computes)
                            .map(expression -> NscComputedColumnHandle.create(expression, handle.columns()))
                    : Optional.empty();
            if (value.isEmpty()) {
                newProjections.add(projection);
                continue;
            }
            computed = true;
            newProjections.add(new Variable(value.get().name(), value.get().type()));
            newAssignments.put(value.get().name(), new Assignment(value.get().name(), value.get(), value.get().type()));
        }
        // the table columns the scan reads: what the split manager weighs raw reads against storage-side scans with
        List<NscColumnHandle> columns = newAssignments.values().stream()
                .flatMap(assignment -> switch (assignment.getColumn()) {
                    case NscColumnHandle column -> Stream.of(column);
                    case NscComputedColumnHandle value -> value.inputs().stream();
                    default -> Stream.of();
                })
                .distinct()
                .sorted(Comparator.comparingInt(NscColumnHandle::ordinal))
                .collect(toImmutableList());
        if (!computed && handle.projectedColumns().equals(Optional.of(columns))) {
            return Optional.empty();
        }
        return Optional.of(new ProjectionApplicationResult<>(
                handle.withProjectedColumns(columns),
                newProjections,
                ImmutableList.copyOf(newAssignments.values()),
                false));
    }

    private static Type columnType(ColumnHandle column)
    {
        return switch (column) {
            case NscColumnHandle nscColumn -> nscColumn.type();
            case NscComputedColumnHandle computed -> computed.type();
            case NscAggregateColumnHandle aggregate -> aggregate.type();
            default -> throw new IllegalArgumentException("not an nsc column: " + column);
        };
    }

    Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(ConnectorSession session, ConnectorTableHandle table, long limit)
    {
        NscTableHandle handle = (NscTableHandle) table;
        // a limit counts rows in file order: below a top-N it would keep the wrong ones
        if (getPushdown(session) == PushdownMode.NONE || handle.aggregation().isPresent() || handle.topN().isPresent()) {
            return Optional.empty();
        }
        if (handle.limit().isPresent() && handle.limit().getAsLong() <= limit) {
            return Optional.empty();
        }
        // Each split stops after the limit; Trino keeps its own limit over all splits.
        return Optional.of(new LimitApplicationResult<>(handle.withLimit(limit), false, false));
    }

    Optional<AggregationApplicationResult<ConnectorTableHandle>> applyAggregation(
            ConnectorSession session,
            ConnectorTableHandle table,
            List<AggregateFunction> aggregates,
            Map<String, ColumnHandle> assignments,
            List<List<ColumnHandle>> groupingSets)
    {
        NscTableHandle handle = (NscTableHandle) table;
        if (!getPushdown(session).enforcesPredicate()
                || handle.aggregation().isPresent()
                || handle.limit().isPresent()
                || handle.topN().isPresent()
                || (!handle.constraintEnforced() && !handle.constraint().isAll())
                || groupingSets.size() != 1
                || getAggregationPushdownMaxGroups(session) == 0) {
            return Optional.empty();
        }
        // storage nodes group by table columns; a key the scan computes (GROUP BY a + b) stays in Trino
        if (!groupingSets.getFirst().stream().allMatch(column -> column instanceof NscColumnHandle key && AggregateSpec.isGroupable(key.type()))) {
            return Optional.empty();
        }
        List<NscColumnHandle> groupBy = groupingSets.getFirst().stream()
                .map(NscColumnHandle.class::cast)
                .collect(toImmutableList());
        ImmutableList.Builder<NscAggregateColumnHandle> pushed = ImmutableList.builder();
        ImmutableList.Builder<ConnectorExpression> projections = ImmutableList.builder();
        ImmutableList.Builder<Assignment> newAssignments = ImmutableList.builder();
        for (int i = 0; i < aggregates.size(); i++) {
            Optional<NscAggregateColumnHandle> aggregate = toAggregateColumn("_nsc_aggregate_" + i, aggregates.get(i), assignments);
            if (aggregate.isEmpty()) {
                return Optional.empty();
            }
            pushed.add(aggregate.get());
            projections.add(new Variable(aggregate.get().name(), aggregate.get().type()));
            newAssignments.add(new Assignment(aggregate.get().name(), aggregate.get(), aggregate.get().type()));
        }
        if (!fewGroups(handle, groupBy, getAggregationPushdownMaxGroups(session))) {
            return Optional.empty();
        }
        Map<ColumnHandle, ColumnHandle> groupingColumns = groupBy.stream().collect(toImmutableMap(column -> column, column -> column));
        return Optional.of(new AggregationApplicationResult<>(
                handle.withAggregation(new NscAggregation(groupBy, pushed.build())),
                projections.build(),
                newAssignments.build(),
                groupingColumns,
                false));
    }

    private static Optional<NscAggregateColumnHandle> toAggregateColumn(String name, AggregateFunction function, Map<String, ColumnHandle> assignments)
    {
        if (function.isDistinct() || function.getFilter().isPresent() || !function.getSortItems().isEmpty()) {
            return Optional.empty();
        }
        Optional<AggregateKind> kind = switch (function.getFunctionName()) {
            case "count" -> Optional.of(function.getArguments().isEmpty() ? AggregateKind.COUNT_ALL : AggregateKind.COUNT);
            case "sum" -> Optional.of(AggregateKind.SUM);
            case "min" -> Optional.of(AggregateKind.MIN);
            case "max" -> Optional.of(AggregateKind.MAX);
            case "avg" -> Optional.of(AggregateKind.AVG);
            default -> Optional.empty();
        };
        if (kind.isEmpty()) {
            return Optional.empty();
        }
        if (kind.get() == AggregateKind.COUNT_ALL) {
            return function.getOutputType().equals(BIGINT) ? Optional.of(new NscAggregateColumnHandle(name, kind.get(), Optional.empty(), BIGINT)) : Optional.empty();
        }
        if (function.getArguments().size() != 1 || !(function.getArguments().getFirst() instanceof Variable variable)) {
            return Optional.empty();
        }
        // a column, or a value the scan computes (applyProjection turned sum(a * b)'s argument into one)
        return switch (assignments.get(variable.getName())) {
            case NscColumnHandle input -> AggregateSpec.resultType(kind.get(), input.type())
                    .filter(result -> result.equals(function.getOutputType()))
                    .map(result -> new NscAggregateColumnHandle(name, kind.get(), Optional.of(input), Optional.empty(), result));
            case NscComputedColumnHandle input -> AggregateSpec.resultType(kind.get(), input.type())
                    .filter(result -> result.equals(function.getOutputType()))
                    .map(result -> new NscAggregateColumnHandle(name, kind.get(), Optional.empty(), Optional.of(input), result));
            case null, default -> Optional.empty();
        };
    }

    /**
     * Whether the groups are known to be few: one split merges every storage node's partial
     * states, so their number bounds its memory. Distinct counts come from the files' sketches;
     * each nullable key adds the NULL group.
     */
    private boolean fewGroups(NscTableHandle handle, List<NscColumnHandle> groupBy, long maxGroups)
    {
        if (groupBy.isEmpty()) {
            return true;
        }
        List<OptionalLong> distinct = tableFilesCache.summary(handle).distinctCounts();
        double groups = 1;
        for (NscColumnHandle column : groupBy) {
            OptionalLong count = distinct.get(column.ordinal());
            if (count.isEmpty()) {
                return false;
            }
            groups *= count.getAsLong() + 1;
        }
        return groups <= maxGroups;
    }

    Optional<TopNApplicationResult<ConnectorTableHandle>> applyTopN(
            ConnectorSession session,
            ConnectorTableHandle table,
            long topNCount,
            List<SortItem> sortItems,
            Map<String, ColumnHandle> assignments)
    {
        NscTableHandle handle = (NscTableHandle) table;
        if (!getPushdown(session).enforcesPredicate()
                || handle.aggregation().isPresent()
                || handle.limit().isPresent()
                || (!handle.constraintEnforced() && !handle.constraint().isAll())
                || topNCount > MAX_PUSHED_TOP_N) {
            return Optional.empty();
        }
        ImmutableList.Builder<NscTopN.SortItem> order = ImmutableList.builder();
        for (SortItem item : sortItems) {
            if (!(assignments.get(item.getName()) instanceof NscColumnHandle column) || !TopNRows.supports(column.type())) {
                return Optional.empty();
            }
            order.add(new NscTopN.SortItem(column, item.getSortOrder().isAscending(), item.getSortOrder().isNullsFirst()));
        }
        NscTopN topN = new NscTopN(topNCount, order.build());
        if (handle.topN().equals(Optional.of(topN))) {
            return Optional.empty();
        }
        if (handle.topN().isPresent() && !handle.topN().get().order().equals(topN.order())) {
            return Optional.empty();
        }
        if (handle.topN().isPresent() && handle.topN().get().count() <= topNCount) {
            return Optional.empty();
        }
        // each split keeps its own first rows; Trino's top-N over all splits stays
        return Optional.of(new TopNApplicationResult<>(handle.withTopN(topN), false, false));
    }}
