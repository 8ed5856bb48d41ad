package io.nsc.storage.reclaim;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
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
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.storage.membership.ClusterIdentity;
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
import java.util.stream.Stream;

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
    private static final String CLUSTER_A = "0a0a0a0a-0000-4000-8000-00000000000a";
    private static final String CLUSTER_B = "0b0b0b0b-0000-4000-8000-00000000000b";

    @TempDir
    private Path disk;
    @TempDir
    private Path disk2;

    private final FakeMetadataService metadata = new FakeMetadataService();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private ServiceEndpoints metadataEndpoints;
    private byte[] data;

    @BeforeEach
    void setUp()
    {
        metadataEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(metadata), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
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
        // the channel repeats the call on UNAVAILABLE (it is safe to): every attempt asks about the first batch only
        assertThat(metadata.requests).isNotEmpty();
        assertThat(Set.copyOf(metadata.requests)).hasSize(1);

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

    @Test
    void testAnswerOfAnotherClusterDeletesNothing()
            throws IOException
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(disk));
        for (int i = 0; i < 4; i++) {
            store(store, randomFileId(), LONG_AGO);
        }
        ClusterIdentity identity = joinedIdentity();
        OrphanReclaimer reclaimer = reclaimer(store, identity, 2);

        // the service was replaced by one on an empty catalog: every file is an "orphan" to it
        metadata.answer(request -> FindOrphansResponse.newBuilder().addAllOrphanFileIds(request.getFileIdsList()).setClusterId(CLUSTER_B).build());
        assertThat(reclaimer.reclaim()).isZero();
        assertThat(store.fileIds()).hasSize(4);
        // the channel repeats the call on UNAVAILABLE (it is safe to): every attempt asks about the first batch only
        assertThat(metadata.requests).isNotEmpty();
        assertThat(Set.copyOf(metadata.requests)).hasSize(1);
        assertThat(identity.isMismatch()).isTrue();
        assertThat(identity.getClusterIdMismatch()).isEqualTo(1);
        // later rounds do not even ask while the mismatch stands
        assertThat(reclaimer.reclaim()).isZero();
        assertThat(metadata.requests).hasSize(1);

        // the right service is back (a heartbeat answers the node's id): a round whose first
        // batch is answered by it and whose second by the other deletes only the first
        identity.answered(metadataAddress(), CLUSTER_A);
        assertThat(identity.isMismatch()).isFalse();
        metadata.requests.clear();
        metadata.answer(request -> FindOrphansResponse.newBuilder()
                .addAllOrphanFileIds(request.getFileIdsList())
                .setClusterId(metadata.requests.size() == 1 ? CLUSTER_A : CLUSTER_B)
                .build());
        assertThat(reclaimer.reclaim()).isEqualTo(2);
        assertThat(metadata.requests).hasSize(2);
        assertThat(store.fileIds()).hasSize(2);
        assertThat(identity.isMismatch()).isTrue();

        // an answer without any id (a service older than cluster ids) is not this cluster's either
        identity.answered(metadataAddress(), CLUSTER_A);
        metadata.answer(request -> FindOrphansResponse.newBuilder().addAllOrphanFileIds(request.getFileIdsList()).build());
        metadata.clusterId = "";
        assertThat(reclaimer.reclaim()).isZero();
        assertThat(store.fileIds()).hasSize(2);
        assertThat(identity.isMismatch()).isTrue();
    }

    @Test
    void testNodeOfAnotherClusterDeletesNothing()
            throws Exception
    {
        // the node's files belong to cluster A; the metadata service started on an empty data
        // dir is cluster B and calls every file an orphan
        Files.writeString(disk.resolve("cluster-id"), CLUSTER_A + "\n");
        String id = randomFileId();
        try (StorageServer standalone = StorageServer.start(properties("node-r", List.of(disk), Map.of()))) {
            ManagedChannel channel = channel(standalone);
            try {
                upload(channel, id, data);
            }
            finally {
                GrpcChannels.close(channel);
            }
        }
        backdate(id, LONG_AGO);
        metadata.clusterId = CLUSTER_B;
        metadata.answer(request -> FindOrphansResponse.newBuilder().addAllOrphanFileIds(request.getFileIdsList()).build());

        StorageServer server = startServer();
        StorageServiceBlockingStub storage = storage(server);
        awaitCondition("the node registers", () -> !metadata.registrations.isEmpty());
        awaitCondition("the node reports the mismatch", () -> nodeStats(storage).getClusterIdMismatch());
        // many reclaim intervals pass (heartbeats and rounds both run every 20 ms)
        int heartbeats = metadata.heartbeats.size();
        awaitCondition("ten heartbeats", () -> metadata.heartbeats.size() >= heartbeats + 10);

        assertThat(filesNamed(id)).hasSize(2);
        GetNodeStatsResponse stats = nodeStats(storage);
        assertThat(stats.getFilesDeleted()).isZero();
        assertThat(stats.getFileCount()).isEqualTo(1);
        assertThat(stats.getClusterId()).isEqualTo(CLUSTER_A);
        assertThat(stats.getClusterIdMismatch()).isTrue();
        assertThat(httpMetrics(server)).containsEntry("cluster_id_mismatch", "1").containsEntry("files_deleted", "0");
        ObjectName identity = new ObjectName("io.nsc.storage.membership:name=ClusterIdentity,node=node-r");
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(identity, "ClusterIdMismatch")).isEqualTo(1);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(identity, "ClusterId")).isEqualTo(CLUSTER_A);
        // nothing adopted: the data dir still says A
        assertThat(Files.readString(disk.resolve("cluster-id"))).isEqualTo(CLUSTER_A + "\n");
        // the file is served as before
        assertThat(storage.readRanges(ReadRangesRequest.newBuilder().setFileId(id).addRanges(ByteRange.newBuilder().setLength(4)).build()).next().getData())
                .isEqualTo(ByteString.copyFromUtf8("PAR1"));

        // the operator restarts the metadata service on the right data dir: the mismatch clears,
        // and the file, which that catalog calls an orphan too, goes
        metadata.clusterId = CLUSTER_A;
        awaitCondition("the mismatch clears", () -> !nodeStats(storage).getClusterIdMismatch());
        awaitCondition("the orphan is deleted", () -> nodeStats(storage).getFilesDeleted() == 1);
        assertThat(filesNamed(id)).isEmpty();
        assertThat(httpMetrics(server)).containsEntry("cluster_id_mismatch", "0");
    }

    @Test
    void testDataDirectoriesThatDisagreeAreRefused()
            throws Exception
    {
        // one disk of this node came from a node of another cluster
        Files.writeString(disk.resolve("cluster-id"), CLUSTER_A + "\n");
        Files.writeString(disk2.resolve("cluster-id"), CLUSTER_B + "\n");
        metadata.answer(request -> FindOrphansResponse.newBuilder().addAllOrphanFileIds(request.getFileIdsList()).build());

        StorageServer server = startServer(List.of(disk, disk2));
        StorageServiceBlockingStub storage = storage(server);
        ManagedChannel channel = channel(server);
        resources.add(() -> GrpcChannels.close(channel));
        String id = randomFileId();
        upload(channel, id, data);
        backdate(id, LONG_AGO);

        awaitCondition("the node registers", () -> !metadata.registrations.isEmpty());
        int heartbeats = metadata.heartbeats.size();
        awaitCondition("ten heartbeats", () -> metadata.heartbeats.size() >= heartbeats + 10);
        GetNodeStatsResponse stats = nodeStats(storage);
        assertThat(stats.getClusterIdMismatch()).isTrue();
        assertThat(stats.getClusterId()).isEmpty();
        assertThat(stats.getFilesDeleted()).isZero();
        assertThat(httpMetrics(server)).containsEntry("cluster_id_mismatch", "1");
        // it never asks, and adopts nothing, though the service is cluster A like one of the disks
        assertThat(metadata.requests).isEmpty();
        assertThat(Files.readString(disk.resolve("cluster-id"))).isEqualTo(CLUSTER_A + "\n");
        assertThat(Files.readString(disk2.resolve("cluster-id"))).isEqualTo(CLUSTER_B + "\n");
        assertThat(filesUnder(disk.resolve("files")).size() + filesUnder(disk2.resolve("files")).size()).isEqualTo(2);
    }

    private StorageServer startServer()
    {
        return startServer(List.of(disk));
    }

    private StorageServer startServer(List<Path> dataDirs)
    {
        StorageServer server = StorageServer.start(properties("node-r", dataDirs, Map.of(
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
        return reclaimer(store, joinedIdentity(), batchSize);
    }

    private OrphanReclaimer reclaimer(ParquetFileStore store, ClusterIdentity identity, int batchSize)
    {
        OrphanReclaimer reclaimer = new OrphanReclaimer("node-r", MetadataAddresses.parse(metadataAddress()), TransportSecurity.insecure(), store, identity, Duration.ofHours(1), MIN_AGE, Clock.systemUTC(), batchSize);
        resources.add(reclaimer);
        return reclaimer;
    }

    /** The identity of a node whose first registration answered the fake's cluster id. */
    private ClusterIdentity joinedIdentity()
    {
        ClusterIdentity identity = ClusterIdentity.load(List.of(disk));
        identity.registered(metadataAddress(), metadata.clusterId, 0);
        assertThat(identity.clusterIdForReclaim()).contains(metadata.clusterId);
        return identity;
    }

    private String metadataAddress()
    {
        return "127.0.0.1:" + metadataEndpoints.grpcPort();
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
        return Stream.concat(filesUnder(disk.resolve("files")).stream(), filesUnder(disk2.resolve("files")).stream())
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
     * quietly alongside. Every answer carries {@link #clusterId}, unless a FindOrphans answer set
     * its own.
     */
    private static final class FakeMetadataService
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        private final List<FindOrphansRequest> requests = new CopyOnWriteArrayList<>();
        private final List<RegisterNodeRequest> registrations = new CopyOnWriteArrayList<>();
        private final List<HeartbeatRequest> heartbeats = new CopyOnWriteArrayList<>();
        private volatile Function<FindOrphansRequest, FindOrphansResponse> answer = _ -> FindOrphansResponse.getDefaultInstance();
        private volatile String clusterId = CLUSTER_A;

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
                if (response.getClusterId().isEmpty()) {
                    response = response.toBuilder().setClusterId(clusterId).build();
                }
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
            registrations.add(request);
            // short, so that tests can count heartbeats to let time pass
            responseObserver.onNext(RegisterNodeResponse.newBuilder().setHeartbeatIntervalMillis(20).setClusterId(clusterId).build());
            responseObserver.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> responseObserver)
        {
            heartbeats.add(request);
            responseObserver.onNext(HeartbeatResponse.newBuilder().setKnown(true).setClusterId(clusterId).build());
            responseObserver.onCompleted();
        }
    }
}
