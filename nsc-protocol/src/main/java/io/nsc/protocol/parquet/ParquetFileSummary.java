package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.CompactFileStats;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What nsc learns from a Parquet file's footer.
 *
 * @param columns the top-level columns in file order, named and typed as Trino sees them
 * @param stats one entry per column of {@code columns}, in the same order
 * @param createdBy the writer's {@code created_by} string, empty when the file does not say
 */
public record ParquetFileSummary(List<ColumnSpec> columns, long rowCount, CompactFileStats stats, String createdBy)
{
    public ParquetFileSummary
    {
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        requireNonNull(stats, "stats is null");
        requireNonNull(createdBy, "createdBy is null");
        if (stats.columnCount() != columns.size()) {
            throw new IllegalArgumentException("stats have %s columns but the schema has %s".formatted(stats.columnCount(), columns.size()));
        }
        if (stats.rowCount() != rowCount) {
            throw new IllegalArgumentException("stats have %s rows but the file has %s".formatted(stats.rowCount(), rowCount));
        }
    }
}
