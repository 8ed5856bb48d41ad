package io.nsc.trino.write;

import com.google.common.io.MoreFiles;
import com.google.protobuf.ByteString;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.write.LocalParquetFile.Written;
import io.trino.spi.TrinoException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32C;

import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.NscErrorCode.NSC_STORAGE_ERROR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Replica replacement of the page sink's uploads, against fake storage nodes that store or refuse
 * as told and a fake metadata service that hands out the nodes it is given: which failures are
 * routed around, what the fragment then names, and what a write that cannot store enough
 * replicas says.
 */
final class TestReplicaUploader
{
    private static final long ROWS = 10;
    private static final ByteString STATS = ByteString.copyFromUtf8("compact stats");

    private final List<Server> servers = new ArrayList<>();
    private final List<ReplicaUploader> uploaders = new ArrayList<>();
    private final Map<String, StorageNode> nodes = new ConcurrentHashMap<>();
    // what each fake node was asked to store: the grant's node id of every upload it received
    private final Map<String, List<String>> uploadsReceived = new ConcurrentHashMap<>();
    private final List<ReplaceReplicaRequest> replaceRequests = new CopyOnWriteArrayList<>();
    private final Deque<StorageNode> spares = new ArrayDeque<>();
    private List<StorageNode> allocatable = List.of();

    private Path directory;
    private Written file;
    private NscMetadataClient metadataClient;
    private StorageClients storageClients;

    @BeforeEach
    void setUp()
            throws IOException
    {
        directory = Files.createTempDirectory("nsc-replica-uploader");
        // three 1 MiB messages and a bit: a refusal can arrive while the file is still streaming
        byte[] bytes = new byte[(3 << 20) + 12345];
        new Random(42).nextBytes(bytes);
        Path path = directory.resolve("file.parquet");
        Files.write(path, bytes);
        file = new Written(path, bytes.length, ROWS);
        Server metadata = start(new FakeMetadata());
        metadataClient = new NscMetadataClient(new NscConfig().setMetadataAddress("127.0.0.1:" + metadata.getPort()), TransportSecurity.insecure());
        storageClients = new StorageClients(TransportSecurity.insecure());
    }

    @AfterEach
    void tearDown()
            throws Exception
    {
        uploaders.forEach(ReplicaUploader::shutdown);
        metadataClient.close();
        storageClients.close();
        for (Server server : servers) {
            server.shutdownNow().awaitTermination();
        }
        MoreFiles.deleteRecursively(directory, ALLOW_INSECURE);
    }

    @Test
    void testUnreachableNodeIsReplaced()
            throws IOException
    {
        allocatable = List.of(deadNode("dead"), storingNode("b"));
        spares.add(storingNode("c"));

        NscWriteFragment fragment = uploader(3).upload(file, 2, 2);

        // the replacement takes the failed node's place: readers try replicas in this order
        assertThat(fragment.replicaNodeIds()).containsExactly("c", "b");
        assertThat(attestedNodes(fragment)).containsExactly("c", "b");
        assertThat(fragment.sizeBytes()).isEqualTo(file.sizeBytes());
        assertThat(fragment.rowCount()).isEqualTo(ROWS);
        assertThat(replaceRequests).singleElement().satisfies(request -> {
            assertThat(request.getFileId()).isEqualTo(fragment.fileId());
            assertThat(request.getFailedNodeIdsList()).containsExactly("dead");
            assertThat(request.getSizeBytes()).isEqualTo(file.sizeBytes());
        });
        // the replacement was shown its own grant
        assertThat(uploadsReceived.get("c")).containsExactly("c");
    }

    @Test
    void testNodeFailuresAreReplaced()
            throws IOException
    {
        // a full disk, a node shutting down, a broken stream: all failures of that node only
        for (Status status : List.of(
                Status.RESOURCE_EXHAUSTED.withDescription("No data directory has room"),
                Status.UNAVAILABLE, Status.DEADLINE_EXCEEDED, Status.ABORTED, Status.INTERNAL, Status.UNKNOWN, Status.DATA_LOSS, Status.CANCELLED)) {
            allocatable = List.of(storingNode("a"), refusingNode("refusing-" + status.getCode(), status));
            spares.clear();
            spares.add(storingNode("spare-" + status.getCode()));

            NscWriteFragment fragment = uploader(3).upload(file, 2, 2);

            assertThat(fragment.replicaNodeIds()).as(status.toString()).containsExactly("a", "spare-" + status.getCode());
            assertThat(attestedNodes(fragment)).containsExactly("a", "spare-" + status.getCode());
        }
        assertThat(replaceRequests).hasSize(8);
    }

