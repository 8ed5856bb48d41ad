package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.outOfRange;

/**
 * Reads the files of a table version in commit order, one bounded page at a time.
 *
 * <p>A committed file never changes (only its replicas do), and a file a DELETE removes is kept
 * aside with the version that removed it (as are the row groups it removes from a file that
 * stays), so the files of version v are exactly those committed at v or before and not removed by
 * v, wherever they are kept. A listing that resumes after the position of the last file it read
 * therefore sees version v whole and alone, whatever commits land between its pages (on any
 * metadata service), while each page is one short transaction. A version stays listable while the table version
 * retention keeps it ({@link TableVersionRetention}), through later commits and a DROP TABLE
 * alike; a version past it ends the listing with FAILED_PRECONDITION, a table dropped longer ago
 * with NOT_FOUND (its table id is never reused).
 */
final class TableFileListing
{
    // What a file costs in a page besides its stats and sketches: its id, sizes, checksum and
    // replica node ids, with protobuf's framing. An estimate: the byte bound is a soft one.
    private static final int FILE_OVERHEAD_BYTES = 128;

    private static final Comparator<FilePosition> FILE_ORDER = Comparator.comparingLong(FilePosition::committedVersion).thenComparingInt(FilePosition::commitOrdinal);

    private TableFileListing() {}

    /**
     * @return empty when the table does not exist (nor was dropped within the retention), or
     *         the current version of a dropped table is asked for
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE for a version the table has not reached;
     *         INVALID_ARGUMENT for a listing that continues after a position where no file of the version stands;
     *         FAILED_PRECONDITION for a version the retention no longer keeps
     */
    static Optional<TableFilesPage> read(Handle handle, TableFilesPageRequest request, TableVersionRetention retention, long now)
    {
        Optional<ListedTable> found = ListedTable.find(handle, request.tableId());
        if (found.isEmpty() || (found.get().dropped() && request.version() == 0)) {
            return Optional.empty();
        }
        ListedTable table = found.get();
        long lastVersion = table.lastVersion();
        long version = request.version() == 0 ? lastVersion : request.version();
        boolean continues = !request.after().equals(FilePosition.START);
        if (version > lastVersion) {
            if (continues) {
                // a listing only ever began at a version the table had reached: this one never began
                throw invalidArgument("Table with id %s is at version %s: no listing of version %s was ever begun to continue", request.tableId(), lastVersion, version);
            }
            throw outOfRange("Table with id %s is at version %s: version %s does not exist", request.tableId(), lastVersion, version);
        }
        retention.checkRetained(handle, table, version, now);
        if (continues) {
            requireFileAt(handle, table, version, request.after());
        }
        List<FileRow> rows = new ArrayList<>();
        boolean more = readFileRows(handle, table, request, version, rows);
        if (rows.isEmpty()) {
            return Optional.of(new TableFilesPage(request.tableId(), version, List.of(), Optional.empty()));
        }
        FilePosition last = rows.getLast().position();
        Map<String, List<String>> replicas = replicas(handle, table, request.after(), last);
        Map<String, List<Integer>> removedRowGroups = removedRowGroups(handle, rows, version);
        List<FileEntry> files = rows.stream()
                .map(row -> row.toFileEntry(replicas.getOrDefault(row.fileId(), List.of()), removedRowGroups.getOrDefault(row.fileId(), List.of())))
                .collect(toImmutableList());
        return Optional.of(new TableFilesPage(request.tableId(), version, files, more ? Optional.of(last) : Optional.empty()));
    }

    /**
     * Adds the page's files to {@code rows}: the rest of the commit the last page ended in, then
     * the commits after it. Each query reads one range of the files' index (table, commit,
     * ordinal) in its order, so it stops after the rows it returns: a page costs the same at the
     * end of a large table as at its start.
     *
     * @return whether files of the version remain after them
     */
    private static boolean readFileRows(Handle handle, ListedTable table, TableFilesPageRequest request, long version, List<FileRow> rows)
    {
        FilePosition after = request.after();
        PageFill page = new PageFill(table, request, version, rows);
        if (after.committedVersion() > 0 && after.committedVersion() <= version) {
            String restOfCommit = "f.committed_version = :first AND f.commit_ordinal > :second";
            if (page.add(handle, restOfCommit, after.committedVersion(), after.commitOrdinal())) {
                return true;
            }
        }
        return page.add(handle, "f.committed_version > :first AND f.committed_version <= :second", after.committedVersion(), version);
    }

