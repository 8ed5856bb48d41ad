package io.nsc.protocol.catalog;

import io.nsc.protocol.catalog.CatalogBackupFormat.InvalidBackupException;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestCatalogBackupFormat
{
    private static final String CLUSTER_ID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

    @TempDir
    Path directory;

    @Test
    void testRoundTrip()
            throws IOException
    {
        byte[] database = randomBytes(200_000);
        Manifest manifest = new Manifest(CLUSTER_ID, 4, Instant.parse("2026-01-02T03:04:05Z"), database.length);
        Path file = write("catalog.backup", manifest, database);

        Path copy = directory.resolve("metadata.mv.db");
        assertThat(CatalogBackupFormat.read(file, Optional.of(copy))).isEqualTo(manifest);
        assertThat(Files.readAllBytes(copy)).isEqualTo(database);
        assertThat(CatalogBackupFormat.read(file, Optional.empty())).isEqualTo(manifest);

        // the database is written to a new file only: an existing one is never overwritten
        assertThatThrownBy(() -> CatalogBackupFormat.read(file, Optional.of(copy))).isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
        assertThat(Files.readAllBytes(copy)).isEqualTo(database);
    }

    @Test
    void testWriteRefusesAWrongSize()
    {
        Manifest manifest = new Manifest(CLUSTER_ID, 4, Instant.now(), 10);
        assertThatThrownBy(() -> CatalogBackupFormat.write(new ByteArrayOutputStream(), manifest, new ByteArrayInputStream(new byte[11])))
                .hasMessage("The database copy has 11 bytes, the manifest says 10");
    }

    @Test
    void testDamagedFilesAreRefused()
            throws IOException
    {
        byte[] database = randomBytes(100_000);
        Path good = write("good.backup", new Manifest(CLUSTER_ID, 4, Instant.now(), database.length), database);
        byte[] bytes = Files.readAllBytes(good);

        assertInvalid(Files.write(directory.resolve("half.backup"), Arrays.copyOf(bytes, bytes.length / 2)), "half.backup is damaged or incomplete");
        byte[] flipped = bytes.clone();
        flipped[bytes.length / 2] ^= 1;
        assertInvalid(Files.write(directory.resolve("flipped.backup"), flipped), "flipped.backup is damaged");
        assertInvalid(Files.writeString(directory.resolve("text.backup"), "hello"), "text.backup is not an nsc catalog backup");
        assertInvalid(Files.write(directory.resolve("empty.backup"), new byte[0]), "empty.backup is not an nsc catalog backup");

        // the manifest says another size than the database has
        assertInvalid(zip("short.backup", manifestText(CLUSTER_ID, "4", 5), new byte[10]), "short.backup is damaged: its database has 10 bytes, the manifest says 5");
        assertInvalid(zip("format.backup", manifestText(CLUSTER_ID, "4", 10).replace("format=1", "format=2"), new byte[10]), "format.backup has backup format 2; this version of nsc reads format 1");
        assertInvalid(zip("cluster.backup", manifestText("../../etc", "4", 10), new byte[10]), "cluster.backup names an invalid cluster id '../../etc'");
        assertInvalid(zip("version.backup", manifestText(CLUSTER_ID, "four", 10), new byte[10]), "version.backup has an invalid manifest");
        assertInvalid(zip("missing.backup", "format=1\n", new byte[10]), "missing.backup has no cluster-id in its manifest");
        assertInvalid(zip("huge.backup", "#".repeat(100_000), new byte[10]), "huge.backup is not an nsc catalog backup: its manifest is over 65536 bytes");
    }

    @Test
    void testLayoutIsChecked()
            throws IOException
    {
        Path swapped = directory.resolve("swapped.backup");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(swapped))) {
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.DATABASE_ENTRY));
            zip.write(new byte[10]);
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.MANIFEST_ENTRY));
            zip.write(manifestText(CLUSTER_ID, "4", 10).getBytes(UTF_8));
        }
        assertInvalid(swapped, "swapped.backup is not an nsc catalog backup: it does not start with nsc-catalog-backup.properties");

        Path extra = directory.resolve("extra.backup");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(extra))) {
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.MANIFEST_ENTRY));
            zip.write(manifestText(CLUSTER_ID, "4", 10).getBytes(UTF_8));
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.DATABASE_ENTRY));
            zip.write(new byte[10]);
            zip.putNextEntry(new ZipEntry("../evil"));
            zip.write(new byte[1]);
        }
        assertInvalid(extra, "extra.backup is not an nsc catalog backup: unexpected entry ../evil");

        Path noDatabase = directory.resolve("no-database.backup");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(noDatabase))) {
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.MANIFEST_ENTRY));
            zip.write(manifestText(CLUSTER_ID, "4", 10).getBytes(UTF_8));
        }
        assertInvalid(noDatabase, "no-database.backup is incomplete: metadata.mv.db does not follow the manifest");
    }

    private void assertInvalid(Path file, String message)
    {
        Path target = directory.resolve("target-" + file.getFileName());
        assertThatThrownBy(() -> CatalogBackupFormat.read(file, Optional.of(target)))
                .isInstanceOf(InvalidBackupException.class)
                .hasMessageContaining(message);
        // nothing of a bad backup is left behind
        assertThat(target).doesNotExist();
    }

    private Path write(String name, Manifest manifest, byte[] database)
            throws IOException
    {
        Path file = directory.resolve(name);
        try (var output = Files.newOutputStream(file)) {
            CatalogBackupFormat.write(output, manifest, new ByteArrayInputStream(database));
        }
        return file;
    }

    private Path zip(String name, String manifest, byte[] database)
            throws IOException
    {
        Path file = directory.resolve(name);
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(file))) {
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.MANIFEST_ENTRY));
            zip.write(manifest.getBytes(UTF_8));
            zip.putNextEntry(new ZipEntry(CatalogBackupFormat.DATABASE_ENTRY));
            zip.write(database);
        }
        return file;
    }

    private static String manifestText(String clusterId, String schemaVersion, long databaseBytes)
    {
        return "format=1\ncluster-id=%s\nschema-version=%s\ncreated=2026-01-02T03:04:05Z\ndatabase-bytes=%s\n".formatted(clusterId, schemaVersion, databaseBytes);
    }

    private static byte[] randomBytes(int size)
    {
        byte[] bytes = new byte[size];
        new Random(42).nextBytes(bytes);
        return bytes;
    }
}
