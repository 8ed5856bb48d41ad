package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.Lists;
import io.nsc.protocol.stats.CompactFileStats;
import org.jdbi.v3.core.Handle;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.invalidArgument;

/**
 * Takes a DELETE's, UPDATE's or MERGE's removals out of a table inside its commit's transaction. Everything is checked
 * before anything is written: each file named must have been in the table at the version the
 * statement read, and must still be there with the row groups it had then (else another commit
 * changed it under the statement: ABORTED). A removed file moves to {@code removed_files} with
 * the version that removed it, its replicas with it, so the versions before stay listable for the
 * table version retention; a removed row group is recorded by file and version.
 */
final class TableFileRemoval
{
    // bounds the ids one statement binds
    private static final int BATCH_SIZE = 1000;

    private TableFileRemoval() {}

    /**
     * @param version the version the commit moves the table to
     * @param survivingRows the rows of the commit's new files that hold the rewritten files'
     *        survivors (not those of rows an UPDATE or MERGE inserts)
     */
    static RemovalCounts remove(Handle handle, TableEntry table, FileRemovals removals, long version, long survivingRows)
    {
        long readVersion = removals.readVersion();
        if (readVersion > table.version()) {
            throw invalidArgument("The statement read version %s of table %s, which is at version %s", readVersion, table.name(), table.version());
        }
        List<String> fileIds = removals.fileIds();
        Map<String, LiveFile> files = liveFiles(handle, table, fileIds);
        Map<String, Map<Integer, Long>> removedBefore = removedRowGroups(handle, fileIds);
        for (String fileId : fileIds) {
            checkUnchanged(handle, table, readVersion, fileId, Optional.ofNullable(files.get(fileId)), removedBefore.getOrDefault(fileId, Map.of()));
        }
        // the rows of row groups are in the stats: read only for the files that need them
        Set<String> needStats = new HashSet<>(removals.removedRowGroups().keySet());
        needStats.addAll(removedBefore.keySet());
        Map<String, CompactFileStats> stats = compactStats(handle, List.copyOf(needStats));

        List<String> leaving = new ArrayList<>();
        leaving.addAll(removals.removedFileIds());
        long rowsLeaving = 0;
        for (String fileId : removals.removedFileIds()) {
            rowsLeaving += remainingRows(files.get(fileId), stats, removedBefore);
        }
        long rewrittenRows = 0;
        for (String fileId : removals.rewrittenFileIds()) {
            rewrittenRows += remainingRows(files.get(fileId), stats, removedBefore);
        }
        if (survivingRows > rewrittenRows) {
            throw invalidArgument("The commit adds %s surviving rows, more than the %s rows its rewritten files held", survivingRows, rewrittenRows);
        }
        if (removals.optimize() && survivingRows != rewrittenRows) {
            // a compaction that lost rows must never become the table
            throw invalidArgument("The OPTIMIZE adds %s rows, but the %s files it rewrites held %s", survivingRows, removals.rewrittenFileIds().size(), rewrittenRows);
        }
        int emptied = 0;
        int rowGroupsRemoved = 0;
        Map<String, List<Integer>> rowGroups = new TreeMap<>();
        for (Map.Entry<String, List<Integer>> entry : removals.removedRowGroups().entrySet()) {
            String fileId = entry.getKey();
            CompactFileStats fileStats = stats.get(fileId);
            Map<Integer, Long> before = removedBefore.getOrDefault(fileId, Map.of());
            checkRowGroups(fileId, fileStats, entry.getValue(), before, readVersion);
            if (before.size() + entry.getValue().size() == fileStats.rowGroupCount()) {
                // no row group left: the file goes, rather than stay listed with nothing in it
                leaving.add(fileId);
                rowsLeaving += remainingRows(files.get(fileId), stats, removedBefore);
                emptied++;
                continue;
            }
            rowGroups.put(fileId, entry.getValue());
            rowGroupsRemoved += entry.getValue().size();
            rowsLeaving += entry.getValue().stream().mapToLong(fileStats::rowGroupRowCount).sum();
        }
        leaving.addAll(removals.rewrittenFileIds());

        moveToRemoved(handle, leaving, version);
        insertRemovedRowGroups(handle, rowGroups, version);
        long bytesLeaving = leaving.stream().mapToLong(fileId -> files.get(fileId).sizeBytes()).sum();
        TableRows.removeFromCounts(handle, table.tableId(), rowsLeaving + rewrittenRows, leaving.size(), bytesLeaving);
        return new RemovalCounts(removals.removedFileIds().size() + emptied, removals.rewrittenFileIds().size(), rowGroupsRemoved, rowsLeaving + rewrittenRows - survivingRows);
    }

