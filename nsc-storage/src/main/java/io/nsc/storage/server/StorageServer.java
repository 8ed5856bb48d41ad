package io.nsc.storage.server;

import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.TypeLiteral;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.bootstrap.LifeCycleManager;
import io.airlift.log.Logger;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.GrpcServerLimits;
import io.nsc.protocol.server.ServiceEndpoints;
import io.nsc.storage.membership.MembershipClient;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.reclaim.OrphanReclaimer;
import io.nsc.storage.repair.ReplicaCopier;
import io.nsc.storage.scan.NearStorageScanner;
import io.nsc.storage.scrub.Scrubber;
import org.weakref.jmx.MBeanExporter;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A running storage node: the Airlift application plus its gRPC and HTTP endpoints and, when a
 * metadata service is configured, its membership in the cluster and the reclaiming of files no
 * commit claims.
 */
public final class StorageServer
        implements AutoCloseable
{
    private static final Logger log = Logger.get(StorageServer.class);

    private final Injector injector;
    private final ServiceEndpoints endpoints;
    private final Optional<MembershipClient> membership;
    private final Optional<OrphanReclaimer> orphanReclaimer;
    private final String nodeId;

    private StorageServer(Injector injector, ServiceEndpoints endpoints, Optional<MembershipClient> membership, Optional<OrphanReclaimer> orphanReclaimer, String nodeId)
    {
        this.injector = requireNonNull(injector, "injector is null");
        this.endpoints = requireNonNull(endpoints, "endpoints is null");
        this.membership = requireNonNull(membership, "membership is null");
        this.orphanReclaimer = requireNonNull(orphanReclaimer, "orphanReclaimer is null");
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
    }

    /** Starts a node configured by exactly these properties (tests and embedding). */
    public static StorageServer start(Map<String, String> properties)
    {
        return start(new Bootstrap(new StorageModule())
                .setRequiredConfigurationProperties(properties));
    }

    /** Starts a node from the properties file Airlift reads from {@code -Dconfig=...}. */
    static StorageServer startFromConfigFile()
    {
        return start(new Bootstrap(new StorageModule()));
    }

    private static StorageServer start(Bootstrap bootstrap)
    {
        Injector injector = bootstrap.initialize();
        Optional<MembershipClient> membership = injector.getInstance(Key.get(new TypeLiteral<Optional<MembershipClient>>() {}));
        Optional<OrphanReclaimer> orphanReclaimer = injector.getInstance(Key.get(new TypeLiteral<Optional<OrphanReclaimer>>() {}));
        try {
            StorageConfig config = injector.getInstance(StorageConfig.class);
            NodeStatistics statistics = injector.getInstance(NodeStatistics.class);
            ServiceEndpoints endpoints = ServiceEndpoints.start(
                    config.getBindHost(),
                    config.getGrpcPort(),
                    config.getHttpPort(),
                    List.of(injector.getInstance(StorageGrpcService.class)),
                    statistics::metrics,
                    injector.getInstance(TransportSecurity.class),
                    StorageGrpcService.ACCESS_POLICY,
                    new GrpcServerLimits(config.getGrpcThreads(), config.getGrpcMaxConcurrentCallsPerConnection()));
            // register only once the node can serve what it announces
            membership.ifPresent(client -> client.start(endpoints.grpcPort()));
            orphanReclaimer.ifPresent(OrphanReclaimer::start);
            injector.getInstance(Scrubber.class).start();
            log.info("======== SERVER STARTED ======== storage node %s: gRPC port %s, HTTP port %s", config.getNodeId(), endpoints.grpcPort(), endpoints.httpPort());
            return new StorageServer(injector, endpoints, membership, orphanReclaimer, config.getNodeId());
        }
        catch (RuntimeException e) {
            orphanReclaimer.ifPresent(OrphanReclaimer::close);
            membership.ifPresent(MembershipClient::close);
            closeBackgroundWork(injector);
            stop(injector);
            throw e;
        }
    }

    public int grpcPort()
    {
        return endpoints.grpcPort();
    }

    public int httpPort()
    {
        return endpoints.httpPort();
    }

    public String nodeId()
    {
        return nodeId;
    }

    @Override
    public void close()
    {
        orphanReclaimer.ifPresent(OrphanReclaimer::close);
        // leave the cluster before refusing calls, so the metadata service stops sending readers here first
        membership.ifPresent(MembershipClient::close);
        closeBackgroundWork(injector);
        endpoints.close();
        injector.getInstance(NearStorageScanner.class).close();
        injector.getInstance(NodeMemoryPool.class).close();
        stop(injector);
        log.info("Storage node %s stopped", nodeId);
    }

    private static void closeBackgroundWork(Injector injector)
    {
        injector.getInstance(Scrubber.class).close();
        injector.getInstance(ReplicaCopier.class).close();
    }

    private static void stop(Injector injector)
    {
        injector.getInstance(LifeCycleManager.class).stop();
        // jmxutils does not unexport on its own; a node restarted in the same JVM re-exports the same names
        injector.getInstance(MBeanExporter.class).unexportAllAndReportMissing();
    }
}
