package io.nsc.protocol.catalog;

import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which schema, table and column names nsc accepts: lower-case (Trino lower-cases identifiers,
 * so any other name could never be queried), at most 128 characters. Shared so the loader can
 * refuse a name before it uploads anything, with the words the metadata service would use.
 */
public final class NameRules
{
    public static final int MAX_NAME_LENGTH = 128;
    // Trino answers information_schema itself, and the connector's system tables (system.nodes)
    // are found before any table of a schema named system: such schemas could not be queried.
    public static final Set<String> RESERVED_SCHEMAS = Set.of("information_schema", "system");

    private static final Pattern NAME = Pattern.compile("[a-z_][a-z0-9_]*");

    private NameRules() {}

    public static boolean isValidName(String name)
    {
        return name != null && !name.isEmpty() && name.length() <= MAX_NAME_LENGTH && NAME.matcher(name).matches();
    }

    /**
     * @param kind "schema", "table" or "column", for the message
     * @return why the name is refused, or empty when it is fine
     */
    public static Optional<String> problem(String kind, String name)
    {
        if (name == null || name.isEmpty()) {
            return Optional.of("The %s name is empty".formatted(kind));
        }
        if (!isValidName(name)) {
            return Optional.of("Invalid %s name '%s': use lower-case letters, digits and underscores, not starting with a digit, at most %s characters".formatted(
                    kind, abbreviate(name), MAX_NAME_LENGTH));
        }
        if (kind.equals("schema") && RESERVED_SCHEMAS.contains(name)) {
            return Optional.of("Schema name %s is reserved".formatted(name));
        }
        return Optional.empty();
    }

    // An over-long name would make the error message itself unreadable.
    private static String abbreviate(String name)
    {
        return name.length() <= MAX_NAME_LENGTH + 3 ? name : name.substring(0, MAX_NAME_LENGTH) + "...";
    }
}
