package io.nsc.metadata.catalog;

import io.airlift.units.Duration;
import org.jdbi.v3.core.Handle;

import java.util.List;
import java.util.Optional;

import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.Durations.succinct;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Keeps table versions readable for the retention after they stop being current, so that a query
 * reads the version it planned to its end whatever commits or drops land meanwhile: a version a
 * later commit replaced, for the retention after that commit; a dropped table's last version (and
 * the ones before it, by the same rule), with its files and replicas, for the retention after the
 * drop. Until then no storage node may reclaim the dropped table's files; after it, they are
 * purged from the catalog and become orphans. Files a DELETE removed from a live table are kept
 * the same way, for the retention after the commit that removed them.
 *
 * <p>The rule needs, per version, only the time of the commit that replaced it: each commit
 * records its own time and trims its table's versions whose successor is older than the
 * retention, which answer "expired" just as a missing time does. A table may set its own
 * retention with the table property {@value #VERSION_RETENTION_PROPERTY}; a dropped table keeps
 * the one it had when it was dropped.
 */
public final class TableVersionRetention
{
    public static final Duration DEFAULT_RETENTION = new Duration(1, HOURS);
    /** The table property that keeps one table's versions longer or shorter than the service's retention. */
    public static final String VERSION_RETENTION_PROPERTY = "version_retention";

    private final Duration retention;
    private final long retentionMillis;

    public TableVersionRetention(Duration retention)
    {
        this.retention = requireNonNull(retention, "retention is null");
        this.retentionMillis = retention.toMillis();
    }

    /**
     * Records when the table reached {@code version}, by which operation and with which totals
     * (the table row's, so the caller updates it first), and forgets the versions the retention
     * no longer keeps: those whose successor was committed the retention ago or longer, or has no
     * time any more. A version's own time is kept as long as the version is readable, so that
     * the history shows it and a timestamp resolves to it.
     */
    void recordVersion(Handle handle, long tableId, long version, long now, TableOperation operation)
    {
        handle.createUpdate(
                        """
                        INSERT INTO table_versions (table_id, version, committed_millis, operation, row_count, file_count, size_bytes)
                        SELECT table_id, :version, :now, :operation, row_count, file_count, size_bytes FROM tables WHERE table_id = :table_id
                        """)
                .bind("table_id", tableId)
                .bind("version", version)
                .bind("now", now)
                .bind("operation", operation.sql())
                .execute();
        handle.createUpdate(
                        """
                        DELETE FROM table_versions WHERE table_id = :table_id AND version < :version AND NOT EXISTS (
                            SELECT 1 FROM table_versions successor
                            WHERE successor.table_id = table_versions.table_id AND successor.version = table_versions.version + 1 AND successor.committed_millis > :expired)
                        """)
                .bind("table_id", tableId)
                .bind("version", version)
                .bind("expired", now - retentionMillis(handle, tableId))
                .execute();
    }

    /** The retention of the live table: its version_retention property, else the service's. */
    long retentionMillis(Handle handle, long tableId)
    {
        return handle.createQuery("SELECT property_value FROM table_properties WHERE table_id = :table_id AND property_name = :name")
                .bind("table_id", tableId)
                .bind("name", VERSION_RETENTION_PROPERTY)
                .mapTo(String.class)
                .findOne()
                .map(value -> Duration.valueOf(value).toMillis())
                .orElse(retentionMillis);
    }

    /** The retention the table's versions are kept for, as the service's configuration or the table's property says. */
    Duration retention(long tableRetentionMillis)
    {
        return tableRetentionMillis == retentionMillis ? retention : new Duration(tableRetentionMillis, MILLISECONDS);
    }

    /**
     * @throws io.grpc.StatusRuntimeException FAILED_PRECONDITION when a later version replaced
     *         {@code version} the retention ago or longer; NOT_FOUND when the table was dropped that long ago
     */
    void checkRetained(Handle handle, ListedTable table, long version, long now)
    {
        if (version == table.lastVersion() && !table.dropped()) {
            // the current version of a live table: every listing of it, so no retention is read
            return;
        }
        long tableRetention = table.retentionMillis().orElseGet(() -> retentionMillis(handle, table.tableId()));
        if (table.droppedMillis().isPresent() && expired(table.droppedMillis().get(), now, tableRetention)) {
            throw notFound("Table with id %s was dropped at least %s ago (%s): its files are no longer kept",
                    table.tableId(), succinct(retention(tableRetention)), retentionSetting(tableRetention));
        }
        if (version == table.lastVersion()) {
            return;
        }
        if (!retained(handle, table.tableId(), version, now, tableRetention)) {
            throw failedPrecondition("Version %s of table with id %s is no longer retained: version %s replaced it at least %s ago (%s); rerun the query",
                    version, table.tableId(), version + 1, succinct(retention(tableRetention)), retentionSetting(tableRetention));
        }
    }

    /** Whether {@code version}, which a later one replaced, is still kept. */
    boolean retained(Handle handle, long tableId, long version, long now, long tableRetention)
    {
        Optional<Long> replacedMillis = committedMillis(handle, tableId, version + 1);
        return replacedMillis.isPresent() && !expired(replacedMillis.get(), now, tableRetention);
    }

    /** Where the retention in force comes from, for messages: the table's property or the service's configuration. */
    String retentionSetting(long tableRetention)
    {
        return tableRetention == retentionMillis ? "metadata.table-version-retention" : "the table's " + VERSION_RETENTION_PROPERTY;
    }

    /**
     * Drops the table in the caller's transaction: its last version stays readable for the
     * retention (see {@link #keepDropped}), and its rows, columns, properties and files leave the
     * live catalog. Tables dropped longer than the retention ago are purged first.
     */
    DroppedTable drop(Handle handle, TableEntry table, long now)
    {
        purgeExpiredDrops(handle, now);
        purgeExpiredRemovals(handle, now);
        int filesKept = keepDropped(handle, table, now, retentionMillis(handle, table.tableId()));
        // children first: they reference the rows deleted after them
        for (String sql : List.of(
                "DELETE FROM file_replicas WHERE file_id IN (SELECT file_id FROM files WHERE table_id = :table_id)",
                "DELETE FROM files WHERE table_id = :table_id",
                "DELETE FROM removed_file_replicas WHERE file_id IN (SELECT file_id FROM removed_files WHERE table_id = :table_id)",
                "DELETE FROM removed_files WHERE table_id = :table_id",
                "DELETE FROM table_properties WHERE table_id = :table_id",
                "DELETE FROM column_statistics WHERE table_id = :table_id",
                "DELETE FROM column_type_changes WHERE table_id = :table_id",
                "DELETE FROM columns WHERE table_id = :table_id",
                "DELETE FROM tables WHERE table_id = :table_id")) {
            handle.createUpdate(sql).bind("table_id", table.tableId()).execute();
        }
        return new DroppedTable(table.tableId(), filesKept);
    }

    /**
     * Moves the table's files and replicas aside before the table's rows are deleted: they keep
     * its versions readable for the retention, and no longer count as the files of any live table
     * (repair, placement and commits see none of them). Files a DELETE removed within the
     * retention go along with the version that removed them, so that the versions before it still
     * list them and the later ones do not.
     *
     * @return the number of files kept (those a DELETE had removed are not counted: they were no longer the table's)
     */
    private static int keepDropped(Handle handle, TableEntry table, long now, long tableRetention)
    {
        handle.createUpdate("INSERT INTO dropped_tables (table_id, schema_name, table_name, version, dropped_millis, version_retention_millis) VALUES (:table_id, :schema_name, :table_name, :version, :now, :retention)")
                .bind("retention", tableRetention)
                .bind("table_id", table.tableId())
                .bind("schema_name", table.name().schemaName())
                .bind("table_name", table.name().tableName())
                .bind("version", table.version())
                .bind("now", now)
                .execute();
        int files = update(handle,
                """
                INSERT INTO dropped_files (file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches)
                SELECT file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches FROM files WHERE table_id = :value
                """,
                table.tableId());
        update(handle,
                """
                INSERT INTO dropped_file_replicas (file_id, node_id, ordinal, missing)
                SELECT r.file_id, r.node_id, r.ordinal, r.missing FROM file_replicas r JOIN files f ON f.file_id = r.file_id WHERE f.table_id = :value
                """,
                table.tableId());
        update(handle,
                """
                INSERT INTO dropped_files (file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches, removed_version)
                SELECT file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches, removed_version FROM removed_files WHERE table_id = :value
                """,
                table.tableId());
        update(handle,
                """
                INSERT INTO dropped_file_replicas (file_id, node_id, ordinal, missing)
                SELECT r.file_id, r.node_id, r.ordinal, r.missing FROM removed_file_replicas r JOIN removed_files f ON f.file_id = r.file_id WHERE f.table_id = :value
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
    int purgeExpiredDrops(Handle handle, long now)
    {
        // the same bound as expired(): a drop exactly the retention ago is purged; a table
        // dropped before the per-table retention was recorded has the service's
        String expiredDrops = "SELECT table_id FROM dropped_tables WHERE dropped_millis + COALESCE(version_retention_millis, %s) <= :value".formatted(retentionMillis);
        // children first: they reference the rows deleted after them
        update(handle, "DELETE FROM dropped_file_replicas WHERE file_id IN (SELECT file_id FROM dropped_files WHERE table_id IN (%s))".formatted(expiredDrops), now);
        update(handle, "DELETE FROM removed_row_groups WHERE file_id IN (SELECT file_id FROM dropped_files WHERE table_id IN (%s))".formatted(expiredDrops), now);
        int files = update(handle, "DELETE FROM dropped_files WHERE table_id IN (%s)".formatted(expiredDrops), now);
        update(handle, "DELETE FROM table_versions WHERE table_id IN (%s)".formatted(expiredDrops), now);
        update(handle, "DELETE FROM dropped_tables WHERE table_id IN (%s)".formatted(expiredDrops), now);
        return files;
    }

    /**
     * Forgets the files DELETEs removed whose removal the retention no longer keeps: the version
     * before the removing commit is expired (the commit is the retention old, or its time was
     * already trimmed). They become orphans, which their storage nodes reclaim.
     *
     * @return the number of files released
     */
    int purgeExpiredRemovals(Handle handle, long now)
    {
        // each table by its own retention: few tables hold removed files at any time
        List<Long> tableIds = handle.createQuery("SELECT DISTINCT table_id FROM removed_files ORDER BY table_id")
                .mapTo(Long.class)
                .list();
        int files = 0;
        for (long tableId : tableIds) {
            files += purgeExpiredRemovals(handle, tableId, now - retentionMillis(handle, tableId));
        }
        return files;
    }

    private static int purgeExpiredRemovals(Handle handle, long tableId, long keptSince)
    {
        // the same bound as expired(): a removal exactly the retention ago is purged
        String expiredRemovals = """
                SELECT f.file_id FROM removed_files f
                WHERE f.table_id = :table_id AND NOT EXISTS (SELECT 1 FROM table_versions v WHERE v.table_id = f.table_id AND v.version = f.removed_version AND v.committed_millis > :value)
                """;
        // children first: they reference the rows deleted after them
        deleteFileRows(handle, "removed_file_replicas", expiredRemovals, tableId, keptSince);
        deleteFileRows(handle, "removed_row_groups", expiredRemovals, tableId, keptSince);
        return deleteFileRows(handle, "removed_files", expiredRemovals, tableId, keptSince);
    }

    private static int deleteFileRows(Handle handle, String table, String fileIds, long tableId, long keptSince)
    {
        return handle.createUpdate("DELETE FROM %s WHERE file_id IN (%s)".formatted(table, fileIds))
                .bind("table_id", tableId)
                .bind("value", keptSince)
                .execute();
    }

    /**
     * Whether the file is one a query may still read though no live table holds it: a dropped
     * table's, or one a DELETE removed, while the retention keeps them (or they are not purged yet).
     */
    static boolean isKeptFile(Handle handle, String fileId)
    {
        return handle.createQuery("SELECT 1 FROM dropped_files WHERE file_id = :file_id UNION ALL SELECT 1 FROM removed_files WHERE file_id = :file_id")
                .bind("file_id", fileId)
                .mapTo(Integer.class)
                .findFirst()
                .isPresent();
    }

    /**
     * A version replaced (or a table dropped) exactly the retention ago is expired: so a retention
     * of 0 keeps nothing but current versions, even within the millisecond of the replacing commit.
     */
    private static boolean expired(long endedMillis, long now, long tableRetention)
    {
        return now - endedMillis >= tableRetention;
    }

    static Optional<Long> committedMillis(Handle handle, long tableId, long version)
    {
        return handle.createQuery("SELECT committed_millis FROM table_versions WHERE table_id = :table_id AND version = :version")
                .bind("table_id", tableId)
                .bind("version", version)
                .mapTo(Long.class)
                .findOne();
    }

    /** Runs an update whose one parameter is {@code :value}; returns the number of rows it changed. */
    private static int update(Handle handle, String sql, long value)
    {
        return handle.createUpdate(sql).bind("value", value).execute();
    }
}
