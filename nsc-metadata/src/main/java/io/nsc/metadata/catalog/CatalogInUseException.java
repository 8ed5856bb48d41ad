package io.nsc.metadata.catalog;

import java.nio.file.Path;
import java.sql.SQLException;

/** Another process holds the catalog database open: H2 locks the file for the one that has it. */
public final class CatalogInUseException
        extends CatalogDatabaseException
{
    public CatalogInUseException(Path directory, SQLException cause)
    {
        super("The catalog database in %s is in use by another process (a running metadata service?)".formatted(directory), cause);
    }
}
