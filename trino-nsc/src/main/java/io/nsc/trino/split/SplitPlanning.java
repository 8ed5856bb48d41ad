package io.nsc.trino.split;

import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.predicate.TupleDomain;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * How a split source plans a scan: once the dynamic filter it waited for stands, the work that
 * must see every file before any is planned (a top-N's bound), then a planner that turns each
 * batch of the table's files into splits; or nothing at all when no row can match.
 */
@FunctionalInterface
public interface SplitPlanning
{
    /**
     * @param dynamicFilter the join's dynamic filter as it stands when planning starts
     * @param dynamicFilterPending whether the filter may still narrow (the wait for it ran out)
     * @param files opens a listing of the table version's files, a batch at a time, for the
     *         preparation that must see every file; whoever opens one closes it
     * @return empty when no row of the table can match: the scan lists no file and plans no split
     */
    Optional<Preparation> start(TupleDomain<ColumnHandle> dynamicFilter, boolean dynamicFilterPending, Supplier<TableFileBatches> files);

    /**
     * What must be read before the first batch is planned, read a few batches at a time so that
     * the scheduler's thread is never held for a whole table.
     */
    interface Preparation
            extends AutoCloseable
    {
        /**
         * Reads at most {@code maxBatches} more batches.
         *
         * @return the planner once everything needed was read; empty while batches remain
         */
        Optional<BatchPlanner> advance(int maxBatches);

        /** Lets go of a listing left unfinished (a cancelled query). */
        @Override
        void close();

        /** Nothing to read first. */
        static Preparation ready(BatchPlanner planner)
        {
            return new Preparation()
            {
                @Override
                public Optional<BatchPlanner> advance(int maxBatches)
                {
                    return Optional.of(planner);
                }

                @Override
                public void close() {}
            };
        }
    }

    /** Plans some files of the table; the plans of all its batches make the scan's. */
    @FunctionalInterface
    interface BatchPlanner
    {
        RowGroupPlanner.Plan plan(List<FileEntry> files);
    }
}
