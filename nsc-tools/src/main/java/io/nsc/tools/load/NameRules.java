package io.nsc.tools.load;

import io.nsc.protocol.proto.Column;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

import static io.nsc.tools.load.LoadException.nothingLoaded;

/**
 * The metadata service's naming rule for schemas, tables and columns (lower-case letters, digits
 * and underscores, not starting with a digit, at most 128 characters; see
 * {@code io.nsc.metadata.catalog.Names}). The service enforces it at commit, which comes after the
 * uploads; checking it here refuses a bad name before a byte is sent.
 */
final class NameRules
{
    private static final int MAX_NAME_LENGTH = 128;
    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");

    private NameRules() {}

    static void checkTableName(String schema, String table)
    {
        checkName("schema", schema);
        checkName("table", table);
        if (schema.equals("information_schema")) {
            throw nothingLoaded("schema name information_schema is reserved");
        }
    }

    static void checkColumnNames(Path file, List<Column> columns)
    {
        Set<String> seen = new HashSet<>();
        for (Column column : columns) {
            if (!isValid(column.getName())) {
                throw nothingLoaded("file %s: column name '%s' is not usable in nsc: use lower-case letters, digits and underscores, not starting with a digit, at most %s characters".formatted(
                        file, column.getName(), MAX_NAME_LENGTH));
            }
            if (!seen.add(column.getName())) {
                throw nothingLoaded("file %s: more than one column is named %s".formatted(file, column.getName()));
            }
        }
    }

    private static void checkName(String kind, String name)
    {
        if (!isValid(name)) {
            throw nothingLoaded("invalid %s name '%s': use lower-case letters, digits and underscores, not starting with a digit, at most %s characters".formatted(kind, name, MAX_NAME_LENGTH));
        }
    }

    private static boolean isValid(String name)
    {
        return !name.isEmpty() && name.length() <= MAX_NAME_LENGTH && NAME.matcher(name).matches();
    }
}
