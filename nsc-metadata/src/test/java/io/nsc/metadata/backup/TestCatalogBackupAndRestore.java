package io.nsc.metadata.backup;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.nsc.metadata.backup.CatalogRestore.RestoreRefusedException;
import io.nsc.metadata.backup.CatalogRestore.Result;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.CatalogSchema;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.protocol.catalog.CatalogBackupFormat;
import io.nsc.protocol.catalog.CatalogBackupFormat.Manifest;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.BackupCatalogRequest;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.security.TransportSecurity;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.RESOURCE_EXHAUSTED;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.TestingStats.compactStats;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Backups through the running service's BackupCatalog, restores into its stopped data directory:
 * a restore brings back exactly the catalog of the backup, with its cluster id, and every refusal
 * leaves the data directory as it was.
 */
final class TestCatalogBackupAndRestore
{
    private static final List<Column> COLUMNS = List.of(Column.newBuilder().setName("a").setType("bigint").build());

    @TempDir
    Path temporary;

    private MetadataServer server;
    private ManagedChannel channel;
    private MetadataServiceBlockingStub client;

    @AfterEach
    void tearDown()
    {
        stop();
    }

    @Test
    void testBackupDropRestoreBringsTheTableBack()
            throws Exception
    {
        Path dataDir = temporary.resolve("metadata");
        start(dataDir);
        String clusterId = client.registerNode(registration()).getClusterId();
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        List<DataFile> files = commitTable("kept", 2);
        GetTableFilesResponse filesBefore = tableFiles("kept");

        Path backup = temporary.resolve("catalog.backup");
        Manifest manifest = backup(backup);
        assertThat(manifest.clusterId()).isEqualTo(clusterId);
        assertThat(manifest.schemaVersion()).isEqualTo(CatalogSchema.VERSION);
        // the service keeps no copy once the backup has been sent
        assertThat(filesIn(dataDir.resolve(CatalogBackups.TEMPORARY_DIRECTORY))).isEmpty();
        assertThat(Files.readString(dataDir.resolve("audit.log"))).contains("\"method\":\"BackupCatalog\"").contains("\"outcome\":\"OK\"");

        client.dropTable(DropTableRequest.newBuilder().setSchemaName("s").setTableName("kept").build());
        commitTable("later", 1);
        stop();

        Result result = CatalogRestore.restore(backup, dataDir, false, Clock.systemUTC());
        assertThat(result.manifest()).isEqualTo(manifest);
        assertThat(result.tableCount()).isEqualTo(1);
        // the catalog it replaced is kept, never deleted
        assertThat(result.previousCatalog()).isPresent();
        assertThat(result.previousCatalog().get()).exists().hasParent(dataDir);
        assertThat(filesIn(dataDir.resolve(CatalogRestore.STAGING_DIRECTORY))).isEmpty();

        start(dataDir);
        // exactly the catalog of the backup, and the same cluster, so storage nodes keep trusting it
        assertThat(tableFiles("kept").getFilesList()).isEqualTo(files);
        assertThat(tableFiles("kept").getVersion()).isEqualTo(filesBefore.getVersion());
        assertStatus(() -> client.getTable(table("later")), NOT_FOUND, "Table s.later does not exist");
        assertThat(client.registerNode(registration()).getClusterId()).isEqualTo(clusterId);
    }

