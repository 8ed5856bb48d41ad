package io.nsc.protocol.catalog;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Reader;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * The file {@code ./nsc backup} writes and the catalog restore reads: a zip of exactly two
 * entries, in this order,
 * <pre>
 *   nsc-catalog-backup.properties   format, cluster-id, schema-version, created, database-bytes
 *   metadata.mv.db                  the catalog's H2 database file, as H2's BACKUP copied it
 * </pre>
 * The manifest comes first so that a reader knows the cluster before it reads the database, and
 * it names the cluster so that a restore keeps the storage nodes' trust: they delete nothing while
 * the metadata service answers another cluster id. Shared by the metadata service (which writes
 * it), the tools (which check what they received) and the restore.
 */
public final class CatalogBackupFormat
{
    public static final int FORMAT_VERSION = 1;
    public static final String MANIFEST_ENTRY = "nsc-catalog-backup.properties";
    public static final String DATABASE_ENTRY = "metadata.mv.db";

    // a manifest is a few lines: anything longer is not one, and is not read into memory
    private static final int MAX_MANIFEST_BYTES = 64 * 1024;
    private static final int COPY_BUFFER_BYTES = 64 * 1024;
    private static final Pattern CLUSTER_ID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private CatalogBackupFormat() {}

    public record Manifest(String clusterId, int schemaVersion, Instant created, long databaseBytes)
    {
        public Manifest
        {
            requireNonNull(clusterId, "clusterId is null");
            requireNonNull(created, "created is null");
        }
    }

    /** A file that is not a complete, intact catalog backup; the message says what is wrong. */
    public static final class InvalidBackupException
            extends IOException
    {
        public InvalidBackupException(String message)
        {
            super(message);
        }

        public InvalidBackupException(String message, Throwable cause)
        {
            super(message, cause);
        }
    }

    /**
     * Writes a backup to {@code output}: the manifest, then {@code manifest.databaseBytes()} bytes
     * of {@code database}.
     */
    public static void write(OutputStream output, Manifest manifest, InputStream database)
            throws IOException
    {
        ZipOutputStream zip = new ZipOutputStream(output, UTF_8);
        zip.putNextEntry(new ZipEntry(MANIFEST_ENTRY));
        zip.write(manifestText(manifest).getBytes(UTF_8));
        zip.closeEntry();
        zip.putNextEntry(new ZipEntry(DATABASE_ENTRY));
        long copied = database.transferTo(zip);
        if (copied != manifest.databaseBytes()) {
            throw new IOException("The database copy has %s bytes, the manifest says %s".formatted(copied, manifest.databaseBytes()));
        }
        zip.closeEntry();
        zip.finish();
    }

    /**
     * Reads the whole backup in {@code file}, checking the layout, the manifest, and each entry's
     * size and CRC (so a truncated or damaged file is refused, not half-used), and copies the
     * database file to {@code databaseTarget} when given (created new: an existing file is never
     * overwritten).
     *
     * @throws InvalidBackupException when the file is not a complete, intact backup
     */
    public static Manifest read(Path file, Optional<Path> databaseTarget)
            throws IOException
    {
        requireNonNull(file, "file is null");
        if (databaseTarget.isPresent() && Files.exists(databaseTarget.get())) {
            throw new FileAlreadyExistsException(databaseTarget.get().toString());
        }
        try {
            return readAndCopy(file, databaseTarget);
        }
        catch (IOException | RuntimeException e) {
            // what was copied of a backup that turned out bad is of no use to anyone
            if (databaseTarget.isPresent()) {
                Files.deleteIfExists(databaseTarget.get());
            }
            throw e;
        }
    }

    private static Manifest readAndCopy(Path file, Optional<Path> databaseTarget)
            throws IOException
    {
        try (ZipInputStream zip = new ZipInputStream(Files.newInputStream(file), UTF_8)) {
            ZipEntry entry = nextEntry(zip, file);
            if (entry == null || !entry.getName().equals(MANIFEST_ENTRY)) {
                throw new InvalidBackupException("%s is not an nsc catalog backup: it does not start with %s".formatted(file, MANIFEST_ENTRY));
            }
            Manifest manifest = parseManifest(file, readManifest(zip, file));
            entry = nextEntry(zip, file);
            if (entry == null || !entry.getName().equals(DATABASE_ENTRY)) {
                throw new InvalidBackupException("%s is incomplete: %s does not follow the manifest".formatted(file, DATABASE_ENTRY));
            }
            long bytes = copyDatabase(zip, file, databaseTarget);
            if (bytes != manifest.databaseBytes()) {
                throw new InvalidBackupException("%s is damaged: its database has %s bytes, the manifest says %s".formatted(file, bytes, manifest.databaseBytes()));
            }
            entry = nextEntry(zip, file);
            if (entry != null) {
                throw new InvalidBackupException("%s is not an nsc catalog backup: unexpected entry %s".formatted(file, entry.getName()));
            }
            return manifest;
        }
    }

