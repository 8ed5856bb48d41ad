package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.ByteString;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.outOfRange;

/**
 * Reads the files of a table version in commit order, one bounded page at a time.
 *
 * <p>Files are only ever added to a table, and a committed file never changes (only its replicas
 * do), so the files of version v are exactly those committed at v or before. A listing that
 * resumes after the position of the last file it read therefore sees version v whole and alone,
 * whatever commits land between its pages, while each page holds the catalog's lock only for
 * the time it takes to read that page. A version stays listable while the table version
 * retention keeps it ({@link TableVersionRetention}), through later commits and a DROP TABLE
 * alike; a version past it ends the listing with FAILED_PRECONDITION, a table dropped longer ago
 * with NOT_FOUND (its table id is never reused).
 */
final class TableFileListing
{
    // What a file costs in a page besides its stats and sketches: its id, sizes, checksum and
    // replica node ids, with protobuf's framing. An estimate: the byte bound is a soft one.
    private static final int FILE_OVERHEAD_BYTES = 128;

    private TableFileListing() {}

    /**
     * @return empty when the table does not exist (nor was dropped within the retention), or
     *         the current version of a dropped table is asked for
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE for a version the table has not reached;
     *         INVALID_ARGUMENT for a listing that continues after a position where no file of the version stands;
     *         FAILED_PRECONDITION for a version the retention no longer keeps
     */
    static Optional<TableFilesPage> read(Connection connection, TableFilesPageRequest request, TableVersionRetention retention, long now)
            throws SQLException
    {
        Optional<ListedTable> found = ListedTable.find(connection, request.tableId());
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
        retention.checkRetained(connection, table, version, now);
        if (continues) {
            requireFileAt(connection, table, version, request.after());
        }
        List<FileRow> rows = new ArrayList<>();
        boolean more = readFileRows(connection, table, request, version, rows);
        if (rows.isEmpty()) {
            return Optional.of(new TableFilesPage(request.tableId(), version, List.of(), Optional.empty()));
        }
        FilePosition last = rows.getLast().position();
        Map<String, List<String>> replicas = replicas(connection, table, request.after(), last);
        List<FileEntry> files = rows.stream()
                .map(row -> row.toFileEntry(replicas.getOrDefault(row.fileId(), List.of())))
                .collect(ImmutableList.toImmutableList());
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
    private static boolean readFileRows(Connection connection, ListedTable table, TableFilesPageRequest request, long version, List<FileRow> rows)
            throws SQLException
    {
        FilePosition after = request.after();
        PageFill page = new PageFill(table, request, rows);
        if (after.committedVersion() > 0 && after.committedVersion() <= version) {
            String restOfCommit = "f.committed_version = ? AND f.commit_ordinal > ?";
            if (page.add(connection, restOfCommit, after.committedVersion(), after.commitOrdinal())) {
                return true;
            }
        }
        return page.add(connection, "f.committed_version > ? AND f.committed_version <= ?", after.committedVersion(), version);
    }

    /** The files of one page as its queries return them, up to its bounds. */
    private static final class PageFill
    {
        private final ListedTable table;
        private final TableFilesPageRequest request;
        private final List<FileRow> rows;
        private long bytes;

        PageFill(ListedTable table, TableFilesPageRequest request, List<FileRow> rows)
        {
            this.table = table;
            this.request = request;
            this.rows = rows;
        }

        /**
         * Adds the files of the table in {@code range} (a condition with two parameters), in
         * commit order, until the page is full.
         *
         * @return whether the page is full with files of the range left over
         */
        boolean add(Connection connection, String range, long first, long second)
                throws SQLException
        {
            String sql = """
                    SELECT f.committed_version, f.commit_ordinal, f.file_id, f.size_bytes, f.row_count, f.crc32c, f.compact_stats, %s
                    FROM %s f
                    WHERE f.table_id = ? AND %s
                    ORDER BY f.table_id, f.committed_version, f.commit_ordinal
                    LIMIT ?
                    """.formatted(request.withColumnSketches() ? "f.column_sketches" : "CAST(NULL AS VARBINARY)", table.filesTable(), range);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setLong(1, request.tableId());
                statement.setLong(2, first);
                statement.setLong(3, second);
                // one more than the page has room for tells whether another page follows
                statement.setLong(4, (long) request.maxFiles() - rows.size() + 1);
                try (ResultSet resultSet = statement.executeQuery()) {
                    while (resultSet.next()) {
                        FileRow row = FileRow.read(resultSet);
                        bytes += row.estimatedBytes();
                        if (rows.size() == request.maxFiles() || (!rows.isEmpty() && bytes > request.maxBytes())) {
                            return true;
                        }
                        rows.add(row);
                    }
                }
            }
            return false;
        }
    }