    /** The files of one page as its queries return them, up to its bounds. */
    private static final class PageFill
    {
        private final ListedTable table;
        private final TableFilesPageRequest request;
        private final long version;
        private final List<FileRow> rows;
        private long bytes;

        PageFill(ListedTable table, TableFilesPageRequest request, long version, List<FileRow> rows)
        {
            this.table = table;
            this.request = request;
            this.version = version;
            this.rows = rows;
        }

        /**
         * Adds the files of the version in {@code range} (a condition on {@code :first} and {@code :second}), in
         * commit order, until the page is full.
         *
         * @return whether the page is full with files of the range left over
         */
        boolean add(Handle handle, String range, long first, long second)
        {
            // one more than the page has room for tells whether another page follows
            long limit = (long) request.maxFiles() - rows.size() + 1;
            List<FileRow> found = new ArrayList<>();
            for (ListedTable.FileSource source : table.fileSources()) {
                found.addAll(read(handle, source, range, first, second, limit));
            }
            // each source answered its first rows in commit order: together, theirs come first
            found.sort(Comparator.comparing(FileRow::position, FILE_ORDER));
            for (FileRow row : found) {
                bytes += row.estimatedBytes();
                if (rows.size() == request.maxFiles() || (!rows.isEmpty() && bytes > request.maxBytes())) {
                    return true;
                }
                rows.add(row);
            }
            return false;
        }

        private List<FileRow> read(Handle handle, ListedTable.FileSource source, String range, long first, long second, long limit)
        {
            String sql = """
                    SELECT f.committed_version, f.commit_ordinal, f.file_id, f.size_bytes, f.row_count, f.crc32c, f.compact_stats, %s AS column_sketches
                    FROM %s f
                    WHERE f.table_id = :table_id AND %s AND %s%s
                    ORDER BY f.table_id, f.committed_version, f.commit_ordinal
                    LIMIT :limit
                    """.formatted(
                    request.withColumnSketches() ? "f.column_sketches" : "NULL",
                    source.filesTable(),
                    range,
                    source.inVersion(),
                    request.fileIds().isEmpty() ? "" : " AND f.file_id IN (<file_ids>)");
            Query query = handle.createQuery(sql)
                    .bind("table_id", request.tableId())
                    .bind("first", first)
                    .bind("second", second)
                    .bind("version", version)
                    .bind("limit", limit);
            if (!request.fileIds().isEmpty()) {
                query.bindList("file_ids", List.copyOf(request.fileIds()));
            }
            return query.map(FileRow.MAPPER).list();
        }
    }

    /** The row groups DELETEs removed by {@code version} from the page's files, ascending per file. */
    private static Map<String, List<Integer>> removedRowGroups(Handle handle, List<FileRow> rows, long version)
    {
        Map<String, List<Integer>> removed = new HashMap<>();
        handle.createQuery("SELECT file_id, row_group FROM removed_row_groups WHERE file_id IN (<file_ids>) AND removed_version <= :version ORDER BY file_id, row_group")
                .bindList("file_ids", rows.stream().map(FileRow::fileId).toList())
                .bind("version", version)
                .map((row, _) -> Map.entry(row.getString("file_id"), row.getInt("row_group")))
                .forEach(rowGroup -> removed.computeIfAbsent(rowGroup.getKey(), _ -> new ArrayList<>()).add(rowGroup.getValue()));
        return removed;
    }

