package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import com.sun.security.auth.module.UnixSystem;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import static io.nsc.storage.server.StorageTesting.await;
import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.completing;
import static io.nsc.storage.server.StorageTesting.filesUnder;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.metrics;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A storage node on a real, small file system (an 8 MB tmpfs) that uploads fill: concurrent
 * uploads race for the last free bytes, and a disk that fills up under an upload. Running as root,
 * the test mounts the tmpfs itself; otherwise mount a small file system and name it with
 * {@code -Dnsc.test.small-filesystem=DIR}. Without either it fails: it never passes untried.
 */
final class TestFullDisk
{
    private static final long MB = 1024 * 1024;
    private static final String FILESYSTEM_PROPERTY = "nsc.test.small-filesystem";

    private static Path fileSystem;
    private static boolean mounted;
    private static byte[] threeMegabytes;

    private StorageServer server;
    private ManagedChannel channel;
    private Path dataDir;

    @BeforeAll
    static void mountSmallFileSystem()
            throws Exception
    {
        String provided = System.getProperty(FILESYSTEM_PROPERTY);
        if (provided != null) {
            fileSystem = Path.of(provided);
        }
        else {
            if (new UnixSystem().getUid() != 0) {
                fail("TestFullDisk needs a small file system to fill: run the tests as root (the test then mounts an 8 MB tmpfs), "
                        + "or mount one yourself (sudo mount -t tmpfs -o size=8m tmpfs DIR) and pass -D%s=DIR".formatted(FILESYSTEM_PROPERTY));
            }
            fileSystem = Files.createTempDirectory("nsc-full-disk");
            run("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", fileSystem.toString());
            mounted = true;
        }
        FileStore store = Files.getFileStore(fileSystem);
        if (store.getTotalSpace() > 64 * MB) {
            fail("%s has %s bytes: TestFullDisk fills it, so it must be small (at most 64 MB)".formatted(fileSystem, store.getTotalSpace()));
        }
        threeMegabytes = randomBigints(Files.createTempFile("nsc-full-disk", ".parquet"), 400_000);
        assertThat((long) threeMegabytes.length).isBetween(3 * MB, 3 * MB + MB / 4);
    }

    @AfterAll
    static void unmount()
            throws Exception
    {
        if (mounted) {
            run("umount", fileSystem.toString());
            Files.delete(fileSystem);
        }
    }

