package io.nsc.storage.membership;

import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.KillableProxy;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.HeartbeatResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.RegisterNodeResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.storage.server.StorageServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.filesUnder;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.metrics;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static org.assertj.core.api.Assertions.assertThat;

final class TestMembership
{
    private static final long HEARTBEAT_INTERVAL_MILLIS = 20;
    private static final String CLUSTER_ID = "c1c1c1c1-0000-4000-8000-0000000000c1";

    @TempDir
    private Path disk;
    @TempDir
    private Path disk2;
    @TempDir
    private Path disk3;

    private final FakeMetadataService metadata = new FakeMetadataService();
    private ServiceEndpoints metadataEndpoints;

    @AfterEach
    void tearDown()
    {
        if (metadataEndpoints != null) {
            metadataEndpoints.close();
        }
    }

    @Test
    void testRegisterHeartbeatAndRegisterAgain()
    {
        metadataEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(metadata), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());

        // a file the node already holds when it starts must be in its registration
        String existingId = randomFileId();
        try (StorageServer standalone = StorageServer.start(properties("node-a", List.of(disk), Map.of()))) {
            uploadFixture(standalone, existingId);
        }

        try (StorageServer server = StorageServer.start(properties("node-a", List.of(disk), Map.of(
                "storage.metadata-address", "127.0.0.1:" + metadataEndpoints.grpcPort(),
                "storage.advertised-host", "storage-a.example.com")))) {
            awaitCondition("the node registers", () -> !metadata.registrations.isEmpty());
            RegisterNodeRequest registration = metadata.registrations.getFirst();
            assertThat(registration.getNodeId()).isEqualTo("node-a");
            assertThat(registration.getAddress()).isEqualTo("storage-a.example.com:" + server.grpcPort());
            assertThat(registration.getCapacityBytes()).isPositive();
            assertThat(registration.getFreeBytes()).isPositive().isLessThanOrEqualTo(registration.getCapacityBytes());
            assertThat(registration.getFileIdsList()).containsExactly(existingId);

            awaitCondition("the node heartbeats", () -> metadata.heartbeats.size() >= 2);
            HeartbeatRequest heartbeat = metadata.heartbeats.getLast();
            assertThat(heartbeat.getNodeId()).isEqualTo("node-a");
            assertThat(heartbeat.getFileCount()).isEqualTo(1);
            assertThat(heartbeat.getFreeBytes()).isPositive();
            assertThat(heartbeat.getLoad()).isBetween(0.0, 1.0);

            // the metadata service restarts and forgets the node, which meanwhile got another file
            String newId = randomFileId();
            uploadFixture(server, newId);
            metadata.forget();
            awaitCondition("the node registers again", () -> metadata.registrations.size() == 2);
            assertThat(metadata.registrations.get(1).getFileIdsList()).containsExactlyInAnyOrder(existingId, newId);

            int heartbeats = metadata.heartbeats.size();
            awaitCondition("heartbeats go on", () -> metadata.heartbeats.size() > heartbeats);
            assertThat(metadata.heartbeats.getLast().getFileCount()).isEqualTo(2);
            assertThat(metadata.registrations).hasSize(2);
        }
        // a pool's worker is still alive for a moment after the pool reports it terminated
        awaitCondition("the membership thread ends", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(thread -> thread.getName().startsWith("nsc-membership") && thread.isAlive()));
    }

    @Test
    void testStartsBeforeMetadataService()
            throws IOException
    {
        int metadataPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            metadataPort = socket.getLocalPort();
        }
        try (StorageServer server = StorageServer.start(properties("node-b", List.of(disk), Map.of(
                "storage.metadata-address", "127.0.0.1:" + metadataPort)))) {
            // serving right away, without the metadata service
            assertThat(metrics(server)).containsEntry("metadata_reachable", 0L);
            ManagedChannel channel = channel(server);
            try {
                assertThat(StorageServiceGrpc.newBlockingStub(channel).getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getNodeId()).isEqualTo("node-b");
            }
            finally {
                GrpcChannels.close(channel);
            }

            metadataEndpoints = ServiceEndpoints.start("127.0.0.1", metadataPort, 0, List.of(metadata), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
            awaitCondition("the node registers once the metadata service is up", () -> !metadata.registrations.isEmpty());
            assertThat(metadata.registrations.getFirst().getAddress()).isEqualTo("127.0.0.1:" + server.grpcPort());
            awaitCondition("the node heartbeats", () -> !metadata.heartbeats.isEmpty());
            assertThat(metrics(server)).containsEntry("metadata_reachable", 1L);

            // gone again: the node says so at its next beat
            metadataEndpoints.close();
            metadataEndpoints = null;
            awaitCondition("the node notices the service is gone", () -> metrics(server).get("metadata_reachable") == 0L);
        }
    }

    @Test
    void testAdoptsClusterIdIntoEveryDataDirectory()
            throws Exception
    {
        metadataEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(metadata), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
        Map<String, String> withMetadata = Map.of("storage.metadata-address", "127.0.0.1:" + metadataEndpoints.grpcPort());

        // a node from before cluster ids: it holds a file, and no data dir has an id
        String existingId = randomFileId();
        try (StorageServer standalone = StorageServer.start(properties("node-c", List.of(disk, disk2), Map.of()))) {
            uploadFixture(standalone, existingId);
        }
        assertThat(disk.resolve("cluster-id")).doesNotExist();

        try (StorageServer server = StorageServer.start(properties("node-c", List.of(disk, disk2), withMetadata))) {
            awaitCondition("the node adopts the cluster id", () -> nodeStats(server).getClusterId().equals(CLUSTER_ID));
            assertThat(nodeStats(server).getClusterIdMismatch()).isFalse();
            assertThat(metadata.registrations.getFirst().getFileIdsList()).containsExactly(existingId);
        }
        for (Path dataDir : List.of(disk, disk2)) {
            assertThat(Files.readString(dataDir.resolve("cluster-id"))).isEqualTo(CLUSTER_ID + "\n");
            // written through a temporary file, which is gone
            assertThat(filesUnder(dataDir.resolve("tmp"))).isEmpty();
        }

        // restarted with a new, empty disk: the id comes from the old ones, and the new disk gets
        // it once the metadata service has confirmed it
        int registrations = metadata.registrations.size();
        try (StorageServer server = StorageServer.start(properties("node-c", List.of(disk, disk2, disk3), withMetadata))) {
            assertThat(nodeStats(server).getClusterId()).isEqualTo(CLUSTER_ID);
            awaitCondition("the node registers", () -> metadata.registrations.size() > registrations);
            awaitCondition("the new disk gets the id", () -> Files.exists(disk3.resolve("cluster-id")));
            assertThat(Files.readString(disk3.resolve("cluster-id"))).isEqualTo(CLUSTER_ID + "\n");
            assertThat(nodeStats(server).getClusterIdMismatch()).isFalse();
        }
    }

    @Test
    void testFailsOverToTheNextMetadataService()
    {
        // two instances of one cluster; the second knows the node only once it registers there
        FakeMetadataService second = new FakeMetadataService();
        metadataEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(metadata), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
        try (ServiceEndpoints secondEndpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(second), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
                KillableProxy firstProcess = KillableProxy.start(metadataEndpoints.grpcPort());
                StorageServer server = StorageServer.start(properties("node-f", List.of(disk), Map.of(
                        "storage.metadata-address", firstProcess.address() + ",127.0.0.1:" + secondEndpoints.grpcPort())))) {
            awaitCondition("the node heartbeats to the first", () -> metadata.heartbeats.size() >= 2);
            assertThat(metadata.registrations).hasSize(1);
            assertThat(second.registrations).isEmpty();
            assertThat(second.heartbeats).isEmpty();

            firstProcess.kill();
            awaitCondition("the node registers with the second", () -> !second.registrations.isEmpty());
            awaitCondition("and heartbeats to it", () -> second.heartbeats.size() >= 2);
            assertThat(second.registrations.getFirst().getNodeId()).isEqualTo("node-f");
            // the same cluster id from another instance is no mismatch
            assertThat(nodeStats(server).getClusterId()).isEqualTo(CLUSTER_ID);
            assertThat(nodeStats(server).getClusterIdMismatch()).isFalse();
            assertThat(metadata.registrations).hasSize(1);
        }
    }

    @Test
    void testRetryDelay()
    {
        Duration slowBeats = Duration.ofMinutes(1);
        assertThat(MembershipClient.retryDelay(1, slowBeats)).isEqualTo(Duration.ofMillis(100));
        assertThat(MembershipClient.retryDelay(2, slowBeats)).isEqualTo(Duration.ofMillis(200));
        assertThat(MembershipClient.retryDelay(5, slowBeats)).isEqualTo(Duration.ofMillis(1600));
        assertThat(MembershipClient.retryDelay(8, slowBeats)).isEqualTo(Duration.ofSeconds(10));
        assertThat(MembershipClient.retryDelay(1000, slowBeats)).isEqualTo(Duration.ofSeconds(10));
        // never longer than a beat: a restarted service hears from the node before it times the node out
        Duration beats = Duration.ofSeconds(5);
        assertThat(MembershipClient.retryDelay(6, beats)).isEqualTo(Duration.ofMillis(3200));
        assertThat(MembershipClient.retryDelay(7, beats)).isEqualTo(Duration.ofSeconds(5));
        assertThat(MembershipClient.retryDelay(1000, beats)).isEqualTo(Duration.ofSeconds(5));
    }

    private static GetNodeStatsResponse nodeStats(StorageServer server)
    {
        ManagedChannel channel = channel(server);
        try {
            return StorageServiceGrpc.newBlockingStub(channel).getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    private static void uploadFixture(StorageServer server, String id)
    {
        ManagedChannel channel = channel(server);
        try {
            upload(channel, id, fixture("sorted_ints.parquet"));
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    /** Records what nodes tell it; like the real service, it knows a node from its registration on. */
    private static final class FakeMetadataService
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        private final List<RegisterNodeRequest> registrations = new CopyOnWriteArrayList<>();
        private final List<HeartbeatRequest> heartbeats = new CopyOnWriteArrayList<>();
        private final AtomicBoolean known = new AtomicBoolean();

        void forget()
        {
            known.set(false);
        }

        @Override
        public void registerNode(RegisterNodeRequest request, StreamObserver<RegisterNodeResponse> responseObserver)
        {
            registrations.add(request);
            known.set(true);
            responseObserver.onNext(RegisterNodeResponse.newBuilder().setHeartbeatIntervalMillis(HEARTBEAT_INTERVAL_MILLIS).setClusterId(CLUSTER_ID).build());
            responseObserver.onCompleted();
        }

        @Override
        public void heartbeat(HeartbeatRequest request, StreamObserver<HeartbeatResponse> responseObserver)
        {
            heartbeats.add(request);
            responseObserver.onNext(HeartbeatResponse.newBuilder().setKnown(known.get()).setClusterId(CLUSTER_ID).build());
            responseObserver.onCompleted();
        }
    }
}
