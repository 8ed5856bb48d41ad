package io.nsc.tools.tpch;

import java.time.Duration;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One table the generator wrote.
 *
 * @param bytes the size of its Parquet files
 * @param sort how it was sorted; empty for tables kept in generator order
 */
public record GeneratedTable(String table, long rows, int files, long bytes, Duration elapsed, Optional<SortStatistics> sort)
{
    public GeneratedTable
    {
        requireNonNull(table, "table is null");
        checkArgument(rows >= 0 && files >= 0 && bytes >= 0, "negative counts");
        requireNonNull(elapsed, "elapsed is null");
        requireNonNull(sort, "sort is null");
    }
}
