package io.nsc.metadata.catalog;

import org.jdbi.v3.core.Handle;

/**
 * The database under the catalog: every unit of work is one transaction on a Jdbi {@link Handle}.
 *
 * <p>A work function may run more than once ({@link PostgreSqlCatalogDatabase} re-runs it after a
 * serialization failure), so it must do nothing outside the handle that a second run would
 * repeat or contradict: no counters, no calls to other services. What it returns is what its
 * last run returned.
 */
public interface CatalogDatabase
        extends AutoCloseable
{
    @FunctionalInterface
    interface Work<T>
    {
        T run(Handle handle);
    }

    /**
     * Runs {@code work} as one transaction: committed when it returns, rolled back when it throws
     * anything, so a failed call leaves no trace. When this returns, the commit is durable.
     *
     * @throws io.grpc.StatusRuntimeException what the work threw; UNAVAILABLE when the database
     *         cannot be reached or the work kept conflicting with concurrent transactions
     * @throws CatalogDatabaseException when the database failed otherwise
     */
    <T> T inTransaction(Work<T> work);

    CatalogBackend backend();

    /** The schema version of the database: {@link CatalogSchema#VERSION} once it is open. */
    default int schemaVersion()
    {
        return inTransaction(CatalogSchema::currentVersion);
    }

    @Override
    void close();
}
