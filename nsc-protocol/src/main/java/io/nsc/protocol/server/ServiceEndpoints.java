package io.nsc.protocol.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.PeerAuthentication;
import io.nsc.protocol.security.TransportSecurity;

import javax.net.ssl.SSLContext;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * The network face every nsc service shows: its gRPC services (plus the standard gRPC health
 * service) and a tiny HTTP endpoint with {@code /v1/health} and {@code /v1/metrics} so that
 * operators and scripts can probe a node with nothing but curl.
 */
public final class ServiceEndpoints
        implements AutoCloseable
{
    private static final int MAX_INBOUND_MESSAGE_BYTES = 64 * 1024 * 1024;

    private final Server grpcServer;
    private final HttpServer httpServer;
    private final HealthStatusManager health;
    private final Optional<ExecutorService> grpcExecutor;

    private ServiceEndpoints(Server grpcServer, HttpServer httpServer, HealthStatusManager health, Optional<ExecutorService> grpcExecutor)
    {
        this.grpcServer = requireNonNull(grpcServer, "grpcServer is null");
        this.httpServer = requireNonNull(httpServer, "httpServer is null");
        this.health = requireNonNull(health, "health is null");
        this.grpcExecutor = requireNonNull(grpcExecutor, "grpcExecutor is null");
    }

    /**
     * Binds both endpoints. Port 0 picks a free ephemeral port (tests); read the real one back
     * with {@link #grpcPort()} / {@link #httpPort()}.
     *
     * With TLS, both endpoints require a certificate of the cluster CA: gRPC calls are authorized
     * by {@code policy} (the health service is open to every role), HTTP needs any valid client
     * certificate.
     *
     * @param metrics counters published at {@code /v1/metrics}, one "name value" line each
     */
    public static ServiceEndpoints start(String bindHost, int grpcPort, int httpPort, List<BindableService> services, Supplier<Map<String, ? extends Number>> metrics, TransportSecurity security, AccessPolicy policy)
    {
        return start(bindHost, grpcPort, httpPort, services, metrics, security, policy, Optional.empty());
    }

    /**
     * As above, with the gRPC handlers on {@code limits.threads()} threads and at most
     * {@code limits.maxConcurrentCallsPerConnection()} calls open per connection, instead of
     * grpc-java's default executor, which starts a thread for every call that finds none idle.
     */
    public static ServiceEndpoints start(String bindHost, int grpcPort, int httpPort, List<BindableService> services, Supplier<Map<String, ? extends Number>> metrics, TransportSecurity security, AccessPolicy policy, GrpcServerLimits limits)
    {
        return start(bindHost, grpcPort, httpPort, services, metrics, security, policy, Optional.of(limits));
    }

    private static ServiceEndpoints start(String bindHost, int grpcPort, int httpPort, List<BindableService> services, Supplier<Map<String, ? extends Number>> metrics, TransportSecurity security, AccessPolicy policy, Optional<GrpcServerLimits> limits)
    {
        requireNonNull(bindHost, "bindHost is null");
        requireNonNull(metrics, "metrics is null");
        requireNonNull(security, "security is null");
        requireNonNull(policy, "policy is null");
        HealthStatusManager health = new HealthStatusManager();
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(bindHost, grpcPort))
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
                .addService(health.getHealthService());
        Optional<ExecutorService> grpcExecutor = limits.map(bounds -> Executors.newFixedThreadPool(bounds.threads(), runnable -> {
            Thread thread = new Thread(runnable, "nsc-grpc");
            thread.setDaemon(true);
            return thread;
        }));
        grpcExecutor.ifPresent(builder::executor);
        limits.ifPresent(bounds -> builder.maxConcurrentCallsPerConnection(bounds.maxConcurrentCallsPerConnection()));
        services.forEach(service -> builder.addService(MalformedRequests.refuseAsInvalidArgument(service.bindService())));
        builder.intercept(EndUser.serverInterceptor());
        // insecure: TlsModule has said so loudly at start-up
        security.grpcServerContext().ifPresent(context -> builder.sslContext(context).intercept(new PeerAuthentication(policy)));
        Server grpcServer;
        try {
            grpcServer = builder.build().start();
        }
        catch (IOException e) {
            grpcExecutor.ifPresent(ExecutorService::shutdownNow);
            throw new UncheckedIOException("Cannot bind gRPC port %s:%s".formatted(bindHost, grpcPort), e);
        }
        health.setStatus("", SERVING);

        HttpServer httpServer;
        try {
            httpServer = createHttpServer(new InetSocketAddress(bindHost, httpPort), security.jdkContext());
        }
        catch (IOException e) {
            grpcServer.shutdownNow();
            grpcExecutor.ifPresent(ExecutorService::shutdownNow);
            throw new UncheckedIOException("Cannot bind HTTP port %s:%s".formatted(bindHost, httpPort), e);
        }
        httpServer.createContext("/v1/health", exchange -> respond(exchange, 200, "OK\n"));
        httpServer.createContext("/v1/metrics", exchange -> respond(exchange, 200, formatMetrics(metrics.get())));
        httpServer.setExecutor(Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "nsc-http");
            thread.setDaemon(true);
            return thread;
        }));
        httpServer.start();
        return new ServiceEndpoints(grpcServer, httpServer, health, grpcExecutor);
    }

    private static HttpServer createHttpServer(InetSocketAddress address, java.util.Optional<SSLContext> tls)
            throws IOException
    {
        if (tls.isEmpty()) {
            return HttpServer.create(address, 16);
        }
        HttpsServer server = HttpsServer.create(address, 16);
        server.setHttpsConfigurator(new HttpsConfigurator(tls.get())
        {
            @Override
            public void configure(HttpsParameters parameters)
            {
                javax.net.ssl.SSLParameters ssl = getSSLContext().getDefaultSSLParameters();
                ssl.setNeedClientAuth(true);
                parameters.setSSLParameters(ssl);
            }
        });
        return server;
    }

    public int grpcPort()
    {
        return grpcServer.getPort();
    }

    public int httpPort()
    {
        return httpServer.getAddress().getPort();
    }

    @Override
    public void close()
    {
        health.enterTerminalState();
        httpServer.stop(0);
        grpcServer.shutdown();
        try {
            if (!grpcServer.awaitTermination(5, TimeUnit.SECONDS)) {
                grpcServer.shutdownNow();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            grpcServer.shutdownNow();
        }
        finally {
            grpcExecutor.ifPresent(ExecutorService::shutdownNow);
        }
    }

    private static String formatMetrics(Map<String, ? extends Number> metrics)
    {
        StringBuilder text = new StringBuilder();
        metrics.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(entry -> text.append(entry.getKey()).append(' ').append(entry.getValue()).append('\n'));
        return text.toString();
    }

    private static void respond(HttpExchange exchange, int status, String body)
            throws IOException
    {
        byte[] bytes = body.getBytes(UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
