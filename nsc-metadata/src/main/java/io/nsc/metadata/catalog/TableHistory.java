package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import org.jdbi.v3.core.Handle;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.MetadataErrors.outOfRange;
import static io.nsc.metadata.catalog.Durations.succinct;
import static io.nsc.metadata.catalog.TableRows.findTable;
import static java.util.Objects.requireNonNull;

/**
 * The versions of live tables that the retention keeps ({@link TableVersionRetention}): time
 * travel resolves a version number or a point in time to one of them, with the columns it had,
 * and the history lists them. Each public method is one read transaction.
 */
public final class TableHistory
{
    private final CatalogDatabase database;
    private final Clock clock;
    private final TableVersionRetention retention;

    public TableHistory(CatalogDatabase database, Clock clock, TableVersionRetention retention)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.retention = requireNonNull(retention, "retention is null");
    }

    /**
     * The table as it was at {@code version}: its columns then, and its totals then when the
     * catalog recorded them (zero otherwise).
     *
     * @throws io.grpc.StatusRuntimeException NOT_FOUND for a missing table; INVALID_ARGUMENT for a
     *         version below 1; OUT_OF_RANGE for a version the table has not reached;
     *         FAILED_PRECONDITION for a version the retention no longer keeps
     */
    public TableEntry tableAtVersion(SchemaTableName name, long version)
    {
        requireNonNull(name, "name is null");
        if (version < 1) {
            throw invalidArgument("Table versions start at 1, got %s", version);
        }
        return database.inTransaction(handle -> {
            TableEntry table = liveTable(handle, name);
            if (version > table.version()) {
                throw outOfRange("Table %s is at version %s: version %s does not exist", name, table.version(), version);
            }
            return atVersion(handle, table, version, clock.millis());
        });
    }

    /**
     * The table as it was at {@code millis}: the version current then.
     *
     * @throws io.grpc.StatusRuntimeException NOT_FOUND for a missing table; INVALID_ARGUMENT for a
     *         time in the future; OUT_OF_RANGE for a time before the table's first version;
     *         FAILED_PRECONDITION when the version current then is no longer kept
     */
    public TableEntry tableAsOf(SchemaTableName name, long millis)
    {
        requireNonNull(name, "name is null");
        return database.inTransaction(handle -> {
            long now = clock.millis();
            if (millis > now) {
                throw invalidArgument("Cannot read table %s as of %s: that is in the future (now is %s)", name, Instant.ofEpochMilli(millis), Instant.ofEpochMilli(now));
            }
            TableEntry table = liveTable(handle, name);
            Optional<Long> committedBy = version(handle, "SELECT max(version) FROM table_versions WHERE table_id = :table_id AND committed_millis <= :millis", table.tableId(), millis);
            if (committedBy.isPresent()) {
                return atVersion(handle, table, committedBy.get(), now);
            }
            Optional<Long> first = version(handle, "SELECT min(version) FROM table_versions WHERE table_id = :table_id AND committed_millis > :millis", table.tableId(), millis);
            if (first.isEmpty() || first.get() == 1) {
                throw outOfRange("Table %s has no version as of %s: its first version was committed later", name, Instant.ofEpochMilli(millis));
            }
            // the version current then is gone: its own time was forgotten with it
            throw expired(table, first.get() - 1, retention.retentionMillis(handle, table.tableId()));
        });
    }

    /** The table's versions the retention keeps, oldest first, the current one last. */
    public List<TableVersion> listVersions(SchemaTableName name)
    {
        requireNonNull(name, "name is null");
        return database.inTransaction(handle -> {
            TableEntry table = liveTable(handle, name);
            long tableRetention = retention.retentionMillis(handle, table.tableId());
            List<VersionRow> rows = handle.createQuery("SELECT version, committed_millis, operation, row_count, file_count, size_bytes FROM table_versions WHERE table_id = :table_id AND version <= :version ORDER BY version")
                    .bind("table_id", table.tableId())
                    .bind("version", table.version())
                    .map((row, _) -> VersionRow.of(row))
                    .list();
            long now = clock.millis();
            ImmutableList.Builder<TableVersion> versions = ImmutableList.builder();
            for (int i = 0; i < rows.size(); i++) {
                VersionRow row = rows.get(i);
                boolean current = row.version() == table.version();
                // a version is kept for the retention after its successor's commit
                OptionalLong expires = OptionalLong.empty();
                if (!current) {
                    Optional<VersionRow> successor = i + 1 < rows.size() && rows.get(i + 1).version() == row.version() + 1 ? Optional.of(rows.get(i + 1)) : Optional.empty();
                    if (successor.isEmpty() || successor.get().committedMillis() + tableRetention <= now) {
                        continue;
                    }
                    expires = OptionalLong.of(successor.get().committedMillis() + tableRetention);
                }
                versions.add(new TableVersion(row.version(), row.committedMillis(), row.operation(), row.rowCount(), row.fileCount(), row.sizeBytes(), current, expires));
            }
            return versions.build();
        });
    }

    private static TableEntry liveTable(Handle handle, SchemaTableName name)
    {
        return findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
    }

    private TableEntry atVersion(Handle handle, TableEntry table, long version, long now)
    {
        if (version == table.version()) {
            return table;
        }
        long tableRetention = retention.retentionMillis(handle, table.tableId());
        if (!retention.retained(handle, table.tableId(), version, now, tableRetention)) {
            throw expired(table, version, tableRetention);
        }
        VersionRow row = handle.createQuery("SELECT version, committed_millis, operation, row_count, file_count, size_bytes FROM table_versions WHERE table_id = :table_id AND version = :version")
                .bind("table_id", table.tableId())
                .bind("version", version)
                .map((view, _) -> VersionRow.of(view))
                .findOne()
                .orElse(new VersionRow(version, 0, Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty()));
        return new TableEntry(
                table.tableId(),
                table.name(),
                version,
                table.createdMillis(),
                TableRows.columnsAt(handle, table.tableId(), version),
                table.properties(),
                row.rowCount().orElse(0),
                row.fileCount().orElse(0),
                row.sizeBytes().orElse(0),
                table.comment());
    }

    private RuntimeException expired(TableEntry table, long version, long tableRetention)
    {
        return failedPrecondition("Version %s of table %s is no longer kept: versions are kept for %s after a later one replaced them (%s)",
                version, table.name(), succinct(retention.retention(tableRetention)), retention.retentionSetting(tableRetention));
    }

    private static Optional<Long> version(Handle handle, String sql, long tableId, long millis)
    {
        return handle.createQuery(sql)
                .bind("table_id", tableId)
                .bind("millis", millis)
                .mapTo(Long.class)
                .findOne();
    }

    private record VersionRow(long version, long committedMillis, Optional<String> operation, OptionalLong rowCount, OptionalLong fileCount, OptionalLong sizeBytes)
    {
        static VersionRow of(ResultSet row)
                throws SQLException
        {
            return new VersionRow(
                    row.getLong("version"),
                    row.getLong("committed_millis"),
                    Optional.ofNullable(row.getString("operation")),
                    optional(row.getObject("row_count", Long.class)),
                    optional(row.getObject("file_count", Long.class)),
                    optional(row.getObject("size_bytes", Long.class)));
        }

        private static OptionalLong optional(Long value)
        {
            return value == null ? OptionalLong.empty() : OptionalLong.of(value);
        }
    }
}
