package io.nsc.metadata.catalog;

import java.sql.SQLException;

import static com.google.common.base.Throwables.getCausalChain;

/**
 * The catalog database failed: not the caller's fault, so the gRPC layer reports it as INTERNAL.
 */
public class CatalogDatabaseException
        extends RuntimeException
{
    public CatalogDatabaseException(String message, Exception cause)
    {
        super(message + ": " + describe(cause), cause);
    }

    public CatalogDatabaseException(String message)
    {
        super(message);
    }

    /**
     * The database's own words: Jdbi's exceptions repeat the statement and its arguments, which
     * may be long (a batch of file ids) and say nothing the database's message does not.
     */
    private static String describe(Exception cause)
    {
        return getCausalChain(cause).stream()
                .filter(SQLException.class::isInstance)
                .map(Throwable::getMessage)
                .findFirst()
                .orElse(cause.getMessage());
    }
}