    /**
     * Replicas of the files in (after, last], in the order readers should try them; missing
     * replicas are left out. Read per range of the files' index, as the files were.
     */
    private static Map<String, List<String>> replicas(Connection connection, ListedTable table, FilePosition after, FilePosition last)
            throws SQLException
    {
        Map<String, List<String>> replicas = new HashMap<>();
        if (after.committedVersion() == last.committedVersion()) {
            readReplicas(connection, table, "f.committed_version = ? AND f.commit_ordinal > ? AND f.commit_ordinal <= ?", replicas, after.committedVersion(), after.commitOrdinal(), last.commitOrdinal());
            return replicas;
        }
        readReplicas(connection, table, "f.committed_version = ? AND f.commit_ordinal > ?", replicas, after.committedVersion(), after.commitOrdinal());
        readReplicas(connection, table, "f.committed_version > ? AND f.committed_version < ?", replicas, after.committedVersion(), last.committedVersion());
        readReplicas(connection, table, "f.committed_version = ? AND f.commit_ordinal <= ?", replicas, last.committedVersion(), last.commitOrdinal());
        return replicas;
    }

    private static void readReplicas(Connection connection, ListedTable table, String range, Map<String, List<String>> replicas, long... parameters)
            throws SQLException
    {
        String sql = """
                SELECT r.file_id, r.node_id
                FROM %s f JOIN %s r ON r.file_id = f.file_id
                WHERE f.table_id = ? AND %s AND NOT r.missing
                ORDER BY r.file_id, r.ordinal
                """.formatted(table.filesTable(), table.replicasTable(), range);
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, table.tableId());
            for (int i = 0; i < parameters.length; i++) {
                statement.setLong(i + 2, parameters[i]);
            }
            try (ResultSet resultSet = statement.executeQuery()) {
                while (resultSet.next()) {
                    replicas.computeIfAbsent(resultSet.getString(1), _ -> new ArrayList<>()).add(resultSet.getString(2));
                }
            }
        }
    }

    /**
     * A listing continues after the last file of its previous page: a position naming no file of
     * the version (past the end of a commit, or of a later commit) would make it skip or repeat files.
     */
    private static void requireFileAt(Connection connection, ListedTable table, long version, FilePosition position)
            throws SQLException
    {
        String sql = "SELECT 1 FROM %s f WHERE f.table_id = ? AND f.committed_version = ? AND f.commit_ordinal = ? AND f.committed_version <= ?".formatted(table.filesTable());
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, table.tableId());
            statement.setLong(2, position.committedVersion());
            statement.setInt(3, position.commitOrdinal());
            statement.setLong(4, version);
            try (ResultSet resultSet = statement.executeQuery()) {
                if (!resultSet.next()) {
                    throw invalidArgument("Version %s of table with id %s has no file %s of commit %s to continue a listing after",
                            version, table.tableId(), position.commitOrdinal(), position.committedVersion());
                }
            }
        }
    }

    private record FileRow(FilePosition position, String fileId, long sizeBytes, long rowCount, int crc32c, byte[] compactStats, byte[] columnSketches)
    {
        static FileRow read(ResultSet row)
                throws SQLException
        {
            byte[] sketches = row.getBytes(8);
            return new FileRow(
                    new FilePosition(row.getLong(1), row.getInt(2)),
                    row.getString(3),
                    row.getLong(4),
                    row.getLong(5),
                    row.getInt(6),
                    row.getBytes(7),
                    sketches == null ? new byte[0] : sketches);
        }

        long estimatedBytes()
        {
            return FILE_OVERHEAD_BYTES + compactStats.length + columnSketches.length;
        }

        FileEntry toFileEntry(List<String> replicaNodeIds)
        {
            return new FileEntry(fileId, sizeBytes, rowCount, crc32c, ByteString.copyFrom(compactStats), replicaNodeIds, ByteString.copyFrom(columnSketches));
        }
    }
}