    @Test
    void testRefusalsChangeNothing()
            throws Exception
    {
        Path dataDir = temporary.resolve("metadata");
        start(dataDir);
        String clusterId = client.registerNode(registration()).getClusterId();
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        commitTable("t", 1);
        Path backup = temporary.resolve("catalog.backup");
        backup(backup);

        // never under a running service, even when forced; the restore runs as its own process
        // (bin/nsc-node restore-catalog), as it must: see CatalogRestore.checkNotInUse
        List<String> before = listing(dataDir);
        ProcessResult running = restoreInOwnProcess(backup, dataDir, "--force");
        assertThat(running.exitCode()).as(running.output()).isEqualTo(1);
        assertThat(running.output()).contains("is in use by another process: stop the metadata service first; nothing was changed");
        assertThat(listing(dataDir)).isEqualTo(before);
        commitTable("after_refusal", 1);
        stop();

        byte[] good = Files.readAllBytes(backup);
        Path truncated = Files.write(temporary.resolve("truncated.backup"), Arrays.copyOf(good, good.length / 2));
        assertRefused(truncated, dataDir, false, "truncated.backup is damaged or incomplete");
        Path flipped = temporary.resolve("flipped.backup");
        byte[] damaged = good.clone();
        damaged[damaged.length / 2] ^= 0x40;
        Files.write(flipped, damaged);
        assertRefused(flipped, dataDir, false, "flipped.backup is damaged");
        Path notZip = Files.writeString(temporary.resolve("notes.txt"), "not a backup at all");
        assertRefused(notZip, dataDir, false, "notes.txt is not an nsc catalog backup");
        assertRefused(temporary.resolve("missing.backup"), dataDir, false, "missing.backup does not exist");

        // a manifest that does not match its database, and one from a newer nsc
        Manifest manifest = CatalogBackupFormat.read(backup, Optional.empty());
        Path otherManifest = rewrite(backup, temporary.resolve("other-manifest.backup"), new Manifest("00000000-0000-0000-0000-000000000000", manifest.schemaVersion(), manifest.created(), manifest.databaseBytes()));
        assertRefused(otherManifest, dataDir, false, "is inconsistent: its manifest names cluster 00000000-0000-0000-0000-000000000000, its database " + clusterId);
        Path newer = rewrite(backup, temporary.resolve("newer.backup"), new Manifest(manifest.clusterId(), 99, manifest.created(), manifest.databaseBytes()));
        assertRefused(newer, dataDir, false, "schema version 99, newer than this nsc supports");

        // a backup of another cluster replaces this one's catalog only when forced
        Path otherDataDir = temporary.resolve("other");
        start(otherDataDir);
        String otherClusterId = client.registerNode(registration()).getClusterId();
        Path otherBackup = temporary.resolve("other.backup");
        backup(otherBackup);
        stop();
        assertRefused(otherBackup, dataDir, false, "belongs to cluster %s, the backup to cluster %s".formatted(clusterId, otherClusterId), "--force");

        // after all the refusals the catalog is the one the service left, with nothing set aside
        try (Stream<Path> entries = Files.list(dataDir)) {
            assertThat(entries.map(path -> path.getFileName().toString())).noneMatch(name -> name.contains("before-restore"));
        }
        start(dataDir);
        assertThat(client.registerNode(registration()).getClusterId()).isEqualTo(clusterId);
        assertThat(client.getTable(table("after_refusal")).getFileCount()).isEqualTo(1);
        stop();

        Result forced = CatalogRestore.restore(otherBackup, dataDir, true, Clock.systemUTC());
        assertThat(forced.manifest().clusterId()).isEqualTo(otherClusterId);
        assertThat(forced.previousCatalog()).isPresent();
        start(dataDir);
        assertThat(client.registerNode(registration()).getClusterId()).isEqualTo(otherClusterId);
    }

    @Test
    void testRestoreIntoAnEmptyDataDirectory()
            throws Exception
    {
        // the disaster case: the service's disk is gone, the backup is all there is
        start(temporary.resolve("lost"));
        String clusterId = client.registerNode(registration()).getClusterId();
        client.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("s").build());
        List<DataFile> files = commitTable("t", 3);
        Path backup = temporary.resolve("catalog.backup");
        backup(backup);
        stop();