    private static String manifestText(Manifest manifest)
    {
        return """
                # nsc catalog backup: restore with ./nsc restore <file> (see docs/operating/durability.md)
                format=%s
                cluster-id=%s
                schema-version=%s
                created=%s
                database-bytes=%s
                """.formatted(FORMAT_VERSION, manifest.clusterId(), manifest.schemaVersion(), manifest.created(), manifest.databaseBytes());
    }

    private static ZipEntry nextEntry(ZipInputStream zip, Path file)
            throws IOException
    {
        try {
            return zip.getNextEntry();
        }
        catch (ZipException e) {
            throw new InvalidBackupException("%s is damaged or not an nsc catalog backup: %s".formatted(file, e.getMessage()), e);
        }
    }

    private static String readManifest(ZipInputStream zip, Path file)
            throws IOException
    {
        ByteArrayOutputStream manifest = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int read = zip.read(buffer); read >= 0; read = zip.read(buffer)) {
                manifest.write(buffer, 0, read);
                if (manifest.size() > MAX_MANIFEST_BYTES) {
                    throw new InvalidBackupException("%s is not an nsc catalog backup: its manifest is over %s bytes".formatted(file, MAX_MANIFEST_BYTES));
                }
            }
        }
        catch (ZipException e) {
            throw new InvalidBackupException("%s is damaged: %s".formatted(file, e.getMessage()), e);
        }
        return manifest.toString(UTF_8);
    }

    private static Manifest parseManifest(Path file, String text)
            throws InvalidBackupException
    {
        Properties properties = new Properties();
        try {
            properties.load(Reader.of(text));
        }
        catch (IOException | IllegalArgumentException e) {
            throw new InvalidBackupException("%s has an unreadable manifest: %s".formatted(file, e.getMessage()), e);
        }
        String format = required(properties, "format", file);
        if (!format.equals(String.valueOf(FORMAT_VERSION))) {
            throw new InvalidBackupException("%s has backup format %s; this version of nsc reads format %s".formatted(file, format, FORMAT_VERSION));
        }
        String clusterId = required(properties, "cluster-id", file);
        if (!CLUSTER_ID.matcher(clusterId).matches()) {
            throw new InvalidBackupException("%s names an invalid cluster id '%s'".formatted(file, clusterId));
        }
        try {
            int schemaVersion = Integer.parseInt(required(properties, "schema-version", file));
            Instant created = Instant.parse(required(properties, "created", file));
            long databaseBytes = Long.parseLong(required(properties, "database-bytes", file));
            if (schemaVersion < 1 || databaseBytes < 0) {
                throw new InvalidBackupException("%s has an invalid manifest: schema-version %s, database-bytes %s".formatted(file, schemaVersion, databaseBytes));
            }
            return new Manifest(clusterId, schemaVersion, created, databaseBytes);
        }
        catch (NumberFormatException | DateTimeParseException e) {
            throw new InvalidBackupException("%s has an invalid manifest: %s".formatted(file, e.getMessage()), e);
        }
    }

    private static String required(Properties properties, String key, Path file)
            throws InvalidBackupException
    {
        String value = properties.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new InvalidBackupException("%s has no %s in its manifest".formatted(file, key));
        }
        return value.strip();
    }

    private static long copyDatabase(ZipInputStream zip, Path file, Optional<Path> target)
            throws IOException
    {
        try (OutputStream output = target.isPresent() ? Files.newOutputStream(target.get(), CREATE_NEW, WRITE) : OutputStream.nullOutputStream()) {
            byte[] buffer = new byte[COPY_BUFFER_BYTES];
            long bytes = 0;
            for (int read = zip.read(buffer); read >= 0; read = zip.read(buffer)) {
                output.write(buffer, 0, read);
                bytes += read;
            }
            return bytes;
        }
        catch (ZipException | EOFException e) {
            // a bad CRC or a file cut short inside the entry
            throw new InvalidBackupException("%s is damaged or incomplete: %s".formatted(file, e.getMessage()), e);
        }
    }
}
