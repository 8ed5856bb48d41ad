package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.statistics.ColumnStatisticMetadata;
import io.trino.spi.statistics.ColumnStatisticType;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.TableStatisticType;
import io.trino.spi.statistics.TableStatisticsMetadata;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static com.google.common.collect.Iterables.getOnlyElement;
import static io.trino.spi.StandardErrorCode.GENERIC_INTERNAL_ERROR;
import static io.trino.spi.StandardErrorCode.INVALID_ANALYZE_PROPERTY;
import static io.trino.spi.statistics.ColumnStatisticType.NUMBER_OF_DISTINCT_VALUES;
import static io.trino.spi.statistics.ColumnStatisticType.NUMBER_OF_NON_NULL_VALUES;
import static io.trino.spi.statistics.TableStatisticType.ROW_COUNT;
import static io.trino.spi.type.BigintType.BIGINT;

/**
 * ANALYZE: which statistics Trino computes over a table version for the connector (its rows,
 * and each analyzed column's non-null values and {@code approx_distinct}), and what of them the
 * metadata service keeps. The scan ANALYZE runs reads the table handle's version, so the
 * statistics are those of that version exactly; how readers of later versions use them is
 * {@link NscTableStatistics}'s.
 */
final class NscAnalyze
{
    private static final List<ColumnStatisticType> COLLECTED = ImmutableList.of(NUMBER_OF_DISTINCT_VALUES, NUMBER_OF_NON_NULL_VALUES);

    private NscAnalyze() {}

    /**
     * @param columnNames the columns to analyze; every live column when empty
     * @throws TrinoException INVALID_ANALYZE_PROPERTY for an empty list or a column the table does not have
     */
    static TableStatisticsMetadata statisticsToCollect(NscTableHandle table, Optional<Set<String>> columnNames)
    {
        Set<String> names = table.columns().stream().map(NscColumnHandle::name).collect(toImmutableSet());
        if (columnNames.isPresent()) {
            if (columnNames.get().isEmpty()) {
                throw new TrinoException(INVALID_ANALYZE_PROPERTY, "Cannot specify empty list of columns for analysis");
            }
            Set<String> missing = columnNames.get().stream().filter(name -> !names.contains(name)).collect(toImmutableSet());
            if (!missing.isEmpty()) {
                throw new TrinoException(INVALID_ANALYZE_PROPERTY, "Invalid columns specified for analysis: %s".formatted(missing));
            }
        }
        ImmutableSet.Builder<ColumnStatisticMetadata> statistics = ImmutableSet.builder();
        for (NscColumnHandle column : table.columns()) {
            if (columnNames.isEmpty() || columnNames.get().contains(column.name())) {
                for (ColumnStatisticType type : COLLECTED) {
                    statistics.add(new ColumnStatisticMetadata(column.name(), type));
                }
            }
        }
        return new TableStatisticsMetadata(statistics.build(), ImmutableSet.of(ROW_COUNT), ImmutableList.of());
    }

    /** What Trino computed, for the metadata service: the version's rows and the analyzed columns' counts. */
    record Result(long rowCount, List<AnalyzedColumn> columns) {}

    static Result result(NscTableHandle table, Collection<ComputedStatistics> computedStatistics)
    {
        if (computedStatistics.size() != 1) {
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "ANALYZE of %s computed %s groups of statistics, not one".formatted(table.schemaTableName(), computedStatistics.size()));
        }
        ComputedStatistics computed = getOnlyElement(computedStatistics);
        long rowCount = count(computed.getTableStatistics().get(TableStatisticType.ROW_COUNT));
        ImmutableList.Builder<AnalyzedColumn> columns = ImmutableList.builder();
        for (NscColumnHandle column : table.columns()) {
            Block distinct = computed.getColumnStatistics().get(new ColumnStatisticMetadata(column.name(), NUMBER_OF_DISTINCT_VALUES));
            Block nonNull = computed.getColumnStatistics().get(new ColumnStatisticMetadata(column.name(), NUMBER_OF_NON_NULL_VALUES));
            if (distinct == null || nonNull == null) {
                // not analyzed this time
                continue;
            }
            // approx_distinct is an estimate: never more than the values it counted
            long nonNullCount = Math.min(count(nonNull), rowCount);
            columns.add(AnalyzedColumn.newBuilder()
                    .setOrdinal(column.ordinal())
                    .setNonNullCount(nonNullCount)
                    .setDistinctCount(Math.min(count(distinct), nonNullCount))
                    .build());
        }
        return new Result(rowCount, columns.build());
    }

    private static long count(Block block)
    {
        if (block == null || block.getPositionCount() != 1) {
            throw new TrinoException(GENERIC_INTERNAL_ERROR, "ANALYZE computed no single count");
        }
        return block.isNull(0) ? 0 : Math.max(0, BIGINT.getLong(block, 0));
    }
}
