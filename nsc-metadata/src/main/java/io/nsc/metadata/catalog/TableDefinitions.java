package io.nsc.metadata.catalog;

import io.airlift.units.Duration;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.catalog.Durations.succinct;
import static io.nsc.metadata.catalog.Names.checkColumnName;
import static io.nsc.metadata.catalog.Names.checkTablePropertyName;
import static io.nsc.metadata.catalog.TableVersionRetention.VERSION_RETENTION_PROPERTY;
import static java.util.concurrent.TimeUnit.DAYS;

/**
 * Checks of a table's columns and properties as a CREATE TABLE or a commit brings them: before
 * any transaction, so that bad input never reaches the database.
 */
final class TableDefinitions
{
    private static final int MAX_TABLE_PROPERTY_VALUE_LENGTH = 65_536;
    // ten years: far beyond any use, and far from overflowing a time in milliseconds
    static final Duration MAX_VERSION_RETENTION = new Duration(3650, DAYS);
    // what the catalog's comment columns hold (CatalogSchema migration 9)
    static final int MAX_COMMENT_LENGTH = 65_536;

    private TableDefinitions() {}

    static void validateColumns(List<TableColumn> columns)
    {
        if (columns.stream().allMatch(TableColumn::dropped)) {
            throw invalidArgument("A table needs at least one column");
        }
        Set<String> names = new HashSet<>();
        for (TableColumn column : columns) {
            validateColumn(column);
            // a dropped column's name is free for a new one
            if (!column.dropped() && !names.add(column.name())) {
                throw invalidArgument("Duplicate column name %s", column.name());
            }
        }
    }

    static void validateColumn(TableColumn column)
    {
        checkColumnName(column.name());
        if (column.type().isBlank()) {
            throw invalidArgument("Column %s has no type", column.name());
        }
        validateComment(column.comment());
    }

    static void validateComment(Optional<String> comment)
    {
        if (comment.isPresent() && comment.get().length() > MAX_COMMENT_LENGTH) {
            throw invalidArgument("A comment is longer than %s characters", MAX_COMMENT_LENGTH);
        }
        // PostgreSQL's text holds no NUL; refused on every catalog, so both keep the same comments
        if (comment.isPresent() && comment.get().indexOf('\0') >= 0) {
            throw invalidArgument("A comment cannot contain the NUL character");
        }
    }

    static void validateProperties(Map<String, String> properties)
    {
        properties.forEach((name, value) -> {
            checkTablePropertyName(name);
            if (value.length() > MAX_TABLE_PROPERTY_VALUE_LENGTH) {
                throw invalidArgument("The value of table property %s is longer than %s characters", name, MAX_TABLE_PROPERTY_VALUE_LENGTH);
            }
        });
        String retention = properties.get(VERSION_RETENTION_PROPERTY);
        if (retention != null) {
            validateVersionRetention(retention);
        }
    }

    /** The one property the service reads itself: it decides how long the table's versions are kept. */
    private static void validateVersionRetention(String value)
    {
        Duration retention;
        try {
            retention = Duration.valueOf(value);
        }
        catch (IllegalArgumentException e) {
            throw invalidArgument("Table property %s must be a duration such as '7d' or '12h', not '%s'", VERSION_RETENTION_PROPERTY, value);
        }
        if (retention.compareTo(MAX_VERSION_RETENTION) > 0) {
            throw invalidArgument("Table property %s is %s, more than the longest allowed, %s", VERSION_RETENTION_PROPERTY, value, succinct(MAX_VERSION_RETENTION));
        }
    }

    static void checkColumnsMatch(SchemaTableName name, List<TableColumn> tableColumns, List<TableColumn> fileColumns)
    {
        int count = Math.max(tableColumns.size(), fileColumns.size());
        for (int i = 0; i < count; i++) {
            Optional<TableColumn> table = i < tableColumns.size() ? Optional.of(tableColumns.get(i)) : Optional.empty();
            Optional<TableColumn> files = i < fileColumns.size() ? Optional.of(fileColumns.get(i)) : Optional.empty();
            boolean same = table.isPresent() && files.isPresent() && table.get().sameSchema(files.get());
            if (!same) {
                throw failedPrecondition(
                        "Columns of table %s do not match the files: column %s: table has %s, files have %s",
                        name,
                        i + 1,
                        table.map(TableColumn::toString).orElse("no such column"),
                        files.map(TableColumn::toString).orElse("no such column"));
            }
        }
    }
}
