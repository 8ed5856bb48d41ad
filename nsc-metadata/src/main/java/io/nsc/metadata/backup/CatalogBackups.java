package io.nsc.metadata.backup;

import io.airlift.log.Logger;
import io.grpc.Status;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.CatalogSchema;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.protocol.catalog.CatalogBackupFormat;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * Makes online backups of the running catalog in the {@link CatalogBackupFormat}: H2's
 * {@code BACKUP} copies the database file while the catalog waits (see
 * {@link H2CatalogDatabase#backupTo}), then the copy is wrapped with a manifest naming the cluster.
 * A catalog in PostgreSQL is the server's to back up ({@code pg_dump}, or its continuous archiving),
 * with the tools its operators already run for it: this refuses it.
 * The file lives in {@code <data-dir>/backup-tmp/} only while a caller streams it; leftovers of a
 * crash are deleted at start.
 *
 * <p>One backup at a time: each holds a copy of the whole catalog on the service's disk until it
 * has been sent, so concurrent ones would only multiply that (and the catalog's pauses).
 */
public final class CatalogBackups
{
    private static final Logger log = Logger.get(CatalogBackups.class);

    public static final String TEMPORARY_DIRECTORY = "backup-tmp";

    private final CatalogDatabase database;
    private final String clusterId;
    private final Path temporaryDirectory;
    private final Clock clock;
    private final Semaphore running = new Semaphore(1);

    public CatalogBackups(CatalogDatabase database, String clusterId, Path dataDir, Clock clock)
    {
        this.database = requireNonNull(database, "database is null");
        this.clusterId = requireNonNull(clusterId, "clusterId is null");
        this.temporaryDirectory = dataDir.toAbsolutePath().resolve(TEMPORARY_DIRECTORY);
        this.clock = requireNonNull(clock, "clock is null");
        deleteLeftovers();
    }

    /**
     * Makes a backup file; the caller sends it and then closes the {@link Backup}, which deletes it.
     *
     * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED while another backup is in progress;
     *         FAILED_PRECONDITION for a catalog in PostgreSQL
     */
    public Backup create()
    {
        if (!(database instanceof H2CatalogDatabase h2)) {
            throw failedPrecondition("The catalog is in PostgreSQL: back it up with pg_dump (or the server's continuous archiving); ./nsc backup and restore cover the embedded H2 catalog only");
        }
        if (!running.tryAcquire()) {
            throw Status.RESOURCE_EXHAUSTED
                    .withDescription("Another catalog backup is in progress; try again when it has finished")
                    .asRuntimeException();
        }
        String name = "%016x".formatted(ThreadLocalRandom.current().nextLong());
        Path h2Copy = temporaryDirectory.resolve(name + ".h2.zip");
        Path file = temporaryDirectory.resolve(name + ".backup");
        boolean created = false;
        try {
            Files.createDirectories(temporaryDirectory);
            h2.backupTo(h2Copy);
            Manifest manifest;
            try (ZipFile copy = new ZipFile(h2Copy.toFile())) {
                ZipEntry entry = copy.getEntry(H2CatalogDatabase.DATABASE_FILE);
                if (entry == null || entry.getSize() < 0) {
                    throw new IOException("H2's backup %s holds no %s".formatted(h2Copy, H2CatalogDatabase.DATABASE_FILE));
                }
                manifest = new Manifest(clusterId, CatalogSchema.VERSION, clock.instant(), entry.getSize());
                try (InputStream input = copy.getInputStream(entry);
                        OutputStream output = Files.newOutputStream(file, CREATE_NEW, WRITE)) {
                    CatalogBackupFormat.write(output, manifest, input);
                }
            }
            long sizeBytes = Files.size(file);
            log.info("Catalog backup of cluster %s: %s bytes (database %s bytes)", clusterId, sizeBytes, manifest.databaseBytes());
            created = true;
            return new Backup(file, manifest, sizeBytes);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot write the catalog backup under %s: %s".formatted(temporaryDirectory, e.getMessage()), e);
        }
        finally {
            deleteQuietly(h2Copy);
            if (!created) {
                deleteQuietly(file);
                running.release();
            }
        }
    }

    /** A backup file ready to be sent. Closing it deletes the file and lets the next backup start. */
    public final class Backup
            implements AutoCloseable
    {
        private final Path file;
        private final Manifest manifest;
        private final long sizeBytes;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Backup(Path file, Manifest manifest, long sizeBytes)
        {
            this.file = requireNonNull(file, "file is null");
            this.manifest = requireNonNull(manifest, "manifest is null");
            this.sizeBytes = sizeBytes;
        }

        public Path file()
        {
            return file;
        }

        public Manifest manifest()
        {
            return manifest;
        }

        public long sizeBytes()
        {
            return sizeBytes;
        }

        @Override
        public void close()
        {
            if (closed.compareAndSet(false, true)) {
                deleteQuietly(file);
                running.release();
            }
        }
    }

    private void deleteLeftovers()
    {
        if (!Files.isDirectory(temporaryDirectory)) {
            return;
        }
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(temporaryDirectory)) {
            for (Path leftover : leftovers) {
                log.info("Deleting the leftover of an interrupted catalog backup: %s", leftover);
                Files.delete(leftover);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot delete leftover backups in " + temporaryDirectory, e);
        }
    }

    private static void deleteQuietly(Path path)
    {
        try {
            Files.deleteIfExists(path);
        }
        catch (IOException e) {
            // start-up deletes whatever is left
            log.warn(e, "Cannot delete %s", path);
        }
    }
}