    /**
     * Replicas of the files in (after, last], in the order readers should try them; missing
     * replicas are left out. Read per range of the files' index, as the files were. (A source's
     * files of the range that the version does not hold add replicas no file of the page asks for.)
     */
    private static Map<String, List<String>> replicas(Handle handle, ListedTable table, FilePosition after, FilePosition last)
    {
        Map<String, List<String>> replicas = new HashMap<>();
        for (ListedTable.FileSource source : table.fileSources()) {
            if (after.committedVersion() == last.committedVersion()) {
                readReplicas(handle, table, source, "f.committed_version = :p0 AND f.commit_ordinal > :p1 AND f.commit_ordinal <= :p2", replicas, after.committedVersion(), after.commitOrdinal(), last.commitOrdinal());
                continue;
            }
            readReplicas(handle, table, source, "f.committed_version = :p0 AND f.commit_ordinal > :p1", replicas, after.committedVersion(), after.commitOrdinal());
            readReplicas(handle, table, source, "f.committed_version > :p0 AND f.committed_version < :p1", replicas, after.committedVersion(), last.committedVersion());
            readReplicas(handle, table, source, "f.committed_version = :p0 AND f.commit_ordinal <= :p1", replicas, last.committedVersion(), last.commitOrdinal());
        }
        return replicas;
    }

    /** Adds the replicas of the source's files in {@code range}, a condition on the parameters {@code :p0}, {@code :p1}, ... */
    private static void readReplicas(Handle handle, ListedTable table, ListedTable.FileSource source, String range, Map<String, List<String>> replicas, long... parameters)
    {
        String sql = """
                SELECT r.file_id, r.node_id
                FROM %s f JOIN %s r ON r.file_id = f.file_id
                WHERE f.table_id = :table_id AND %s AND NOT r.missing
                ORDER BY r.file_id, r.ordinal
                """.formatted(source.filesTable(), source.replicasTable(), range);
        Query query = handle.createQuery(sql).bind("table_id", table.tableId());
        for (int i = 0; i < parameters.length; i++) {
            query.bind("p" + i, parameters[i]);
        }
        query.map((row, _) -> Map.entry(row.getString("file_id"), row.getString("node_id")))
                .forEach(replica -> replicas.computeIfAbsent(replica.getKey(), _ -> new ArrayList<>()).add(replica.getValue()));
    }

    /**
     * A listing continues after the last file of its previous page: a position naming no file of
     * the version (past the end of a commit, or of a later commit) would make it skip or repeat files.
     */
    private static void requireFileAt(Handle handle, ListedTable table, long version, FilePosition position)
    {
        boolean found = table.fileSources().stream().anyMatch(source -> handle.createQuery(
                        "SELECT 1 FROM %s f WHERE f.table_id = :table_id AND f.committed_version = :committed_version AND f.commit_ordinal = :commit_ordinal AND f.committed_version <= :version AND %s"
                                .formatted(source.filesTable(), source.inVersion()))
                .bind("table_id", table.tableId())
                .bind("committed_version", position.committedVersion())
                .bind("commit_ordinal", position.commitOrdinal())
                .bind("version", version)
                .mapTo(Integer.class)
                .findOne()
                .isPresent());
        if (!found) {
            throw invalidArgument("Version %s of table with id %s has no file %s of commit %s to continue a listing after",
                    version, table.tableId(), position.commitOrdinal(), position.committedVersion());
        }
    }

    private record FileRow(FilePosition position, String fileId, long sizeBytes, long rowCount, int crc32c, byte[] compactStats, byte[] columnSketches)
    {
        static final RowMapper<FileRow> MAPPER = (row, _) -> read(row);

        private static FileRow read(ResultSet row)
                throws SQLException
        {
            byte[] sketches = row.getBytes("column_sketches");
            return new FileRow(
                    new FilePosition(row.getLong("committed_version"), row.getInt("commit_ordinal")),
                    row.getString("file_id"),
                    row.getLong("size_bytes"),
                    row.getLong("row_count"),
                    row.getInt("crc32c"),
                    row.getBytes("compact_stats"),
                    sketches == null ? new byte[0] : sketches);
        }

        long estimatedBytes()
        {
            return FILE_OVERHEAD_BYTES + compactStats.length + columnSketches.length;
        }

        FileEntry toFileEntry(List<String> replicaNodeIds, List<Integer> removedRowGroups)
        {
            return new FileEntry(fileId, sizeBytes, rowCount, crc32c, ByteString.copyFrom(compactStats), replicaNodeIds, ByteString.copyFrom(columnSketches), removedRowGroups);
        }
    }
}
