package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.io.MoreFiles;
import io.grpc.ManagedChannel;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.server.StorageServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static com.google.common.io.RecursiveDeleteOption.ALLOW_INSECURE;

/**
 * A metadata service and storage services in this JVM on ephemeral loopback ports, each storage
 * node with two data dirs standing in for disks. Secured as a real cluster: mutual TLS with
 * certificates from a CA of its own, upload grants, attested statistics.
 */
public final class TestingNscCluster
        implements AutoCloseable
{
    private final Path root;
    private final Map<String, String> metadataProperties;
    private MetadataServer metadata;
    private final List<StorageServer> storageNodes;
    private final TlsFiles clientFiles;

    private TestingNscCluster(Path root, Map<String, String> metadataProperties, MetadataServer metadata, List<StorageServer> storageNodes, TlsFiles clientFiles)
    {
        this.root = root;
        this.metadataProperties = metadataProperties;
        this.metadata = metadata;
        this.storageNodes = new ArrayList<>(storageNodes);
        this.clientFiles = clientFiles;
    }

    public static TestingNscCluster start(int storageNodeCount)
    {
        return start(storageNodeCount, Map.of());
    }

    /**
     * @param metadataProperties more properties of the metadata service, over the defaults here
     *        (such as a long {@code metadata.node-timeout}, so that a stopped node still counts as
     *        live, as a node that dies during a statement does for a while)
     */
    public static TestingNscCluster start(int storageNodeCount, Map<String, String> metadataProperties)
    {
        return start(storageNodeCount, metadataProperties, Map.of());
    }

    /**
     * @param storageProperties more properties of every storage node, over the defaults here
     *        (such as a small {@code storage.scan-memory-limit})
     */
    public static TestingNscCluster start(int storageNodeCount, Map<String, String> metadataProperties, Map<String, String> storageProperties)
    {
        try {
            Path root = Files.createTempDirectory("nsc-cluster");
            ClusterCertificates certificates = ClusterCertificates.openOrCreate(root.resolve("tls"));
            Map<String, String> allMetadataProperties = ImmutableMap.<String, String>builder()
                    .put("metadata.data-dir", root.resolve("metadata").toString())
                    .put("metadata.grpc-port", "0")
                    .put("metadata.http-port", "0")
                    .put("metadata.heartbeat-interval", "500ms")
                    .putAll(certificates.issue(ComponentRole.METADATA, "metadata", List.of()).toProperties("metadata"))
                    .putAll(metadataProperties)
                    .buildKeepingLast();
            MetadataServer metadata = MetadataServer.start(allMetadataProperties);
            ImmutableList.Builder<StorageServer> storageNodes = ImmutableList.builder();
            for (int i = 1; i <= storageNodeCount; i++) {
                Path node = root.resolve("storage-" + i);
                storageNodes.add(StorageServer.start(ImmutableMap.<String, String>builder()
                        .put("storage.node-id", "storage-" + i)
                        .put("storage.data-dirs", node.resolve("disk1") + "," + node.resolve("disk2"))
                        .put("storage.grpc-port", "0")
                        .put("storage.http-port", "0")
                        .put("storage.metadata-address", "127.0.0.1:" + metadata.grpcPort())
                        .putAll(certificates.issue(ComponentRole.STORAGE, "storage-" + i, List.of()).toProperties("storage"))
                        .putAll(storageProperties)
                        .buildKeepingLast()));
            }
            TlsFiles clientFiles = certificates.issue(ComponentRole.CLIENT, "trino", List.of());
            TestingNscCluster cluster = new TestingNscCluster(root, allMetadataProperties, metadata, storageNodes.build(), clientFiles);
            cluster.awaitLiveNodes(storageNodeCount);
            return cluster;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String metadataAddress()
    {
        return "127.0.0.1:" + metadata.grpcPort();
    }

    /** The connector's catalog properties that name its client certificate. */
    public Map<String, String> clientTlsProperties()
    {
        return clientFiles.toProperties("nsc");
    }

    /** A client identity, for tests that call the services directly (the loader, node stats). */
    public TransportSecurity clientSecurity()
    {
        return clientFiles.toTransportSecurity();
    }

    public Path root()
    {
        return root;
    }

    public List<StorageServer> storageNodes()
    {
        return List.copyOf(storageNodes);
    }

    /**
     * Stops a storage node the way its clients see a crash: its endpoint no longer answers
     * (UNAVAILABLE). The metadata service counts it live until its node timeout passes.
     */
    public void stopStorageNode(String nodeId)
    {
        StorageServer node = storageNodes.stream()
                .filter(server -> server.nodeId().equals(nodeId))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No running storage node " + nodeId));
        node.close();
        storageNodes.remove(node);
    }

    /**
     * Stops the metadata service and starts it again on the same gRPC port and data directory, so
     * that the connector and the storage nodes reconnect to it: it knows what its catalog kept.
     */
    public void restartMetadataService()
    {
        int grpcPort = metadata.grpcPort();
        metadata.close();
        metadata = MetadataServer.start(ImmutableMap.<String, String>builder()
                .putAll(metadataProperties)
                .put("metadata.grpc-port", String.valueOf(grpcPort))
                .buildKeepingLast());
    }

    /** The metadata service's counters, as {@code /v1/metrics} serves them. */
    public Map<String, Long> metadataMetrics()
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:%s/v1/metrics".formatted(metadata.httpPort()))).build();
        try (HttpClient client = HttpClient.newBuilder().sslContext(clientSecurity().jdkContext().orElseThrow()).build()) {
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("%s answered %s: %s".formatted(request.uri(), response.statusCode(), response.body()));
            }
            return response.body().lines()
                    .map(line -> line.split(" "))
                    .filter(parts -> parts.length == 2 && parts[1].matches("-?\\d+"))
                    .collect(toImmutableMap(parts -> parts[0], parts -> Long.parseLong(parts[1])));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    public void awaitLiveNodes(int count)
    {
        ManagedChannel channel = GrpcChannels.forAddress(metadataAddress(), clientSecurity());
        try {
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (true) {
                List<StorageNode> nodes = MetadataServiceGrpc.newBlockingStub(channel).listNodes(ListNodesRequest.getDefaultInstance()).getNodesList();
                if (nodes.stream().filter(StorageNode::getAlive).count() >= count) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("only %s of %s storage nodes registered: %s".formatted(nodes.size(), count, nodes));
                }
                Thread.sleep(50);
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        for (StorageServer node : storageNodes) {
            node.close();
        }
        metadata.close();
        MoreFiles.deleteRecursively(root, ALLOW_INSECURE);
    }
}
