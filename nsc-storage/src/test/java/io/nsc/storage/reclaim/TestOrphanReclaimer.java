package io.nsc.storage.reclaim;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.FindOrphansRequest;
import io.nsc.protocol.proto.FindOrphansResponse;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.storage.server.StorageServer;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.ObjectName;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.filesUnder;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

/**
 * Orphan reclaim against a fake metadata service: rounds driven by hand where the order of
 * calls matters, and a real node on short intervals for the whole path. Files are made "old"
 * by setting their modification time back, never by waiting.
 */
final class TestOrphanReclaimer
{
    private static final Duration MIN_AGE = Duration.ofMinutes(10);
    private static final Duration LONG_AGO = Duration.ofHours(2);

    @TempDir
    private Path disk;

    private final FakeMetadataService metadata = new FakeMetadataService();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ServiceEndpoints metadataEndpoints;
    private byte[] data;

    @BeforeEach
    void setUp()
    {
        metadataEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(metadata), Map::of);
        data = fixture("sorted_ints.parquet");
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
        metadataEndpoints.close();
    }

    @Test
    void testAsksInBatchesAboutOldFilesOnly()
            throws IOException
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(disk));
        List<String> old = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            old.add(store(store, randomFileId(), LONG_AGO));
        }
        String young = store(store, randomFileId(), MIN_AGE.minusMinutes(1));
        String orphanOne = old.get(0);
        String orphanTwo = old.get(3);
        metadata.answerOrphans(Set.of(orphanOne, orphanTwo, young));

        assertThat(reclaimer(store, 2).reclaim()).isEqualTo(2);

        assertThat(metadata.requests).hasSize(3);
        assertThat(metadata.requests).extracting(FindOrphansRequest::getFileIdsCount).containsExactly(2, 2, 1);
        assertThat(metadata.requests).extracting(FindOrphansRequest::getNodeId).containsOnly("node-r");
        // a file younger than the minimum age is never offered, whatever the service would say
        assertThat(metadata.askedIds()).containsExactlyInAnyOrderElementsOf(old);
        assertThat(store.fileIds()).extracting(FileId::value).containsExactlyInAnyOrder(old.get(1), old.get(2), old.get(4), young);
        assertThat(filesUnder(disk.resolve("files")))
                .extracting(path -> path.getFileName().toString())
                .noneMatch(name -> name.startsWith(orphanOne) || name.startsWith(orphanTwo))
                .hasSize(2 * 4);
        assertThat(store.getFilesDeleted().getTotalCount()).isEqualTo(2);
        assertThat(store.getBytesDeleted().getTotalCount()).isEqualTo(2L * data.length);
    }

    @Test
    void testDeletesOnlyWhatItAskedAbout()
            throws IOException
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(disk));
        String asked = store(store, randomFileId(), LONG_AGO);
        String young = store(store, randomFileId(), Duration.ZERO);
        // a confused service names a file the node did not ask about
        metadata.answer(_ -> FindOrphansResponse.newBuilder().addOrphanFileIds(young).addOrphanFileIds("not an id").build());

        assertThat(reclaimer(store, 10).reclaim()).isZero();
        assertThat(metadata.askedIds()).containsExactly(asked);
        assertThat(store.fileIds()).hasSize(2);
        assertThat(store.getFilesDeleted().getTotalCount()).isZero();
    }

    @Test
    void testStopsAtTheFirstFailedCall()
            throws IOException
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(disk));
        for (int i = 0; i < 4; i++) {
            store(store, randomFileId(), LONG_AGO);
        }
        OrphanReclaimer reclaimer = reclaimer(store, 2);

        metadata.answer(_ -> {
            throw Status.UNAVAILABLE.withDescription("metadata service is starting").asRuntimeException();
        });
        assertThatThrownBy(reclaimer::reclaim)
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(store.fileIds()).hasSize(4);
        assertThat(metadata.requests).hasSize(1);

        // the first batch is answered (every id is an orphan), the second fails: only the first batch goes
        metadata.requests.clear();
        metadata.answer(request -> {
            if (metadata.requests.size() > 1) {
                throw Status.INTERNAL.withDescription("boom").asRuntimeException();
            }
            return FindOrphansResponse.newBuilder().addAllOrphanFileIds(request.getFileIdsList()).build();
        });
        assertThatThrownBy(reclaimer::reclaim).isInstanceOf(StatusRuntimeException.class);
        assertThat(store.fileIds()).hasSize(2);
        assertThat(store.getFilesDeleted().getTotalCount()).isEqualTo(2);
    }

    @Test
    void testNodeReclaimsOrphans()
            throws Exception
    {
        StorageServer server = startServer();
        StorageServiceBlockingStub storage = storage(server);
        String orphan = randomFileId();
        String claimed = randomFileId();
        String young = randomFileId();
        ManagedChannel channel = channel(server);
        resources.add(() -> GrpcChannels.close(channel));
        for (String id : List.of(orphan, claimed, young)) {
            upload(channel, id, data);
        }
        metadata.answerOrphans(Set.of(orphan, young));
        // claimed first: a round that finds the orphan old finds the claimed file old too
        backdate(claimed, LONG_AGO);
        backdate(orphan, LONG_AGO);

        awaitCondition("the orphan is deleted", () -> nodeStats(storage).getFilesDeleted() == 1);
        assertThat(metadata.askedIds()).contains(orphan, claimed).doesNotContain(young);
        assertThat(filesNamed(orphan)).isEmpty();
        assertThat(filesNamed(claimed)).hasSize(2);
        assertThat(filesNamed(young)).hasSize(2);

        GetNodeStatsResponse stats = nodeStats(storage);
        assertThat(stats.getFileCount()).isEqualTo(2);
        assertThat(stats.getBytesDeleted()).isEqualTo(data.length);
        assertThat(httpMetrics(server))
                .containsEntry("files_deleted", "1")
                .containsEntry("bytes_deleted", String.valueOf(data.length))
                .containsEntry("file_count", "2");
        ObjectName store = new ObjectName("io.nsc.storage.store:name=ParquetFileStore,node=node-r");
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(store, "FilesDeleted.TotalCount")).isEqualTo(1L);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(store, "BytesDeleted.TotalCount")).isEqualTo((long) data.length);

        // the deleted file is gone for readers; the others are served as before
        assertNotFound(() -> storage.readRanges(ReadRangesRequest.newBuilder().setFileId(orphan).addRanges(ByteRange.newBuilder().setLength(4)).build()).next());
        assertNotFound(() -> storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(orphan).build()));
        assertThat(storage.readRanges(ReadRangesRequest.newBuilder().setFileId(claimed).addRanges(ByteRange.newBuilder().setLength(4)).build()).next().getData())
                .isEqualTo(ByteString.copyFromUtf8("PAR1"));

        // later rounds find nothing more to delete
        int calls = metadata.requests.size();
        awaitCondition("two more rounds", () -> metadata.requests.size() >= calls + 2);
        assertThat(nodeStats(storage).getFilesDeleted()).isEqualTo(1);
    }

    @Test
    void testNodeDeletesNothingWhileTheServiceFails()
            throws Exception
    {
        StorageServer server = startServer();
        StorageServiceBlockingStub storage = storage(server);
        ManagedChannel channel = channel(server);
        resources.add(() -> GrpcChannels.close(channel));
        metadata.answer(_ -> {
            throw Status.UNAVAILABLE.asRuntimeException();
        });
        String id = randomFileId();
        upload(channel, id, data);
        backdate(id, LONG_AGO);
        int calls = metadata.requests.size();

        awaitCondition("several rounds that ask about the file", () -> metadata.requests.size() >= calls + 3);
        assertThat(filesNamed(id)).hasSize(2);
        assertThat(nodeStats(storage).getFilesDeleted()).isZero();

        // once the service answers again, the orphan goes
        metadata.answerOrphans(Set.of(id));
        awaitCondition("the orphan is deleted", () -> nodeStats(storage).getFilesDeleted() == 1);
        assertThat(filesNamed(id)).isEmpty();
    }

    private StorageServer startServer()
    {
        StorageServer server = StorageServer.start(properties("node-r", List.of(disk), Map.of(
                "storage.metadata-address", "127.0.0.1:" + metadataEndpoints.grpcPort(),
                "storage.orphan-check-interval", "20ms",
                "storage.orphan-min-age", MIN_AGE.toMinutes() + "m")));
        resources.add(server);
        return server;
    }

    private StorageServiceBlockingStub storage(StorageServer server)
    {
        ManagedChannel channel = channel(server);
        resources.add(() -> GrpcChannels.close(channel));
        return StorageServiceGrpc.newBlockingStub(channel);
    }

    private OrphanReclaimer reclaimer(ParquetFileStore store, int batchSize)
    {
        OrphanReclaimer reclaimer = new OrphanReclaimer("node-r", "127.0.0.1:" + metadataEndpoints.grpcPort(), store, Duration.ofHours(1), MIN_AGE, Clock.systemUTC(), batchSize);
        resources.add(reclaimer);
        return reclaimer;
    }

    /** Stores the fixture under {@code id} as if its upload ended {@code age} ago. */
    private String store(ParquetFileStore store, String id, Duration age)
            throws IOException
    {
        try (FileUpload upload = store.beginUpload(new FileId(id), data.length, "test.parquet")) {
            upload.write(ByteString.copyFrom(data));
            upload.finish();
        }
        Files.setLastModifiedTime(store.require(new FileId(id)).path(), FileTime.from(Instant.now().minus(age)));
        return id;
    }

    private void backdate(String id, Duration age)
            throws IOException
    {
        Path path = filesNamed(id).stream()
                .filter(file -> file.getFileName().toString().endsWith(".parquet"))
                .findFirst()
                .orElseThrow();
        Files.setLastModifiedTime(path, FileTime.from(Instant.now().minus(age)));
    }

    private List<Path> filesNamed(String id)
    {
        return filesUnder(disk.resolve("files")).stream()
                .filter(path -> path.getFileName().toString().startsWith(id + "."))
                .toList();
    }

    private static GetNodeStatsResponse nodeStats(StorageServiceBlockingStub storage)
    {
        return storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
    }

    private static void assertNotFound(Runnable call)
    {
        assertThatThrownBy(call::run)
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).contains("not found on this node"));
    }

    private static Map<String, String> httpMetrics(StorageServer server)
            throws IOException, InterruptedException
    {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:%s/v1/metrics".formatted(server.httpPort()))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            return response.body().lines()
                    .map(line -> line.split(" "))
                    .collect(toMap(parts -> parts[0], parts -> parts[1]));
        }
    }

    /**
     * Answers FindOrphans as told (by default: the configured orphans among the ids asked about),
     * and registrations and heartbeats as the real service would, so the node's membership runs
     * quietly alongside.
     */
    private static final class FakeMetadataService
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        private final List<FindOrphansRequest> requests = new CopyOnWriteArrayList<>();
        private volatile Function<FindOrphansRequest, FindOrphansResponse> answer = _ -> FindOrphansResponse.getDefaultInstance();

        void answer(Function<FindOrphansRequest, FindOrphansResponse> answer)
        {
            this.answer = answer;
        }

        void answerOrphans(Set<String> orphans)
        {
            answer(request -> FindOrphansResponse.newBuilder()
                    .addAllOrphanFileIds(request.getFileIdsList().stream().filter(orphans::contains).toList())
                    .build());
        }

        Set<String> askedIds()
        {
            Set<String> ids = new HashSet<>();
            requests.forEach(request -> ids.addAll(request.getFileIdsList()));
            return ids;
        }

        @Override
        public void findOrphans(FindOrphansRequest request, StreamObserver<FindOrphansResponse> responseObserver)
        {
            requests.add(request);
            FindOrphansResponse response;
            try {
                response = answer.apply(request);
            }
            catch (StatusRuntimeException e) {
                responseObserver.onError(e);
                return;
            }
            responseObserver.onNext(response);
            responseObserver.onCompleted();
        }

        @Override
        public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> responseObserver)
        {
            responseObserver.onNext(RegisterNodeResponse.newBuilder().setHeartbeatIntervalMillis(1000).build());
            responseObserver.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> responseObserver)
        {
            responseObserver.onNext(HeartbeatResponse.newBuilder().setKnown(true).build());
            responseObserver.onCompleted();
        }
    }
}
