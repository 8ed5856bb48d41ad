package io.nsc.metadata.catalog;

import io.airlift.units.Duration;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.CatalogStore.succinct;
import static java.util.Objects.requireNonNull;

/**
 * Keeps table versions readable for the retention after they stop being current, so that a query
 * reads the version it planned to its end whatever commits or drops land meanwhile: a version a
 * later commit replaced, for the retention after that commit; a dropped table's last version (and
 * the ones before it, by the same rule), with its files and replicas, for the retention after the
 * drop. Until then no storage node may reclaim the dropped table's files; after it, they are
 * purged from the catalog and become orphans.
 *
 * <p>The rule needs, per version, only the time of the commit that replaced it: each commit
 * records its own time and trims its table's times older than the retention, which answer
 * "expired" just as a missing time does.
 */
final class TableVersionRetention
{
    private final Duration retention;
    private final long retentionMillis;

    TableVersionRetention(Duration retention)
    {
        this.retention = requireNonNull(retention, "retention is null");
        this.retentionMillis = retention.toMillis();
    }

    /** Records when the table reached {@code version}, and forgets the times that no longer keep a version. */
    void recordVersion(Connection connection, long tableId, long version, long now)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO table_versions (table_id, version, committed_millis) VALUES (?, ?, ?)")) {
            statement.setLong(1, tableId);
            statement.setLong(2, version);
            statement.setLong(3, now);
            statement.executeUpdate();
        }
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM table_versions WHERE table_id = ? AND version < ? AND committed_millis <= ?")) {
            statement.setLong(1, tableId);
            statement.setLong(2, version);
            statement.setLong(3, now - retentionMillis);
            statement.executeUpdate();
        }
    }

    /**
     * @throws io.grpc.StatusRuntimeException FAILED_PRECONDITION when a later version replaced
     *         {@code version} the retention ago or longer; NOT_FOUND when the table was dropped that long ago
     */
    void checkRetained(Connection connection, ListedTable table, long version, long now)
            throws SQLException
    {
        if (table.droppedMillis().isPresent() && expired(table.droppedMillis().get(), now)) {
            throw notFound("Table with id %s was dropped at least %s ago (metadata.table-version-retention): its files are no longer kept",
                    table.tableId(), succinct(retention));
        }
        if (version == table.lastVersion()) {
            return;
        }
        Optional<Long> replacedMillis = committedMillis(connection, table.tableId(), version + 1);
        if (replacedMillis.isEmpty() || expired(replacedMillis.get(), now)) {
            throw failedPrecondition("Version %s of table with id %s is no longer retained: version %s replaced it at least %s ago (metadata.table-version-retention); rerun the query",
                    version, table.tableId(), version + 1, succinct(retention));
        }
    }

    /**
     * Moves the table's files and replicas aside before the table's rows are deleted: they keep
     * its versions readable for the retention, and no longer count as the files of any live table
     * (repair, placement and commits see none of them).
     *
     * @return the number of files kept
     */
    static int keepDropped(Connection connection, TableEntry table, long now)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO dropped_tables (table_id, schema_name, table_name, version, dropped_millis) VALUES (?, ?, ?, ?, ?)")) {
            statement.setLong(1, table.tableId());
            statement.setString(2, table.name().schemaName());
            statement.setString(3, table.name().tableName());
            statement.setLong(4, table.version());
            statement.setLong(5, now);
            statement.executeUpdate();
        }
        int files = update(connection,
                """
                INSERT INTO dropped_files (file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches)
                SELECT file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches FROM files WHERE table_id = ?
                """,
                table.tableId());
        update(connection,
                """
                INSERT INTO dropped_file_replicas (file_id, node_id, ordinal, missing)
                SELECT r.file_id, r.node_id, r.ordinal, r.missing FROM file_replicas r JOIN files f ON f.file_id = r.file_id WHERE f.table_id = ?
                """,
                table.tableId());
        return files;
    }

    /**
     * Forgets the tables dropped longer than the retention ago, with their files, replicas and
     * version times: their files become orphans, which their storage nodes reclaim.
     *
     * @return the number of files released
     */
    int purgeExpiredDrops(Connection connection, long now)
            throws SQLException
    {
        // the same bound as expired(): a drop exactly the retention ago is purged
        long droppedBy = now - retentionMillis;
        // children first: they reference the rows deleted after them
        update(connection, "DELETE FROM dropped_file_replicas WHERE file_id IN (SELECT f.file_id FROM dropped_files f JOIN dropped_tables t ON t.table_id = f.table_id WHERE t.dropped_millis <= ?)", droppedBy);
        int files = update(connection, "DELETE FROM dropped_files WHERE table_id IN (SELECT table_id FROM dropped_tables WHERE dropped_millis <= ?)", droppedBy);
        update(connection, "DELETE FROM table_versions WHERE table_id IN (SELECT table_id FROM dropped_tables WHERE dropped_millis <= ?)", droppedBy);
        update(connection, "DELETE FROM dropped_tables WHERE dropped_millis <= ?", droppedBy);
        return files;
    }

    /** Whether the file belongs to a dropped table whose versions are still kept (or not yet purged). */
    static boolean isKeptDroppedFile(Connection connection, String fileId)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM dropped_files WHERE file_id = ?")) {
            statement.setString(1, fileId);
            try (ResultSet resultSet = statement.executeQuery()) {
                return resultSet.next();
            }
        }
    }

    /**
     * A version replaced (or a table dropped) exactly the retention ago is expired: so a retention
     * of 0 keeps nothing but current versions, even within the millisecond of the replacing commit.
     */
    private boolean expired(long endedMillis, long now)
    {
        return now - endedMillis >= retentionMillis;
    }

    private static Optional<Long> committedMillis(Connection connection, long tableId, long version)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("SELECT committed_millis FROM table_versions WHERE table_id = ? AND version = ?")) {
            statement.setLong(1, tableId);
            statement.setLong(2, version);
            try (ResultSet resultSet = statement.executeQuery()) {
                return resultSet.next() ? Optional.of(resultSet.getLong(1)) : Optional.empty();
            }
        }
    }

    private static int update(Connection connection, String sql, long parameter)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, parameter);
            return statement.executeUpdate();
        }
    }
}