    @Test
    void testRequestErrorsAreNotReplaced()
            throws IOException
    {
        spares.add(storingNode("spare"));
        // errors of the request itself: another node would refuse it alike
        for (Status status : List.of(
                Status.INVALID_ARGUMENT.withDescription("bad header"),
                Status.PERMISSION_DENIED.withDescription("no grant"),
                Status.UNAUTHENTICATED.withDescription("no certificate"))) {
            String refusing = "refusing-" + status.getCode();
            allocatable = List.of(storingNode("a"), refusingNode(refusing, status));

            assertThatThrownBy(() -> uploader(3).upload(file, 2, 1))
                    .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                    .hasMessageMatching("Uploading nsc file [0-9a-f]{32} to storage node %s \\(127\\.0\\.0\\.1:\\d+\\) failed: %s: %s".formatted(refusing, status.getCode(), status.getDescription()));
        }
        assertThat(replaceRequests).isEmpty();
        assertThat(uploadsReceived).doesNotContainKey("spare");
    }

    @Test
    void testFewerReplicasWhenTheTableAllowsThem()
            throws IOException
    {
        allocatable = List.of(storingNode("a"), deadNode("dead"));
        // no spare: the metadata service has no node left

        NscWriteFragment fragment = uploader(3).upload(file, 2, 1);

        assertThat(fragment.replicaNodeIds()).containsExactly("a");
        assertThat(attestedNodes(fragment)).containsExactly("a");
        assertThat(replaceRequests).hasSize(1);
    }

