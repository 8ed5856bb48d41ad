package io.nsc.trino.metadata;

import io.trino.spi.TrinoException;

import static io.nsc.protocol.catalog.NameRules.problem;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;

/** The names the catalog accepts, checked before a statement asks the metadata service, so that it fails as Trino reports unsupported names. */
final class NameChecks
{
    private NameChecks() {}

    /**
     * @param kind what the name names in the message: schema, table, column, view...
     */
    static void checkName(String kind, String name)
    {
        problem(kind, name).ifPresent(problem -> {
            throw new TrinoException(NOT_SUPPORTED, problem);
        });
    }
}
