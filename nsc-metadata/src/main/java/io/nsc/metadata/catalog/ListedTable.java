package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A table whose files a listing reads: a live one at its current version, or a dropped one at
 * the version it was dropped at, whose files were moved aside for the table version retention.
 *
 * @param lastVersion the current version of a live table, the last one of a dropped table
 * @param droppedMillis when the table was dropped; empty for a live table
 */
record ListedTable(long tableId, long lastVersion, Optional<Long> droppedMillis)
{
    ListedTable
    {
        requireNonNull(droppedMillis, "droppedMillis is null");
    }

    /** The live table with the id, else the dropped one still in the catalog; empty when neither is. */
    static Optional<ListedTable> find(Handle handle, long tableId)
    {
        Optional<ListedTable> live = handle.createQuery("SELECT version FROM tables WHERE table_id = :table_id")
                .bind("table_id", tableId)
                .map((row, _) -> new ListedTable(tableId, row.getLong("version"), Optional.empty()))
                .findOne();
        if (live.isPresent()) {
            return live;
        }
        return handle.createQuery("SELECT version, dropped_millis FROM dropped_tables WHERE table_id = :table_id")
                .bind("table_id", tableId)
                .map((row, _) -> new ListedTable(tableId, row.getLong("version"), Optional.of(row.getLong("dropped_millis"))))
                .findOne();
    }

    boolean dropped()
    {
        return droppedMillis.isPresent();
    }

    /** The catalog tables holding this table's files and their replicas. */
    String filesTable()
    {
        return dropped() ? "dropped_files" : "files";
    }

    String replicasTable()
    {
        return dropped() ? "dropped_file_replicas" : "file_replicas";
    }
}
