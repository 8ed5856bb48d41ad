package io.nsc.trino.optimize;

import io.airlift.units.DataSize;
import io.trino.spi.connector.TableProcedureMetadata;

import java.util.List;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static io.nsc.trino.optimize.NscTableProcedureId.OPTIMIZE;
import static io.trino.plugin.base.session.PropertyMetadataUtil.dataSizeProperty;
import static io.trino.spi.connector.TableProcedureExecutionMode.distributedWithFilteringAndRepartitioning;

/**
 * {@code ALTER TABLE t EXECUTE optimize(file_size_threshold => '100MB')}: the table's files below
 * the threshold, and those that lost row groups to a DELETE, are read by the workers and written
 * again as an INSERT writes (sorted by {@code sorted_by}, in the table's row groups, with compact
 * stats and Bloom filters), then swapped for the new files in one commit.
 */
public final class OptimizeTableProcedure
{
    public static final String FILE_SIZE_THRESHOLD = "file_size_threshold";

    private OptimizeTableProcedure() {}

    public static TableProcedureMetadata metadata()
    {
        return new TableProcedureMetadata(
                OPTIMIZE.name(),
                distributedWithFilteringAndRepartitioning(),
                List.of(dataSizeProperty(
                        FILE_SIZE_THRESHOLD,
                        "Files smaller than this are rewritten (a file that lost row groups to a DELETE is, whatever its size)",
                        DataSize.of(100, MEGABYTE),
                        false)));
    }
}
