package io.nsc.metadata.catalog;

import com.google.common.annotations.VisibleForTesting;
import io.airlift.log.Logger;
import jakarta.annotation.PreDestroy;
import org.h2.api.ErrorCode;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.JdbiException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;
import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyDirectory;
import static java.nio.file.StandardOpenOption.READ;
import static java.util.Objects.requireNonNull;

/**
 * The embedded H2 database under the data directory, reached through one connection.
 *
 * <p>Every unit of work runs as one transaction while holding a lock. Serializing all access is
 * what makes the commit checks ("the allocation is still open", "the table is still at version
 * N") race-free without relying on the isolation level, and the catalog's work per call is small
 * enough that one connection is not the bottleneck of a cluster's metadata traffic. H2 locks the
 * file, so only one metadata service can use it: several services need {@link PostgreSqlCatalogDatabase}.
 *
 * <p>Durability: a transaction that changed anything is on stable storage when
 * {@link #inTransaction} returns. H2's MVStore with {@code WRITE_DELAY=0} writes each commit into
 * the file before the commit returns, but only into the operating system's page cache: it calls
 * {@code fsync} only when compacting or closing, so a power loss could take back a commit the
 * service had acknowledged, and storage nodes would then reclaim its files as orphans. So after
 * each commit that changed something, {@code CHECKPOINT SYNC} makes H2 write what is pending and
 * {@code FileChannel.force} the file. Reads skip it (an {@code fsync} costs more than most reads).
 */