    /**
     * The file was in the table at the version read, and neither it nor any of its row groups
     * was removed since.
     */
    private static void checkUnchanged(Handle handle, TableEntry table, long readVersion, String fileId, Optional<LiveFile> file, Map<Integer, Long> removedRowGroups)
    {
        if (file.isEmpty()) {
            Optional<Long> removedAt = removedVersion(handle, table.tableId(), fileId);
            if (removedAt.isPresent() && removedAt.get() > readVersion) {
                throw aborted("File %s of table %s was removed by a commit at version %s, after version %s that the statement read; nothing was committed",
                        fileId, table.name(), removedAt.get(), readVersion);
            }
            throw invalidArgument("File %s is not a file of version %s of table %s", fileId, readVersion, table.name());
        }
        if (file.get().committedVersion() > readVersion) {
            throw invalidArgument("File %s was committed to table %s at version %s, after version %s that the statement read",
                    fileId, table.name(), file.get().committedVersion(), readVersion);
        }
        removedRowGroups.forEach((rowGroup, removedAt) -> {
            if (removedAt > readVersion) {
                throw aborted("Row group %s of file %s of table %s was removed by a commit at version %s, after version %s that the statement read; nothing was committed",
                        rowGroup, fileId, table.name(), removedAt, readVersion);
            }
        });
    }

    private static void checkRowGroups(String fileId, CompactFileStats stats, List<Integer> rowGroups, Map<Integer, Long> removedBefore, long readVersion)
    {
        if (rowGroups.isEmpty()) {
            throw invalidArgument("The removal of row groups of file %s names none", fileId);
        }
        for (int rowGroup : rowGroups) {
            if (rowGroup < 0 || rowGroup >= stats.rowGroupCount()) {
                throw invalidArgument("File %s has %s row groups: there is no row group %s to remove", fileId, stats.rowGroupCount(), rowGroup);
            }
            Long removedAt = removedBefore.get(rowGroup);
            if (removedAt != null) {
                throw invalidArgument("Row group %s of file %s was removed at version %s, so version %s that the statement read had none of its rows",
                        rowGroup, fileId, removedAt, readVersion);
            }
        }
        if (rowGroups.stream().distinct().count() != rowGroups.size()) {
            throw invalidArgument("The removal of row groups of file %s names a row group twice: %s", fileId, rowGroups);
        }
    }

    /** The rows of the file's row groups not removed yet. */
    private static long remainingRows(LiveFile file, Map<String, CompactFileStats> stats, Map<String, Map<Integer, Long>> removedRowGroups)
    {
        long rows = file.rowCount();
        for (int rowGroup : removedRowGroups.getOrDefault(file.fileId(), Map.of()).keySet()) {
            rows -= stats.get(file.fileId()).rowGroupRowCount(rowGroup);
        }
        return rows;
    }

    /** The files among {@code fileIds} that are in the table now. */
    private static Map<String, LiveFile> liveFiles(Handle handle, TableEntry table, List<String> fileIds)
    {
        Map<String, LiveFile> files = new HashMap<>();
        for (List<String> batch : Lists.partition(fileIds, BATCH_SIZE)) {
            handle.createQuery("SELECT file_id, committed_version, size_bytes, row_count FROM files WHERE table_id = :table_id AND file_id IN (<file_ids>)")
                    .bind("table_id", table.tableId())
                    .bindList("file_ids", batch)
                    .map((row, _) -> new LiveFile(row.getString("file_id"), row.getLong("committed_version"), row.getLong("size_bytes"), row.getLong("row_count")))
                    .forEach(file -> files.put(file.fileId(), file));
        }
        return files;
    }

