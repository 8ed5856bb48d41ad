package io.nsc.protocol.client;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.grpc.MethodDescriptor;
import io.nsc.protocol.proto.MetadataServiceGrpc;

import java.util.List;
import java.util.Map;

import static com.google.common.collect.ImmutableList.toImmutableList;

/**
 * The gRPC service config of channels to the metadata services: {@code pick_first} over the
 * configured addresses, and retries on UNAVAILABLE (the instance died or cannot be reached) of
 * the calls that are safe to repeat on another instance. Those calls are retried on UNKNOWN
 * too: a call written to a connection the instance reset as it died fails with UNKNOWN
 * "channel closed" in grpc-java, not UNAVAILABLE. The metadata service answers its own failures
 * with INTERNAL, so an UNKNOWN is almost always the transport's; were it not, repeating a call
 * that is safe to repeat only delays its error by the backoff. Calls that change the catalog
 * (CreateTable, CommitFiles, ReplaceReplica, ...) are never repeated blindly: a failure may
 * reach the client after the first instance applied them; their callers decide.
 */
final class MetadataServiceConfig
{
    // attempts include the first; gRPC caps them at 5
    private static final double MAX_ATTEMPTS = 4;
    private static final String INITIAL_BACKOFF = "0.1s";
    private static final String MAX_BACKOFF = "2s";
    private static final double BACKOFF_MULTIPLIER = 2;

    /**
     * Reads, and writes whose repetition changes nothing: AllocateFiles only issues fresh ids
     * (an allocation nobody commits is purged), RegisterNode and Heartbeat restate the node's
     * state, DrainNode is idempotent. BackupCatalog streams and is left to its caller.
     */
    static final List<MethodDescriptor<?, ?>> REPEATABLE_METHODS = ImmutableList.of(
            MetadataServiceGrpc.getListSchemasMethod(),
            MetadataServiceGrpc.getListTablesMethod(),
            MetadataServiceGrpc.getGetTableMethod(),
            MetadataServiceGrpc.getListTableVersionsMethod(),
            MetadataServiceGrpc.getGetTableFilesMethod(),
            MetadataServiceGrpc.getAllocateFilesMethod(),
            MetadataServiceGrpc.getRegisterNodeMethod(),
            MetadataServiceGrpc.getHeartbeatMethod(),
            MetadataServiceGrpc.getListNodesMethod(),
            MetadataServiceGrpc.getFindOrphansMethod(),
            MetadataServiceGrpc.getDrainNodeMethod(),
            MetadataServiceGrpc.getGetReplicationStatusMethod());

    private MetadataServiceConfig() {}

    /** The service config, in the JSON-like form {@code ManagedChannelBuilder.defaultServiceConfig} takes (numbers as doubles). */
    static Map<String, ?> serviceConfig()
    {
        List<Map<String, ?>> names = REPEATABLE_METHODS.stream()
                .<Map<String, ?>>map(method -> ImmutableMap.of(
                        "service", MetadataServiceGrpc.SERVICE_NAME,
                        "method", method.getBareMethodName()))
                .collect(toImmutableList());
        Map<String, ?> retryPolicy = ImmutableMap.of(
                "maxAttempts", MAX_ATTEMPTS,
                "initialBackoff", INITIAL_BACKOFF,
                "maxBackoff", MAX_BACKOFF,
                "backoffMultiplier", BACKOFF_MULTIPLIER,
                "retryableStatusCodes", ImmutableList.of("UNAVAILABLE", "UNKNOWN"));
        return ImmutableMap.of(
                "loadBalancingConfig", ImmutableList.of(ImmutableMap.of("pick_first", ImmutableMap.of())),
                "methodConfig", ImmutableList.of(ImmutableMap.of(
                        "name", names,
                        "retryPolicy", retryPolicy)));
    }
}