public final class H2CatalogDatabase
        implements CatalogDatabase
{
    private static final Logger log = Logger.get(H2CatalogDatabase.class);

    private static final String DATABASE_NAME = "metadata";

    // H2's name for the database file of DATABASE_NAME
    public static final String DATABASE_FILE = DATABASE_NAME + ".mv.db";

    private final ReentrantLock lock = new ReentrantLock();
    // the one connection, for the life of the database
    private final Handle handle;
    private final boolean forceCommits;
    // set when forcing a commit to disk failed: see forceToDisk
    private String failure;

    private H2CatalogDatabase(Handle handle, boolean forceCommits)
    {
        this.handle = requireNonNull(handle, "handle is null");
        this.forceCommits = forceCommits;
    }

    /**
     * Opens (creating when absent) the database in {@code dataDir} and brings its schema to the
     * current version. H2 locks the file, so a second service on the same directory fails here.
     */
    public static H2CatalogDatabase open(Path dataDir)
    {
        return open(dataDir, CatalogSchema.VERSION, "file:", true);
    }

    /**
     * Opens the database with only the first {@code schemaVersion} migrations, as an older
     * service would have left it: for tests of the upgrade path.
     */
    @VisibleForTesting
    static H2CatalogDatabase openAtSchemaVersion(Path dataDir, int schemaVersion)
    {
        return open(dataDir, schemaVersion, "file:", true);
    }

    /**
     * Opens the database through an H2 file system ({@code fileSystem} is its prefix, such as
     * {@code "file:"}), and with or without forcing commits to disk: for tests that watch what
     * reaches the disk, and for the benchmark that compares the two.
     */
    @VisibleForTesting
    static H2CatalogDatabase open(Path dataDir, String fileSystem, boolean forceCommits)
    {
        return open(dataDir, CatalogSchema.VERSION, fileSystem, forceCommits);
    }

    private static H2CatalogDatabase open(Path dataDir, int schemaVersion, String fileSystem, boolean forceCommits)
    {
        Path directory = dataDir.toAbsolutePath();
        try {
            ownerOnlyDirectory(directory);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create data directory " + directory, e);
        }
        // WRITE_DELAY=0: each commit is written to the file before it returns, not up to 500 ms
        // later (H2's default); forceToDisk then makes it durable
        String url = "jdbc:h2:" + fileSystem + directory.resolve(DATABASE_NAME) + ";WRITE_DELAY=0";
        Connection connection;
        try {
            connection = DriverManager.getConnection(url, "nsc", "");
        }
        catch (SQLException e) {
            if (e.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1) {
                throw new CatalogInUseException(directory, e);
            }
            throw new CatalogDatabaseException("Cannot open the catalog database in " + directory, e);
        }
        // closing the handle closes the connection
        H2CatalogDatabase database = new H2CatalogDatabase(Jdbi.create(() -> connection).open(), forceCommits);
        try {
            // DDL commits on its own in H2, so the migration forces whatever it did
            database.inTransaction(handle -> {
                CatalogSchema.migrate(handle, CatalogBackend.H2, schemaVersion);
                return null;
            }, true);
            // a new database file is durable only once the directory entry naming it is
            fsyncDirectory(directory);
        }
        catch (RuntimeException e) {
            database.close();
            throw e;
        }
        return database;
    }

    /**
     * The cluster id of the database in {@code dataDir}, read without changing the file (opened
     * read-only, no migration); empty for a database from before cluster ids (schema version 3).
     *
     * @throws CatalogInUseException when another process (a running service) has it open
     * @throws CatalogDatabaseException when there is no database or it cannot be read
     */
    public static Optional<String> readClusterId(Path dataDir)
    {
        Path directory = dataDir.toAbsolutePath();
        if (!Files.exists(directory.resolve(DATABASE_FILE))) {
            throw new CatalogDatabaseException("There is no catalog database in " + directory);
        }
        // IFEXISTS: never create one; ACCESS_MODE_DATA=r: change nothing, not even the schema version
        String url = "jdbc:h2:file:" + directory.resolve(DATABASE_NAME) + ";IFEXISTS=TRUE;ACCESS_MODE_DATA=r";
        try (Connection connection = DriverManager.getConnection(url, "nsc", "");
                Handle handle = Jdbi.open(connection)) {
            boolean hasClusterTable = handle.createQuery("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'PUBLIC' AND table_name = 'CLUSTER'")
                    .mapTo(Long.class)
                    .one() > 0;
            if (!hasClusterTable) {
                return Optional.empty();
            }
            return handle.createQuery("SELECT cluster_id FROM cluster").mapTo(String.class).findOne();
        }
        catch (SQLException e) {
            if (e.getErrorCode() == ErrorCode.DATABASE_ALREADY_OPEN_1) {
                throw new CatalogInUseException(directory, e);
            }
            throw new CatalogDatabaseException("Cannot read the catalog database in " + directory, e);
        }
        catch (JdbiException e) {
            throw new CatalogDatabaseException("Cannot read the catalog database in " + directory, e);
        }
    }

    @Override
    public CatalogBackend backend()
    {
        return CatalogBackend.H2;
    }

    /**
     * {@inheritDoc} The work runs once: nothing else writes to the file.
     */
    @Override
    public <T> T inTransaction(Work<T> work)
    {
        return inTransaction(work, false);
    }

    private <T> T inTransaction(Work<T> work, boolean forceAlways)
    {
        checkState(!lock.isHeldByCurrentThread(), "Transactions do not nest");
        lock.lock();
        try {
            if (failure != null) {
                throw new CatalogDatabaseException(failure);
            }
            T result;
            boolean changed;
            handle.begin();
            try {
                result = work.run(handle);
                changed = forceAlways || containsUncommittedChanges();
                handle.commit();
            }
            catch (JdbiException e) {
                rollback(e);
                throw new CatalogDatabaseException("Catalog database operation failed", e);
            }
            catch (RuntimeException | Error e) {
                rollback(e);
                throw e;
            }
            if (changed && forceCommits) {
                forceToDisk();
            }
            return result;
        }
        finally {
            lock.unlock();
        }
    }

    private boolean containsUncommittedChanges()
    {
        // H2 tracks per session whether its transaction changed anything; this is that flag
        return handle.createQuery("SELECT contains_uncommitted FROM information_schema.sessions WHERE session_id = SESSION_ID()")
                .mapTo(Boolean.class)
                .findOne()
                .orElseThrow(() -> new CatalogDatabaseException("The catalog database does not list its own session"));
    }

    /**
     * Writes what H2 holds back and forces the file to disk. When that fails, the commit may or
     * may not be durable, and after a failed {@code fsync} the page cache cannot be trusted to
     * hold it either (Linux may drop the dirty pages), so a retry could report success for data
     * that is gone. The database refuses all further work instead, so the failure surfaces in
     * every call until an operator restarts the service, which then sees what the disk holds.
     */
    private void forceToDisk()
    {
        try {
            handle.execute("CHECKPOINT SYNC");
        }
        catch (JdbiException e) {
            CatalogDatabaseException exception = new CatalogDatabaseException(
                    "The catalog database could not force a commit to disk and accepts no more work; restart the metadata service", e);
            failure = exception.getMessage();
            log.error(e, "%s", failure);
            throw exception;
        }
    }

    /**
     * Writes a copy of the database to {@code zipFile}, which must not exist: H2's {@code BACKUP},
     * a zip holding the database file. It runs under the lock like a transaction, so the copy holds
     * every commit acknowledged before it and nothing of a call still running; the catalog waits
     * for the copy, which takes about as long as reading the file once.
     */
    public void backupTo(Path zipFile)
    {
        checkArgument(!Files.exists(zipFile), "%s exists", zipFile);
        inTransaction(handle -> handle.createUpdate("BACKUP TO :file")
                .bind("file", zipFile.toAbsolutePath().toString())
                .execute());
    }

    @PreDestroy
    @Override
    public void close()
    {
        lock.lock();
        try {
            if (!handle.isClosed()) {
                handle.close();
            }
        }
        catch (JdbiException e) {
            log.warn(e, "Error closing the catalog database");
        }
        finally {
            lock.unlock();
        }
    }

    private void rollback(Throwable cause)
    {
        try {
            handle.rollback();
        }
        catch (JdbiException e) {
            cause.addSuppressed(e);
        }
    }

    private static void fsyncDirectory(Path directory)
    {
        try (FileChannel channel = FileChannel.open(directory, READ)) {
            channel.force(true);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot sync data directory " + directory, e);
        }
    }
}