    private static Map<String, CompactFileStats> compactStats(Handle handle, List<String> fileIds)
    {
        Map<String, CompactFileStats> stats = new HashMap<>();
        for (List<String> batch : Lists.partition(fileIds, BATCH_SIZE)) {
            handle.createQuery("SELECT file_id, compact_stats FROM files WHERE file_id IN (<file_ids>)")
                    .bindList("file_ids", batch)
                    // the service stored these stats only after parsing them (CommitCatalog)
                    .map((row, _) -> Map.entry(row.getString("file_id"), CompactFileStats.wrap(row.getBytes("compact_stats"))))
                    .forEach(entry -> stats.put(entry.getKey(), entry.getValue()));
        }
        return stats;
    }

    /** The row groups removed from each file so far: row group to the version that removed it. */
    private static Map<String, Map<Integer, Long>> removedRowGroups(Handle handle, List<String> fileIds)
    {
        Map<String, Map<Integer, Long>> removed = new HashMap<>();
        for (List<String> batch : Lists.partition(fileIds, BATCH_SIZE)) {
            handle.createQuery("SELECT file_id, row_group, removed_version FROM removed_row_groups WHERE file_id IN (<file_ids>)")
                    .bindList("file_ids", batch)
                    .map((row, _) -> new RemovedRowGroup(row.getString("file_id"), row.getInt("row_group"), row.getLong("removed_version")))
                    .forEach(rowGroup -> removed.computeIfAbsent(rowGroup.fileId(), _ -> new HashMap<>()).put(rowGroup.rowGroup(), rowGroup.removedVersion()));
        }
        return removed;
    }

    private static Optional<Long> removedVersion(Handle handle, long tableId, String fileId)
    {
        return handle.createQuery("SELECT removed_version FROM removed_files WHERE table_id = :table_id AND file_id = :file_id")
                .bind("table_id", tableId)
                .bind("file_id", fileId)
                .mapTo(Long.class)
                .findOne();
    }

    /** The files and their replicas move aside, where listings of earlier versions still find them. */
    private static void moveToRemoved(Handle handle, List<String> fileIds, long version)
    {
        for (List<String> batch : Lists.partition(ImmutableList.copyOf(fileIds), BATCH_SIZE)) {
            handle.createUpdate(
                            """
                            INSERT INTO removed_files (file_id, table_id, committed_version, commit_ordinal, removed_version, size_bytes, row_count, crc32c, compact_stats, column_sketches)
                            SELECT file_id, table_id, committed_version, commit_ordinal, :version, size_bytes, row_count, crc32c, compact_stats, column_sketches FROM files WHERE file_id IN (<file_ids>)
                            """)
                    .bind("version", version)
                    .bindList("file_ids", batch)
                    .execute();
            // children first: the replicas reference their file
            for (String sql : List.of(
                    "INSERT INTO removed_file_replicas (file_id, node_id, ordinal, missing) SELECT file_id, node_id, ordinal, missing FROM file_replicas WHERE file_id IN (<file_ids>)",
                    "DELETE FROM file_replicas WHERE file_id IN (<file_ids>)",
                    "DELETE FROM files WHERE file_id IN (<file_ids>)")) {
                handle.createUpdate(sql).bindList("file_ids", batch).execute();
            }
        }
    }

    private static void insertRemovedRowGroups(Handle handle, Map<String, List<Integer>> rowGroups, long version)
    {
        if (rowGroups.isEmpty()) {
            return;
        }
        var batch = handle.prepareBatch("INSERT INTO removed_row_groups (file_id, row_group, removed_version) VALUES (:file_id, :row_group, :version)");
        rowGroups.forEach((fileId, groups) -> groups.forEach(rowGroup -> batch
                .bind("file_id", fileId)
                .bind("row_group", rowGroup)
                .bind("version", version)
                .add()));
        batch.execute();
    }

    private record LiveFile(String fileId, long committedVersion, long sizeBytes, long rowCount) {}

    private record RemovedRowGroup(String fileId, int rowGroup, long removedVersion) {}
}
