package io.nsc.tools.backup;

import com.google.common.collect.ImmutableMap;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.protocol.catalog.CatalogBackupFormat;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.tools.NscTool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code nsc backup} against a real metadata service over mutual TLS, as {@code ./nsc backup} runs it. */
final class TestBackupCommand
{
    @TempDir
    static Path workDir;

    private static MetadataServer server;
    private static String address;
    private static TlsFiles client;
    private static TlsFiles storage;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeAll
    static void startService()
    {
        ClusterCertificates certificates = ClusterCertificates.openOrCreate(workDir.resolve("tls"));
        server = MetadataServer.start(ImmutableMap.<String, String>builder()
                .put("metadata.data-dir", workDir.resolve("metadata").toString())
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "0")
                .putAll(certificates.issue(ComponentRole.METADATA, "metadata", List.of()).toProperties("metadata"))
                .buildOrThrow());
        address = "127.0.0.1:" + server.grpcPort();
        client = certificates.issue(ComponentRole.CLIENT, "nsc-cli", List.of());
        storage = certificates.issue(ComponentRole.STORAGE, "storage-1", List.of());
    }

    @AfterAll
    static void stopService()
    {
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void reset()
    {
        out.reset();
        err.reset();
    }

    @Test
    void testBackupWritesAVerifiedFile()
            throws Exception
    {
        Path directory = Files.createDirectories(workDir.resolve("backups-" + System.nanoTime()));
        Path file = directory.resolve("catalog.backup");
        assertThat(run(backup(client, file))).as(err()).isEqualTo(0);
        Manifest manifest = CatalogBackupFormat.read(file, Optional.empty());
        assertThat(out()).contains("nsc backup: catalog of cluster " + manifest.clusterId()).contains("written to " + file);
        assertThat(manifest.databaseBytes()).isPositive();

        // never over an existing file, which stays as it was
        byte[] before = Files.readAllBytes(file);
        reset();
        assertThat(run(backup(client, file))).isEqualTo(1);
        assertThat(err()).contains(file + " exists; a backup never overwrites a file");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
        assertThat(entries(directory)).containsExactly(file);
    }

    @Test
    void testFailuresWriteNothing()
            throws Exception
    {
        Path directory = Files.createDirectories(workDir.resolve("refused-" + System.nanoTime()));

        // only clients may copy the catalog: a storage node's certificate is refused
        assertThat(run(backup(storage, directory.resolve("as-storage.backup")))).isEqualTo(1);
        assertThat(err()).contains("PERMISSION_DENIED").contains("BackupCatalog").contains("nothing was written");

        reset();
        assertThat(run("backup", "--metadata", "127.0.0.1:1", "--certificate", client.certificate().toString(), "--key", client.key().toString(), "--ca", client.ca().toString(),
                directory.resolve("unreachable.backup").toString())).isEqualTo(1);
        assertThat(err()).contains("UNAVAILABLE").contains("nothing was written");
        assertThat(entries(directory)).isEmpty();

        reset();
        assertThat(run(backup(client, directory.resolve("no-such-dir").resolve("x.backup")))).isEqualTo(1);
        assertThat(err()).contains("no-such-dir does not exist");

        reset();
        assertThat(run("backup", "--metadata", address, "--insecure")).isEqualTo(2);
        assertThat(err()).contains("need exactly one <file>").contains("usage: nsc backup");
    }

    private String[] backup(TlsFiles identity, Path file)
    {
        return new String[] {"backup", "--metadata", address, "--certificate", identity.certificate().toString(), "--key", identity.key().toString(), "--ca", identity.ca().toString(), file.toString()};
    }

    private static List<Path> entries(Path directory)
            throws Exception
    {
        try (Stream<Path> paths = Files.list(directory)) {
            return new ArrayList<>(paths.toList());
        }
    }

    private int run(String... args)
    {
        return NscTool.run(List.of(args), new PrintStream(out, true, UTF_8), new PrintStream(err, true, UTF_8));
    }

    private String out()
    {
        return out.toString(UTF_8);
    }

    private String err()
    {
        return err.toString(UTF_8);
    }
}
