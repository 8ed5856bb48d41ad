package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * A table whose files a listing reads: a live one at its current version, or a dropped one at
 * the version it was dropped at, whose files were moved aside for the table version retention.
 *
 * @param lastVersion the current version of a live table, the last one of a dropped table
 * @param droppedMillis when the table was dropped; empty for a live table
 * @param retentionMillis the version retention a dropped table had; empty for a live table (its
 *        property says) and for one dropped before tables kept their own
 */
record ListedTable(long tableId, long lastVersion, Optional<Long> droppedMillis, OptionalLong retentionMillis)
{
    ListedTable
    {
        requireNonNull(droppedMillis, "droppedMillis is null");
        requireNonNull(retentionMillis, "retentionMillis is null");
    }

    /** The live table with the id, else the dropped one still in the catalog; empty when neither is. */
    static Optional<ListedTable> find(Handle handle, long tableId)
    {
        Optional<ListedTable> live = handle.createQuery("SELECT version FROM tables WHERE table_id = :table_id")
                .bind("table_id", tableId)
                .map((row, _) -> new ListedTable(tableId, row.getLong("version"), Optional.empty(), OptionalLong.empty()))
                .findOne();
        if (live.isPresent()) {
            return live;
        }
        return handle.createQuery("SELECT version, dropped_millis, version_retention_millis FROM dropped_tables WHERE table_id = :table_id")
                .bind("table_id", tableId)
                .map((row, _) -> new ListedTable(tableId, row.getLong("version"), Optional.of(row.getLong("dropped_millis")),
                        row.getObject("version_retention_millis") == null ? OptionalLong.empty() : OptionalLong.of(row.getLong("version_retention_millis"))))
                .findOne();
    }

    boolean dropped()
    {
        return droppedMillis.isPresent();
    }

    /**
     * Where the files of this table's versions are: a live table's current files, and those a
     * DELETE removed, kept for the versions before; a dropped table's, removed ones among them.
     */
    List<FileSource> fileSources()
    {
        if (dropped()) {
            return List.of(new FileSource("dropped_files", "dropped_file_replicas", "(f.removed_version IS NULL OR f.removed_version > :version)"));
        }
        return List.of(
                new FileSource("files", "file_replicas", "f.committed_version <= :version"),
                new FileSource("removed_files", "removed_file_replicas", "f.removed_version > :version"));
    }

    /**
     * A catalog table holding files of this table, with their replicas.
     *
     * @param inVersion the condition on {@code f} (the files table) and {@code :version} that keeps
     *        the files of that version: those not removed by then
     */
    record FileSource(String filesTable, String replicasTable, String inVersion)
    {
        FileSource
        {
            requireNonNull(filesTable, "filesTable is null");
            requireNonNull(replicasTable, "replicasTable is null");
            requireNonNull(inVersion, "inVersion is null");
        }
    }
}
