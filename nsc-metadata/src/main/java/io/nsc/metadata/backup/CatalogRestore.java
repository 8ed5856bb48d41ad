package io.nsc.metadata.backup;

import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.CatalogDatabaseException;
import io.nsc.metadata.catalog.CatalogInUseException;
import io.nsc.metadata.catalog.CatalogSchema;
import io.nsc.metadata.catalog.ClusterCatalog;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableVersionRetention;
import io.nsc.protocol.catalog.CatalogBackupFormat;
import io.nsc.protocol.catalog.CatalogBackupFormat.InvalidBackupException;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyDirectory;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * Puts a catalog backup in place of a stopped metadata service's catalog, losing nothing: the
 * backup is checked whole and opened (and upgraded, as the service would) in a staging directory
 * before anything else is touched; the current catalog, if any, is renamed aside, never deleted;
 * and the service must be stopped (H2's file lock tells, whatever started it).
 *
 * <p>The cluster id travels with the catalog, so storage nodes keep trusting the restored service.
 * A current catalog of another cluster is replaced only when asked ({@code force}): that is the
 * case after a data directory was lost and a service started on the empty one, which made a new
 * id the storage nodes refuse anyway.
 */
public final class CatalogRestore
{
    public static final String STAGING_DIRECTORY = "restore-tmp";
    private static final DateTimeFormatter SUFFIX = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private CatalogRestore() {}

    public record Result(Manifest manifest, int tableCount, Optional<Path> previousCatalog)
    {
        public Result
        {
            requireNonNull(manifest, "manifest is null");
            requireNonNull(previousCatalog, "previousCatalog is null");
        }
    }

    /** The restore was refused; nothing was changed. The message says why and what to do. */
    public static final class RestoreRefusedException
            extends Exception
    {
        public RestoreRefusedException(String message, Throwable cause)
        {
            super(message, cause);
        }
    }

    /**
     * @param dataDir the service's {@code metadata.data-dir}
     * @param force replace a current catalog of another cluster, or one that cannot be read
     */
    public static Result restore(Path backupFile, Path dataDir, boolean force, Clock clock)
            throws RestoreRefusedException, IOException
    {
        Path directory = dataDir.toAbsolutePath();
        Path current = directory.resolve(H2CatalogDatabase.DATABASE_FILE);
        Path staging = directory.resolve(STAGING_DIRECTORY);
        if (!Files.isRegularFile(backupFile)) {
            throw new RestoreRefusedException("%s does not exist or is not a file".formatted(backupFile), null);
        }
        ownerOnlyDirectory(directory);
        deleteRecursively(staging);
        try {
            Files.createDirectories(staging);
            Manifest manifest = readBackup(backupFile, staging);
            int tableCount = checkStaged(backupFile, staging, manifest, clock);

            Optional<Path> previous = Optional.empty();
            if (Files.exists(current)) {
                checkCurrent(directory, manifest, force);
                Path aside = directory.resolve("%s.before-restore-%s".formatted(H2CatalogDatabase.DATABASE_FILE, SUFFIX.format(clock.instant())));
                Files.move(current, aside, ATOMIC_MOVE);
                previous = Optional.of(aside);
            }
            try {
                // the restored file must be on disk before the name points at it
                forceFile(staging.resolve(H2CatalogDatabase.DATABASE_FILE));
                Files.move(staging.resolve(H2CatalogDatabase.DATABASE_FILE), current, ATOMIC_MOVE);
                forceFile(directory);
            }
            catch (IOException e) {
                // put the catalog that was there back where it was
                if (previous.isPresent() && !Files.exists(current)) {
                    try {
                        Files.move(previous.get(), current, ATOMIC_MOVE);
                    }
                    catch (IOException moveBack) {
                        e.addSuppressed(moveBack);
                    }
                }
                throw e;
            }
            return new Result(manifest, tableCount, previous);
        }
        finally {
            deleteRecursively(staging);
        }
    }

    private static Manifest readBackup(Path backupFile, Path staging)
            throws RestoreRefusedException, IOException
    {
        try {
            return CatalogBackupFormat.read(backupFile, Optional.of(staging.resolve(H2CatalogDatabase.DATABASE_FILE)));
        }
        catch (InvalidBackupException e) {
            throw new RestoreRefusedException(e.getMessage(), e);
        }
    }

    /** Opens the staged copy as the service will, and checks that it is the cluster the manifest names. */
    private static int checkStaged(Path backupFile, Path staging, Manifest manifest, Clock clock)
            throws RestoreRefusedException
    {
        if (manifest.schemaVersion() > CatalogSchema.VERSION) {
            throw new RestoreRefusedException("%s holds a catalog at schema version %s, newer than this nsc supports (%s): restore it with the nsc that made it".formatted(
                    backupFile, manifest.schemaVersion(), CatalogSchema.VERSION), null);
        }
        try (CatalogDatabase database = H2CatalogDatabase.open(staging)) {
            String clusterId = new ClusterCatalog(database).clusterId();
            if (!clusterId.equals(manifest.clusterId())) {
                throw new RestoreRefusedException("%s is inconsistent: its manifest names cluster %s, its database %s".formatted(backupFile, manifest.clusterId(), clusterId), null);
            }
            return new TableCatalog(database, clock, new TableVersionRetention(TableVersionRetention.DEFAULT_RETENTION)).listTables(Optional.empty()).size();
        }
        catch (CatalogDatabaseException e) {
            throw new RestoreRefusedException("%s holds no usable catalog database: %s".formatted(backupFile, e.getMessage()), e);
        }
    }

    /**
     * Refuses while a process holds H2's lock on the catalog file: a service running on it, forced
     * or not. Run from its own process (bin/nsc-node): on Linux, closing any channel of a file
     * releases every lock this JVM holds on it, so this must not share a JVM with the service.
     */
    private static void checkNotInUse(Path current)
            throws RestoreRefusedException, IOException
    {
        boolean locked;
        try (FileChannel channel = FileChannel.open(current, READ, WRITE);
                FileLock lock = channel.tryLock()) {
            locked = lock == null;
        }
        catch (OverlappingFileLockException e) {
            locked = true;
        }
        if (locked) {
            throw new RestoreRefusedException("The catalog database %s is in use by another process: stop the metadata service first".formatted(current), null);
        }
    }

    private static void checkCurrent(Path directory, Manifest manifest, boolean force)
            throws RestoreRefusedException, IOException
    {
        checkNotInUse(directory.resolve(H2CatalogDatabase.DATABASE_FILE));
        Optional<String> clusterId;
        try {
            clusterId = H2CatalogDatabase.readClusterId(directory);
        }
        catch (CatalogInUseException e) {
            throw new RestoreRefusedException(e.getMessage() + ": stop the metadata service first", e);
        }
        catch (CatalogDatabaseException e) {
            if (force) {
                return;
            }
            throw new RestoreRefusedException("The current catalog cannot be read (%s); to replace it anyway (it is kept aside), restore with --force".formatted(e.getMessage()), e);
        }
        if (clusterId.isPresent() && clusterId.get().equals(manifest.clusterId())) {
            return;
        }
        if (!force) {
            throw new RestoreRefusedException(("The current catalog in %s belongs to cluster %s, the backup to cluster %s. "
                    + "Storage nodes trust only the cluster they registered with; if that is the backup's (a service started on an empty data directory made a new id), "
                    + "restore with --force (the current catalog is kept aside)").formatted(directory, clusterId.orElse("(none: from before cluster ids)"), manifest.clusterId()), null);
        }
    }

    private static void forceFile(Path path)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, Files.isDirectory(path) ? READ : WRITE)) {
            channel.force(true);
        }
    }

    private static void deleteRecursively(Path path)
            throws IOException
    {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path entry : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(entry);
            }
        }
    }
}
