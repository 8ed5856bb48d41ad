package io.nsc.metadata.catalog;

import java.sql.SQLException;

/**
 * The embedded database failed: not the caller's fault, so the gRPC layer reports it as INTERNAL.
 */
public class CatalogDatabaseException
        extends RuntimeException
{
    public CatalogDatabaseException(String message, SQLException cause)
    {
        super(message + ": " + cause.getMessage(), cause);
    }

    public CatalogDatabaseException(String message)
    {
        super(message);
    }
}