    @AfterEach
    void stopNode()
            throws IOException
    {
        if (channel != null) {
            GrpcChannels.close(channel);
        }
        if (server != null) {
            server.close();
        }
        if (dataDir != null) {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    @Test
    void testConcurrentUploadsRaceForTheLastBytes()
            throws Exception
    {
        startNode();
        long room = metrics(server).get("free_bytes");
        // 8 MB less 1 MB kept free: room for two of the 3 MB files, not three
        assertThat(room).isBetween(2 * (long) threeMegabytes.length, 3L * threeMegabytes.length - 1);

        int uploads = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<UploadResponse>> results = new ArrayList<>();
        try (ExecutorService executor = Executors.newFixedThreadPool(uploads)) {
            for (int i = 0; i < uploads; i++) {
                results.add(executor.submit(() -> {
                    start.await();
                    return upload(channel, randomFileId(), "race.parquet", threeMegabytes, threeMegabytes.length, 256 * 1024);
                }));
            }
            start.countDown();
        }
        int stored = 0;
        for (Future<UploadResponse> result : results) {
            try {
                assertThat(result.get().getSizeBytes()).isEqualTo(threeMegabytes.length);
                stored++;
            }
            catch (java.util.concurrent.ExecutionException e) {
                // not INTERNAL from a write that hit the wall: refused up front, with the reason
                assertThat(e.getCause()).isInstanceOfSatisfying(StatusRuntimeException.class, status -> {
                    assertThat(status.getStatus().getCode()).as(status.getStatus().toString()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(status.getStatus().getDescription()).contains("No data directory has room for file");
                });
            }
        }
        assertThat(stored).isEqualTo(2);
        assertThat(filesUnder(dataDir.resolve("tmp"))).isEmpty();
        assertThat(filesUnder(dataDir.resolve("files"))).filteredOn(path -> path.toString().endsWith(".parquet")).hasSize(2);
        Map<String, Long> metrics = metrics(server);
        assertThat(metrics).containsEntry("upload_reserved_bytes", 0L).containsEntry("file_count", 2L);
        assertThat(metrics.get("free_bytes")).isLessThan((long) threeMegabytes.length);
    }

    @Test
    void testDiskFilledUnderAnUpload()
            throws Exception
    {
        startNode();
        String id = randomFileId();
        CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        StreamObserver<UploadRequest> requests = StorageServiceGrpc.newStub(channel).upload(completing(result));
        requests.onNext(UploadRequest.newBuilder()
                .setHeader(UploadHeader.newBuilder().setFileId(id).setSizeBytes(threeMegabytes.length).setDisplayName("victim.parquet"))
                .build());
        awaitCondition("the upload is admitted", () -> !filesUnder(dataDir.resolve("tmp")).isEmpty());
        assertThat(metrics(server)).containsEntry("upload_reserved_bytes", (long) threeMegabytes.length);

        // something else takes every byte the upload counted on
        Path filler = fileSystem.resolve("filler-" + System.nanoTime());
        fill(filler);
        for (int offset = 0; offset < threeMegabytes.length; offset += 256 * 1024) {
            requests.onNext(UploadRequest.newBuilder()
                    .setData(ByteString.copyFrom(threeMegabytes, offset, Math.min(256 * 1024, threeMegabytes.length - offset)))
                    .build());
        }
        requests.onCompleted();
        try {
            await(result);
            fail("the upload succeeded on a full disk");
        }
        catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(e.getStatus().getDescription())
                    .startsWith("Upload of victim.parquet (file %s): data directory %s ran out of space while writing".formatted(id, dataDir))
                    .endsWith("the partial file is deleted: place the replica on another node");
        }
        // nothing half-written stays, and the reservation is returned
        assertThat(filesUnder(dataDir.resolve("tmp"))).isEmpty();
        assertThat(filesUnder(dataDir.resolve("files"))).isEmpty();
        assertThat(metrics(server)).containsEntry("upload_reserved_bytes", 0L).containsEntry("file_count", 0L);

        // once there is room again the node takes the file
        Files.delete(filler);
        assertThat(upload(channel, id, "victim.parquet", threeMegabytes, threeMegabytes.length, 256 * 1024).getSizeBytes()).isEqualTo(threeMegabytes.length);
        assertThat(upload(channel, randomFileId(), fixture("all_types.parquet")).getRowCount()).isEqualTo(9);
    }

    private void startNode()
            throws IOException
    {
        dataDir = Files.createDirectory(fileSystem.resolve("node-" + System.nanoTime()));
        server = StorageServer.start(properties("full-disk-node", List.of(dataDir), ImmutableMap.of("storage.reserved-space", "1MB")));
        channel = channel(server);
    }

    /** Writes to {@code file} until the file system is full. */
    private static void fill(Path file)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, CREATE_NEW, WRITE)) {
            ByteBuffer block = ByteBuffer.allocate(64 * 1024);
            while (true) {
                block.clear();
                channel.write(block);
            }
        }
        catch (IOException e) {
            assertThat(e.getMessage()).contains("No space left on device");
        }
        assertThat(Files.getFileStore(file).getUsableSpace()).isLessThan(64 * 1024);
    }

    private static byte[] randomBigints(Path path, int rows)
            throws Exception
    {
        Random random = new Random(7);
        BlockBuilder values = BIGINT.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            BIGINT.writeLong(values, random.nextLong());
        }
        Files.delete(path);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, List.of("value"), List.of(BIGINT), CompressionCodec.UNCOMPRESSED)) {
            writer.writeRowGroup(new Page(values.build()));
        }
        byte[] bytes = Files.readAllBytes(path);
        Files.delete(path);
        return bytes;
    }

    private static void run(String... command)
            throws Exception
    {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), UTF_8);
        if (process.waitFor() != 0) {
            fail("%s failed: %s".formatted(String.join(" ", command), output));
        }
    }
}
