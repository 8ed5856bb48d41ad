package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.GrpcServerLimits;
import io.nsc.protocol.server.ServiceEndpoints;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;

import java.util.List;

import static com.google.common.base.Preconditions.checkState;
import static java.util.Objects.requireNonNull;

/**
 * Binds the gRPC and HTTP endpoints once everything behind them exists, and releases them first
 * on shutdown (Airlift stops instances in reverse creation order), so no call reaches a closed
 * database.
 */
public final class MetadataEndpoints
{
    private final MetadataConfig config;
    private final MetadataGrpcService service;
    private final MetadataStats stats;
    private final TransportSecurity security;
    private volatile ServiceEndpoints endpoints;

    @Inject
    public MetadataEndpoints(MetadataConfig config, MetadataGrpcService service, MetadataStats stats, TransportSecurity security)
    {
        this.security = requireNonNull(security, "security is null");
        this.config = requireNonNull(config, "config is null");
        this.service = requireNonNull(service, "service is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    @PostConstruct
    public synchronized void start()
    {
        checkState(endpoints == null, "already started");
        // bounded handlers: a burst of calls (every worker listing files at once) waits for a thread instead of starting one each
        endpoints = ServiceEndpoints.start(config.getBindHost(), config.getGrpcPort(), config.getHttpPort(), List.of(service), stats::metrics, security, MetadataGrpcService.ACCESS_POLICY,
                new GrpcServerLimits(config.getGrpcThreads(), config.getGrpcMaxConcurrentCallsPerConnection()));
    }

    @PreDestroy
    public synchronized void stop()
    {
        if (endpoints != null) {
            endpoints.close();
        }
    }

    public int grpcPort()
    {
        return started().grpcPort();
    }

    public int httpPort()
    {
        return started().httpPort();
    }

    private ServiceEndpoints started()
    {
        ServiceEndpoints current = endpoints;
        checkState(current != null, "endpoints are not started");
        return current;
    }
}
