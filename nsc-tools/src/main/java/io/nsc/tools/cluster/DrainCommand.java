package io.nsc.tools.cluster;

import com.google.common.collect.Sets;
import io.airlift.units.Duration;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.DrainNodeRequest;
import io.nsc.protocol.proto.GetReplicationStatusRequest;
import io.nsc.protocol.proto.GetReplicationStatusResponse;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.TlsOptions;
import io.nsc.tools.cli.UsageException;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * Moves every replica off a storage node before it is removed, like HDFS decommissioning: the
 * node takes no new files, its files are copied to other nodes, then its replicas are dropped and
 * it deletes its copies. Waits until the catalog places nothing on the node and the node holds
 * no file, or until the timeout; {@code --cancel} makes the node take files again.
 */
public final class DrainCommand
{
    public static final String USAGE = "nsc drain --metadata host:port[,host:port...] " + TlsOptions.USAGE + " [--timeout 30m] [--no-wait | --cancel] <node-id>";

    private DrainCommand() {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        MetadataAddresses metadataAddresses;
        String nodeId;
        TransportSecurity security;
        Duration timeout;
        boolean cancel;
        boolean wait;
        try {
            Arguments arguments = Arguments.parse(args, Sets.union(Set.of("metadata", "timeout"), TlsOptions.VALUE_OPTIONS), Sets.union(Set.of("cancel", "no-wait"), TlsOptions.FLAG_OPTIONS));
            metadataAddresses = MetadataAddresses.parse(arguments.required("metadata"));
            security = TlsOptions.parse(arguments);
            timeout = Duration.valueOf(arguments.value("timeout").orElse("30m"));
            cancel = arguments.flag("cancel");
            wait = !cancel && !arguments.flag("no-wait");
            if (arguments.positionals().size() != 1) {
                throw new UsageException("need exactly one <node-id>");
            }
            nodeId = arguments.positionals().getFirst();
        }
        catch (UsageException | IllegalArgumentException e) {
            err.println("nsc drain: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }

        ManagedChannel channel = GrpcChannels.forMetadataService(metadataAddresses, security);
        try {
            MetadataServiceBlockingStub metadata = MetadataServiceGrpc.newBlockingStub(channel);
            StorageNode node = metadata.withDeadlineAfter(30, SECONDS)
                    .drainNode(DrainNodeRequest.newBuilder().setNodeId(nodeId).setCancel(cancel).build())
                    .getNode();
            if (cancel) {
                out.printf("%s takes new files again (%s replicas on it)%n", nodeId, node.getReplicaCount());
                return EXIT_OK;
            }
            out.printf("draining %s: %s replicas to move%n", nodeId, node.getReplicaCount());
            return wait ? awaitEmpty(metadata, nodeId, timeout, out, err) : EXIT_OK;
        }
        catch (StatusRuntimeException e) {
            err.println("nsc drain: " + e.getStatus().getCode() + ": " + e.getStatus().getDescription());
            return EXIT_FAILED;
        }
        finally {
            GrpcChannels.close(channel);
        }
    }

    private static int awaitEmpty(MetadataServiceBlockingStub metadata, String nodeId, Duration timeout, PrintStream out, PrintStream err)
    {
        long deadline = System.nanoTime() + timeout.roundTo(java.util.concurrent.TimeUnit.NANOSECONDS);
        String last = "";
        while (true) {
            Optional<StorageNode> node = metadata.withDeadlineAfter(30, SECONDS).listNodes(ListNodesRequest.getDefaultInstance()).getNodesList().stream()
                    .filter(candidate -> candidate.getNodeId().equals(nodeId))
                    .findFirst();
            if (node.isEmpty()) {
                err.printf("nsc drain: %s is no longer registered%n", nodeId);
                return EXIT_FAILED;
            }
            GetReplicationStatusResponse status = metadata.withDeadlineAfter(30, SECONDS).getReplicationStatus(GetReplicationStatusRequest.getDefaultInstance());
            String progress = "%s: %s replicas in the catalog, %s files on the node; %s under-replicated files, %s copies in flight".formatted(
                    nodeId, node.get().getReplicaCount(), node.get().getFileCount(), status.getUnderReplicatedFiles(), status.getCopiesInFlight());
            if (!progress.equals(last)) {
                out.println(progress);
                last = progress;
            }
            if (node.get().getReplicaCount() == 0 && node.get().getFileCount() == 0 && status.getUnderReplicatedFiles() == 0) {
                out.printf("%s is drained: it holds no file and every file is fully replicated; it can be removed%n", nodeId);
                return EXIT_OK;
            }
            if (System.nanoTime() > deadline) {
                err.printf("nsc drain: %s is not drained after %s (%s)%n", nodeId, timeout, progress);
                return EXIT_FAILED;
            }
            try {
                Thread.sleep(1000);
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return EXIT_FAILED;
            }
        }
    }
}
