package io.nsc.trino.split;

import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a split source plans a scan: once the dynamic filter it waited for stands, a planner that
 * turns each batch of the table's files into splits, or none when no row can match.
 */
@FunctionalInterface
public interface SplitPlanning
{
    /**
     * @param dynamicFilter the join's dynamic filter as it stands when planning starts
     * @param files opens a listing of the table version's files, a batch at a time, for planning
     *         that must see every file before it plans any (a top-N's bound); whoever opens one closes it
     * @return empty when no row of the table can match: the scan lists no file and plans no split
     */
    Optional<BatchPlanner> start(TupleDomain<ColumnHandle> dynamicFilter, Supplier<TableFileBatches> files);

    /** Plans some files of the table; the plans of all its batches make the scan's. */
    @FunctionalInterface
    interface BatchPlanner
    {
        RowGroupPlanner.Plan plan(List<FileEntry> files);
    }
}