    @Test
    void testTooFewReplicasFailNamingEveryFailure()
            throws IOException
    {
        allocatable = List.of(storingNode("a"), deadNode("dead"));
        spares.add(refusingNode("full", Status.RESOURCE_EXHAUSTED.withDescription("No data directory has room for 3158073 bytes")));

        assertThatThrownBy(() -> uploader(3).upload(file, 2, 2))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_STORAGE_ERROR.toErrorCode()))
                .hasMessageMatching(("Could not store nsc file [0-9a-f]{32} on enough storage nodes: 1 of 2 replicas written, min_replicas is 2\\. Failures: "
                        + "storage node dead \\(127\\.0\\.0\\.1:\\d+\\): UNAVAILABLE: .*; "
                        + "storage node full \\(127\\.0\\.0\\.1:\\d+\\): RESOURCE_EXHAUSTED: No data directory has room for 3158073 bytes; "
                        + "no node replaces full: No storage node is left for another replica of file [0-9a-f]{32}"));
        assertThat(replaceRequests).extracting(request -> List.copyOf(request.getFailedNodeIdsList())).containsExactly(List.of("dead"), List.of("full"));
    }

    @Test
    void testReplacementsPerFileAreBounded()
            throws IOException
    {
        allocatable = List.of(storingNode("a"), deadNode("dead"));
        spares.add(refusingNode("full", Status.RESOURCE_EXHAUSTED));
        spares.add(storingNode("never-asked"));

        assertThatThrownBy(() -> uploader(1).upload(file, 2, 2))
                .hasMessageContaining("1 of 2 replicas written, min_replicas is 2")
                .hasMessageEndingWith("no node replaces full: the file's 1 replacements (nsc.max-replica-replacements) are used");
        assertThat(replaceRequests).hasSize(1);
        assertThat(uploadsReceived).doesNotContainKey("never-asked");

        // none at all: the first failure is final
        assertThatThrownBy(() -> uploader(0).upload(file, 2, 2))
                .hasMessageEndingWith("no node replaces dead: the file's 0 replacements (nsc.max-replica-replacements) are used");
        assertThat(replaceRequests).hasSize(1);
    }

    @Test
    void testPlacementFallsBackToMinReplicas()
            throws IOException
    {
        // only two nodes can be placed on (one died after the write began)
        allocatable = List.of(storingNode("a"), storingNode("b"));

        assertThat(uploader(3).upload(file, 3, 2).replicaNodeIds()).containsExactly("a", "b");
        assertThatThrownBy(() -> uploader(3).upload(file, 3, 3))
                .isInstanceOfSatisfying(TrinoException.class, e -> assertThat(e.getErrorCode()).isEqualTo(NSC_NOT_ENOUGH_STORAGE_NODES.toErrorCode()))
                .hasMessage("Cannot place a file with 3 replicas: Replication 3 requested but only 2 storage nodes are live");
    }

    private ReplicaUploader uploader(int maxReplacements)
    {
        ReplicaUploader uploader = new ReplicaUploader(metadataClient, storageClients, new NscConfig().setMaxReplicaReplacements(maxReplacements));
        uploaders.add(uploader);
        return uploader;
    }

    private static List<String> attestedNodes(NscWriteFragment fragment)
            throws IOException
    {
        List<String> nodeIds = new ArrayList<>();
        for (String attestation : fragment.attestations()) {
            nodeIds.add(FileAttestation.parseFrom(Base64.getDecoder().decode(attestation)).getNodeId());
        }
        return nodeIds;
    }

    private StorageNode storingNode(String nodeId)
            throws IOException
    {
        return node(nodeId, start(new FakeStorage(nodeId, Optional.empty())).getPort());
    }

    private StorageNode refusingNode(String nodeId, Status status)
            throws IOException
    {
        return node(nodeId, start(new FakeStorage(nodeId, Optional.of(status))).getPort());
    }

    /** A node at an address where nothing listens: the connection is refused (UNAVAILABLE). */
    private StorageNode deadNode(String nodeId)
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return node(nodeId, socket.getLocalPort());
        }
    }

    private StorageNode node(String nodeId, int port)
    {
        StorageNode node = StorageNode.newBuilder().setNodeId(nodeId).setAddress("127.0.0.1:" + port).setAlive(true).build();
        nodes.put(nodeId, node);
        return node;
    }

    private Server start(io.grpc.BindableService service)
            throws IOException
    {
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(service).build().start();
        servers.add(server);
        return server;
    }

    private static UploadGrant grant(String fileId, StorageNode node)
    {
        return UploadGrant.newBuilder().setFileId(fileId).setNodeId(node.getNodeId()).build();
    }

    /** Allocates the nodes of {@link #allocatable}, and replaces from {@link #spares} until none is left. */
    private final class FakeMetadata
            extends MetadataServiceGrpc.MetadataServiceImplBase
    {
        private int nextFileId;

        @Override
        public synchronized void allocateFiles(AllocateFilesRequest request, StreamObserver<AllocateFilesResponse> observer)
        {
            if (request.getReplication() > allocatable.size()) {
                observer.onError(Status.FAILED_PRECONDITION.withDescription("Replication %s requested but only %s storage nodes are live".formatted(request.getReplication(), allocatable.size())).asRuntimeException());
                return;
            }
            String fileId = "%032x".formatted(++nextFileId);
            FileAllocation.Builder allocation = FileAllocation.newBuilder().setFileId(fileId);
            for (StorageNode node : allocatable.subList(0, request.getReplication())) {
                allocation.addReplicas(node).addGrants(grant(fileId, node));
            }
            observer.onNext(AllocateFilesResponse.newBuilder().addFiles(allocation).build());
            observer.onCompleted();
        }

        @Override
        public synchronized void replaceReplica(ReplaceReplicaRequest request, StreamObserver<FileAllocation> observer)
        {
            replaceRequests.add(request);
            StorageNode spare = spares.poll();
            if (spare == null) {
                observer.onError(Status.FAILED_PRECONDITION.withDescription("No storage node is left for another replica of file " + request.getFileId()).asRuntimeException());
                return;
            }
            observer.onNext(FileAllocation.newBuilder().setFileId(request.getFileId()).addReplicas(spare).addGrants(grant(request.getFileId(), spare)).build());
            observer.onCompleted();
        }
    }

    /** Stores every upload (answering as a real node would, attestation included), or refuses it at the header. */
    private final class FakeStorage
            extends StorageServiceGrpc.StorageServiceImplBase
    {
        private final String nodeId;
        private final Optional<Status> refusal;

        FakeStorage(String nodeId, Optional<Status> refusal)
        {
            this.nodeId = nodeId;
            this.refusal = refusal;
        }

        @Override
        public StreamObserver<UploadRequest> upload(StreamObserver<UploadResponse> responses)
        {
            return new StreamObserver<>()
            {
                private final CRC32C crc = new CRC32C();
                private String fileId;
                private long size;
                private boolean refused;

                @Override
                public void onNext(UploadRequest request)
                {
                    if (refused) {
                        return;
                    }
                    if (request.hasHeader()) {
                        fileId = request.getHeader().getFileId();
                        uploadsReceived.computeIfAbsent(nodeId, _ -> new CopyOnWriteArrayList<>()).add(request.getHeader().getGrant().getNodeId());
                        if (refusal.isPresent()) {
                            refused = true;
                            responses.onError(refusal.get().asRuntimeException());
                        }
                        return;
                    }
                    crc.update(request.getData().asReadOnlyByteBuffer());
                    size += request.getData().size();
                }

                @Override
                public void onError(Throwable throwable) {}

                @Override
                public void onCompleted()
                {
                    if (refused) {
                        return;
                    }
                    int checksum = (int) crc.getValue();
                    responses.onNext(UploadResponse.newBuilder()
                            .setFileId(fileId)
                            .setSizeBytes(size)
                            .setRowCount(ROWS)
                            .setCompactStats(STATS)
                            .setCrc32C(checksum)
                            .setAttestation(FileAttestation.newBuilder().setFileId(fileId).setNodeId(nodeId).setSizeBytes(size).setRowCount(ROWS).setCrc32C(checksum))
                            .build());
                    responses.onCompleted();
                }
            };
        }
    }
}
