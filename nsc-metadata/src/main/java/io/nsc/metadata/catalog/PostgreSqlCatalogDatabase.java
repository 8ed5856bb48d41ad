package io.nsc.metadata.catalog;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.collect.ImmutableSet;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.airlift.log.Logger;
import jakarta.annotation.PreDestroy;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Throwables.getCausalChain;
import static io.nsc.metadata.MetadataErrors.unavailable;
import static java.util.Objects.requireNonNull;

/**
 * The catalog in a PostgreSQL database that several metadata services share, each through a
 * bounded pool of connections.
 *
 * <p>Correctness across services rests on the isolation level alone: every unit of work is a
 * SERIALIZABLE transaction, so the catalog's checks ("the table is still at version N", "no
 * commit claimed this file") hold as if the transactions of all services ran one at a time.
 * PostgreSQL enforces that by failing one of two transactions that would contradict each other
 * (SQLState 40001, or 40P01 for a deadlock); such a transaction changed nothing, and its work
 * runs again from the start, on a fresh snapshot, up to {@link #DEFAULT_MAX_ATTEMPTS} times with
 * a random pause that grows with each attempt, so that services colliding once do not collide in
 * step again. The catalog looks for a key before it inserts one, so two services inserting the
 * same key at once fail one of them with 40001 too, rather than with a unique-key violation.
 *
 * <p>Schema migrations run under a transaction-level advisory lock, so services starting at once
 * over a new database migrate it once: the others wait for the lock, then find it migrated.
 */
public final class PostgreSqlCatalogDatabase
        implements CatalogDatabase
{
    private static final Logger log = Logger.get(PostgreSqlCatalogDatabase.class);

    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    // the pause before attempt n is random in [0, min(MAX_BACKOFF, BASE_BACKOFF * 2^n)) milliseconds
    private static final long BASE_BACKOFF_MILLIS = 2;
    private static final long MAX_BACKOFF_MILLIS = 200;
    // "nsc" "catalog" "migrate": the key all services lock before migrating; no other user of the database takes it
    private static final long MIGRATION_LOCK_KEY = 0x6e73_6300_6d69_6772L;
    private static final Set<String> RETRYABLE_SQL_STATES = ImmutableSet.of(
            "40001", // serialization_failure
            "40P01"); // deadlock_detected

    private final HikariDataSource dataSource;
    private final Jdbi jdbi;
    private final String url;
    private final int maxAttempts;
    private final AtomicLong retries = new AtomicLong();

    private PostgreSqlCatalogDatabase(HikariDataSource dataSource, String url, int maxAttempts)
    {
        this.dataSource = requireNonNull(dataSource, "dataSource is null");
        this.jdbi = Jdbi.create(dataSource);
        this.url = requireNonNull(url, "url is null");
        checkArgument(maxAttempts >= 1, "maxAttempts must be at least 1");
        this.maxAttempts = maxAttempts;
    }

    /**
     * Connects to the database and brings its schema to the current version.
     *
     * @throws CatalogDatabaseException when the server cannot be reached or refuses the login
     */
    public static PostgreSqlCatalogDatabase open(PostgreSqlConnectionSettings settings)
    {
        return open(settings, CatalogSchema.VERSION, DEFAULT_MAX_ATTEMPTS);
    }

    @VisibleForTesting
    static PostgreSqlCatalogDatabase open(PostgreSqlConnectionSettings settings, int schemaVersion, int maxAttempts)
    {
        HikariConfig config = new HikariConfig();
        config.setPoolName("nsc-catalog");
        config.setJdbcUrl(settings.url());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.maxConnections());
        config.setMinimumIdle(1);
        config.setTransactionIsolation("TRANSACTION_SERIALIZABLE");
        // a call waits this long for a free connection (or a server that is down) before it fails
        config.setConnectionTimeout(10_000);
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        }
        catch (RuntimeException e) {
            throw new CatalogDatabaseException("Cannot connect to the PostgreSQL catalog at %s as %s: %s".formatted(settings.url(), settings.user(), rootMessage(e)));
        }
        PostgreSqlCatalogDatabase database = new PostgreSqlCatalogDatabase(dataSource, settings.url(), maxAttempts);
        try {
            database.migrate(schemaVersion);
        }
        catch (RuntimeException e) {
            database.close();
            throw e;
        }
        return database;
    }

    /**
     * READ COMMITTED, unlike all other work: a service that waited for the lock must see the
     * schema the one before it committed, which a snapshot taken before the wait would not show.
     * PostgreSQL's DDL is transactional, so a migration that fails leaves nothing behind.
     */
    private void migrate(int schemaVersion)
    {
        try {
            jdbi.inTransaction(TransactionIsolationLevel.READ_COMMITTED, handle -> {
                handle.createQuery("SELECT 1 FROM pg_advisory_xact_lock(:key)")
                        .bind("key", MIGRATION_LOCK_KEY)
                        .mapTo(Integer.class)
                        .one();
                CatalogSchema.migrate(handle, CatalogBackend.POSTGRESQL, schemaVersion);
                return null;
            });
        }
        catch (JdbiException e) {
            throw new CatalogDatabaseException("Cannot migrate the PostgreSQL catalog at " + url, e);
        }
    }

    @Override
    public CatalogBackend backend()
    {
        return CatalogBackend.POSTGRESQL;
    }

    @Override
    public <T> T inTransaction(Work<T> work)
    {
        for (int attempt = 1; ; attempt++) {
            try {
                return jdbi.inTransaction(TransactionIsolationLevel.SERIALIZABLE, work::run);
            }
            catch (JdbiException e) {
                if (isUnreachable(e)) {
                    throw unavailable("The catalog database at %s cannot be reached: %s", url, rootMessage(e));
                }
                Optional<String> state = sqlState(e).filter(RETRYABLE_SQL_STATES::contains);
                if (state.isEmpty()) {
                    throw new CatalogDatabaseException("Catalog database operation failed", e);
                }
                if (attempt == maxAttempts) {
                    log.warn("Catalog transaction given up after %s attempts: %s", attempt, rootMessage(e));
                    throw unavailable("The catalog transaction conflicted with concurrent ones %s times in a row (SQLState %s, last: %s); nothing was changed, try again",
                            attempt, state.get(), rootMessage(e));
                }
                retries.incrementAndGet();
                pause(attempt);
            }
        }
    }

    /** Transactions run again after a conflict, since this database was opened. */
    public long retries()
    {
        return retries.get();
    }

    private static void pause(int attempt)
    {
        long bound = Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempt, 16));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(bound));
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("Interrupted while waiting to retry a catalog transaction; nothing was changed");
        }
    }

    private static Optional<String> sqlState(Exception e)
    {
        return getCausalChain(e).stream()
                .filter(SQLException.class::isInstance)
                .map(cause -> ((SQLException) cause).getSQLState())
                .filter(state -> state != null)
                .findFirst();
    }

    /** No connection: the server is down or unreachable (SQLState class 08), or the pool timed out waiting for one. */
    private static boolean isUnreachable(Exception e)
    {
        return getCausalChain(e).stream().anyMatch(SQLTransientConnectionException.class::isInstance)
                || sqlState(e).filter(state -> state.startsWith("08")).isPresent();
    }

    private static String rootMessage(Exception e)
    {
        return getCausalChain(e).stream()
                .filter(SQLException.class::isInstance)
                .map(Throwable::getMessage)
                .findFirst()
                .orElseGet(() -> getCausalChain(e).getLast().getMessage());
    }

    @PreDestroy
    @Override
    public void close()
    {
        dataSource.close();
    }
}
