package io.nsc.metadata.catalog;

import io.nsc.protocol.catalog.NameRules;

import static io.nsc.metadata.MetadataErrors.invalidArgument;

/**
 * The naming rule for schemas, tables, views and columns ({@link NameRules}), enforced with the gRPC
 * status a client gets for bad input. Trino lower-cases unquoted identifiers before a connector
 * sees them, so accepting only lower-case names keeps every name reachable from SQL without
 * quoting, and keeps the catalog free of names that differ only in case.
 */
public final class Names
{
    private Names() {}

    public static boolean isValidName(String name)
    {
        return NameRules.isValidName(name);
    }

    public static String checkSchemaName(String name)
    {
        return check("schema", name);
    }

    public static String checkTableName(String name)
    {
        return check("table", name);
    }

    /** Views share their schema's names with tables, and follow the same rule. */
    public static String checkViewName(String name)
    {
        return check("view", name);
    }

    public static String checkColumnName(String name)
    {
        return check("column", name);
    }

    /** Trino's table property names follow the same rule, so the catalog holds no others. */
    public static String checkTablePropertyName(String name)
    {
        return check("table property", name);
    }

    private static String check(String kind, String name)
    {
        NameRules.problem(kind, name).ifPresent(problem -> {
            throw invalidArgument("%s", problem);
        });
        return name;
    }
}
