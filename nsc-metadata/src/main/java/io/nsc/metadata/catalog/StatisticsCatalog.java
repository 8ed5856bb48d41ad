package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.MetadataErrors.outOfRange;
import static io.nsc.metadata.catalog.TableRows.findTable;
import static java.util.Objects.requireNonNull;

/**
 * Column statistics ANALYZE computed, kept per column slot with the version they describe. They
 * belong to no table version (storing them moves the table to none) and a slot keeps only its
 * latest analysis: one computed over an older version than the slot holds changes nothing, so
 * two ANALYZEs racing leave the newer one's. A dropped table's go with it
 * ({@link TableVersionRetention#drop}), a dropped column's with the column
 * ({@link TableCatalog#alterColumn}). Each public method is one transaction.
 */
public final class StatisticsCatalog
{
    private final CatalogDatabase database;
    private final Clock clock;

    public StatisticsCatalog(CatalogDatabase database, Clock clock)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** One column's counts, as ANALYZE hands them in. */
    public record ColumnCounts(int ordinal, long nonNullCount, long distinctCount) {}

    /**
     * Stores the statistics of {@code columns} computed over {@code version} of the table.
     *
     * @param expectedTableId when present, only the table with this id
     * @return the number of columns stored (a column whose slot holds an analysis of a later version keeps it)
     */
    public int setColumnStatistics(SchemaTableName name, OptionalLong expectedTableId, long version, long rowCount, List<ColumnCounts> columns)
    {
        requireNonNull(name, "name is null");
        requireNonNull(expectedTableId, "expectedTableId is null");
        List<ColumnCounts> counts = List.copyOf(requireNonNull(columns, "columns is null"));
        if (version < 1) {
            throw invalidArgument("Version %s of table %s does not exist: versions start at 1", version, name);
        }
        if (rowCount < 0) {
            throw invalidArgument("A row count cannot be negative: %s", rowCount);
        }
        for (ColumnCounts column : counts) {
            if (column.nonNullCount() < 0 || column.distinctCount() < 0 || column.nonNullCount() > rowCount || column.distinctCount() > column.nonNullCount()) {
                throw invalidArgument("Statistics of column %s of table %s are inconsistent: %s distinct of %s non-null values in %s rows",
                        column.ordinal(), name, column.distinctCount(), column.nonNullCount(), rowCount);
            }
        }
        return database.inTransaction(handle -> {
            TableEntry table = findTable(handle, name).orElseThrow(() -> notFound("Table %s does not exist", name));
            if (expectedTableId.isPresent() && expectedTableId.getAsLong() != table.tableId()) {
                throw aborted("Table %s was dropped and created again since ANALYZE began; no statistics were stored", name);
            }
            if (version > table.version()) {
                throw outOfRange("Table %s is at version %s, not yet at %s", name, table.version(), version);
            }
            long now = clock.millis();
            int stored = 0;
            for (ColumnCounts column : counts) {
                if (column.ordinal() < 0 || column.ordinal() >= table.columns().size() || table.columns().get(column.ordinal()).dropped()) {
                    throw notFound("Table %s has no live column at place %s", name, column.ordinal());
                }
                if (store(handle, table.tableId(), version, now, rowCount, column)) {
                    stored++;
                }
            }
            return stored;
        });
    }

    private static boolean store(Handle handle, long tableId, long version, long now, long rowCount, ColumnCounts column)
    {
        Optional<Long> existing = handle.createQuery("SELECT analyzed_version FROM column_statistics WHERE table_id = :table_id AND ordinal = :ordinal")
                .bind("table_id", tableId)
                .bind("ordinal", column.ordinal())
                .mapTo(Long.class)
                .findOne();
        if (existing.isPresent() && existing.get() > version) {
            return false;
        }
        String sql = existing.isPresent()
                ? "UPDATE column_statistics SET analyzed_version = :version, analyzed_millis = :now, row_count = :row_count, non_null_count = :non_null_count, distinct_count = :distinct_count WHERE table_id = :table_id AND ordinal = :ordinal"
                : "INSERT INTO column_statistics (table_id, ordinal, analyzed_version, analyzed_millis, row_count, non_null_count, distinct_count) VALUES (:table_id, :ordinal, :version, :now, :row_count, :non_null_count, :distinct_count)";
        handle.createUpdate(sql)
                .bind("table_id", tableId)
                .bind("ordinal", column.ordinal())
                .bind("version", version)
                .bind("now", now)
                .bind("row_count", rowCount)
                .bind("non_null_count", column.nonNullCount())
                .bind("distinct_count", column.distinctCount())
                .execute();
        return true;
    }

    /**
     * The statistics of the table's column slots that have some, by slot.
     *
     * @return empty when the table does not exist
     */
    public Optional<List<AnalyzedColumn>> getColumnStatistics(long tableId)
    {
        return database.inTransaction(handle -> {
            boolean exists = handle.createQuery("SELECT 1 FROM tables WHERE table_id = :table_id")
                    .bind("table_id", tableId)
                    .mapTo(Integer.class)
                    .findOne()
                    .isPresent();
            if (!exists) {
                return Optional.empty();
            }
            return Optional.of(handle.createQuery("SELECT ordinal, analyzed_version, analyzed_millis, row_count, non_null_count, distinct_count FROM column_statistics WHERE table_id = :table_id ORDER BY ordinal")
                    .bind("table_id", tableId)
                    .map((row, _) -> new AnalyzedColumn(row.getInt("ordinal"), row.getLong("analyzed_version"), row.getLong("analyzed_millis"),
                            row.getLong("row_count"), row.getLong("non_null_count"), row.getLong("distinct_count")))
                    .list());
        });
    }

    /** Forgets the statistics of one column slot, in the caller's transaction (DROP COLUMN). */
    static void forgetColumn(Handle handle, long tableId, int ordinal)
    {
        handle.createUpdate("DELETE FROM column_statistics WHERE table_id = :table_id AND ordinal = :ordinal")
                .bind("table_id", tableId)
                .bind("ordinal", ordinal)
                .execute();
    }
}
