package io.nsc.metadata.catalog;

import java.util.regex.Pattern;

import static io.nsc.metadata.MetadataErrors.invalidArgument;

/**
 * The naming rule for schemas, tables and columns. Trino lower-cases unquoted identifiers before
 * a connector sees them, so accepting only lower-case names keeps every name reachable from SQL
 * without quoting, and keeps the catalog free of names that differ only in case.
 */
public final class Names
{
    public static final int MAX_NAME_LENGTH = 128;

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");
    // Trino answers information_schema itself; a schema of that name could never be queried.
    private static final String RESERVED_SCHEMA = "information_schema";

    private Names() {}

    public static boolean isValidName(String name)
    {
        return name != null && !name.isEmpty() && name.length() <= MAX_NAME_LENGTH && NAME.matcher(name).matches();
    }

    public static String checkSchemaName(String name)
    {
        checkName("schema", name);
        if (name.equals(RESERVED_SCHEMA)) {
            throw invalidArgument("Schema name %s is reserved", name);
        }
        return name;
    }

    public static String checkTableName(String name)
    {
        return checkName("table", name);
    }

    public static String checkColumnName(String name)
    {
        return checkName("column", name);
    }

    private static String checkName(String kind, String name)
    {
        if (name == null || name.isEmpty()) {
            throw invalidArgument("The %s name is empty", kind);
        }
        if (!isValidName(name)) {
            throw invalidArgument(
                    "Invalid %s name '%s': use lower-case letters, digits and underscores, not starting with a digit, at most %s characters",
                    kind,
                    abbreviate(name),
                    MAX_NAME_LENGTH);
        }
        return name;
    }

    // An over-long name would make the error message itself unreadable.
    private static String abbreviate(String name)
    {
        return name.length() <= MAX_NAME_LENGTH + 3 ? name : name.substring(0, MAX_NAME_LENGTH) + "...";
    }
}