        Path fresh = temporary.resolve("fresh");
        Result result = CatalogRestore.restore(backup, fresh, false, Clock.systemUTC());
        assertThat(result.previousCatalog()).isEmpty();
        start(fresh);
        assertThat(tableFiles("t").getFilesList()).isEqualTo(files);
        assertThat(client.registerNode(registration()).getClusterId()).isEqualTo(clusterId);
    }

    @Test
    void testOneBackupAtATime()
            throws Exception
    {
        Path dataDir = temporary.resolve("metadata");
        try (CatalogDatabase database = H2CatalogDatabase.open(dataDir)) {
            CatalogBackups backups = new CatalogBackups(database, "00000000-0000-0000-0000-000000000001", dataDir, Clock.systemUTC());
            try (CatalogBackups.Backup first = backups.create()) {
                assertThat(first.file()).exists();
                assertStatus(backups::create, RESOURCE_EXHAUSTED, "Another catalog backup is in progress; try again when it has finished");
            }
            // closing one deletes its file and lets the next one run
            try (CatalogBackups.Backup second = backups.create()) {
                assertThat(CatalogBackupFormat.read(second.file(), Optional.empty()).clusterId()).isEqualTo("00000000-0000-0000-0000-000000000001");
            }
            assertThat(filesIn(dataDir.resolve(CatalogBackups.TEMPORARY_DIRECTORY))).isEmpty();

            // a crash leaves its file behind: the next start deletes it
            Files.writeString(dataDir.resolve(CatalogBackups.TEMPORARY_DIRECTORY).resolve("0123456789abcdef.backup"), "left over");
            new CatalogBackups(database, "00000000-0000-0000-0000-000000000001", dataDir, Clock.systemUTC());
            assertThat(filesIn(dataDir.resolve(CatalogBackups.TEMPORARY_DIRECTORY))).isEmpty();
        }
    }

    private record ProcessResult(int exitCode, String output) {}

    private static ProcessResult restoreInOwnProcess(Path backup, Path dataDir, String... options)
            throws IOException, InterruptedException
    {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                RestoreCatalogMain.class.getName(),
                backup.toString(),
                dataDir.toString()));
        command.addAll(List.of(options));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new ProcessResult(process.exitValue(), output);
    }

    private void assertRefused(Path backup, Path dataDir, boolean force, String... messageParts)
            throws IOException
    {
        List<String> before = listing(dataDir);
        assertThatThrownBy(() -> CatalogRestore.restore(backup, dataDir, force, Clock.systemUTC()))
                .isInstanceOf(RestoreRefusedException.class)
                .hasMessageContainingAll(messageParts);
        assertThat(listing(dataDir)).isEqualTo(before);
    }

    /** Names, sizes and modification times of the data directory's files: what a refusal must not change. */
    private static List<String> listing(Path dataDir)
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(dataDir)) {
            return paths.filter(Files::isRegularFile)
                    .map(path -> {
                        try {
                            return "%s %s %s".formatted(dataDir.relativize(path), Files.size(path), Files.getLastModifiedTime(path));
                        }
                        catch (IOException e) {
                            throw new RuntimeException(e);
                        }
                    })
                    .sorted()
                    .toList();
        }
    }

    /** The backup's database under another manifest. */
    private static Path rewrite(Path backup, Path target, Manifest manifest)
            throws IOException
    {
        Path database = target.resolveSibling(target.getFileName() + ".db");
        CatalogBackupFormat.read(backup, Optional.of(database));
        try (InputStream input = Files.newInputStream(database);
                OutputStream output = Files.newOutputStream(target)) {
            CatalogBackupFormat.write(output, manifest, input);
        }
        Files.delete(database);
        return target;
    }

    private Manifest backup(Path target)
            throws IOException
    {
        Iterator<BackupCatalogResponse> responses = client.backupCatalog(BackupCatalogRequest.getDefaultInstance());
        BackupCatalogResponse header = responses.next();
        try (OutputStream output = Files.newOutputStream(target)) {
            while (responses.hasNext()) {
                responses.next().getData().writeTo(output);
            }
        }
        assertThat(Files.size(target)).isEqualTo(header.getSizeBytes());
        Manifest manifest = CatalogBackupFormat.read(target, Optional.empty());
        assertThat(manifest.clusterId()).isEqualTo(header.getClusterId());
        assertThat(manifest.created()).isBefore(Instant.now().plusSeconds(1));
        return manifest;
    }

    private List<DataFile> commitTable(String name, int fileCount)
    {
        List<DataFile> files = client.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(fileCount).setReplication(1).build())
                .getFilesList().stream()
                .map(FileAllocation::getFileId)
                .map(fileId -> DataFile.newBuilder()
                        .setFileId(fileId)
                        .setSizeBytes(4096)
                        .setRowCount(10)
                        .addReplicaNodeIds("node-a")
                        .setCompactStats(compactStats(10))
                        .setCrc32C(7)
                        .build())
                .toList();
        client.commitFiles(CommitFilesRequest.newBuilder()
                .setSchemaName("s")
                .setTableName(name)
                .addAllColumns(COLUMNS)
                .setCreateTable(true)
                .setMustCreate(true)
                .addAllFiles(files)
                .build());
        return files;
    }

    private GetTableFilesResponse tableFiles(String name)
    {
        TableInfo info = client.getTable(table(name));
        return client.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(info.getTableId()).build());
    }

    private static GetTableRequest table(String name)
    {
        return GetTableRequest.newBuilder().setSchemaName("s").setTableName(name).build();
    }

    private static RegisterNodeRequest registration()
    {
        return RegisterNodeRequest.newBuilder()
                .setNodeId("node-a")
                .setAddress("127.0.0.1:17001")
                .setCapacityBytes(10L << 30)
                .setFreeBytes(8L << 30)
                .build();
    }

    private void start(Path dataDir)
    {
        server = MetadataServer.start(ImmutableMap.of(
                "metadata.data-dir", dataDir.toString(),
                "metadata.grpc-port", "0",
                "metadata.http-port", "0",
                // the catalog's behaviour, one client playing every role: TestMetadataSecurity covers roles
                "metadata.tls.insecure", "true"));
        channel = GrpcChannels.forAddress("127.0.0.1:" + server.grpcPort(), TransportSecurity.insecure());
        client = MetadataServiceGrpc.newBlockingStub(channel);
    }

    private void stop()
    {
        if (channel != null) {
            GrpcChannels.close(channel);
            channel = null;
        }
        if (server != null) {
            server.close();
            server = null;
        }
    }

    private static List<Path> filesIn(Path directory)
            throws IOException
    {
        if (!Files.exists(directory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.toList();
        }
    }
}
