package io.nsc.tests.cluster;

import com.github.dockerjava.api.DockerClient;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.tests.NscCommand;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.ContainerState;
import org.testcontainers.containers.wait.strategy.Wait;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The Docker Compose cluster of {@code docker/docker-compose.yml} through Testcontainers, for
 * machines with a Docker engine ({@code -Dnsc.cluster=compose}). Never run on the machines nsc
 * was built on: they have no engine (see the README).
 */
public final class ComposeCluster
        implements NscCluster
{
    private static final List<String> STORAGE_NODES = List.of("storage-1", "storage-2", "storage-3");
    private static final Duration STARTUP = Duration.ofMinutes(20);

    private final ComposeContainer compose;
    private final TlsFiles identity;
    private final String trinoPassword;
    private final HttpClient http;

    private ComposeCluster(ComposeContainer compose)
    {
        this.compose = compose;
        // the cluster made its CA in the shared volume: borrow the metadata service's identity
        // (the services' HTTP endpoints take any certificate of the CA) and Trino's password
        try {
            Path tls = Files.createTempDirectory("nsc-compose-tls");
            ContainerState metadata = container("metadata");
            for (String file : List.of("ca.pem", "metadata.pem", "metadata.key", "trino-password")) {
                metadata.copyFileFromContainer("/var/lib/nsc-tls/" + file, tls.resolve(file).toString());
            }
            this.identity = new TlsFiles(tls.resolve("metadata.pem"), tls.resolve("metadata.key"), tls.resolve("ca.pem"));
            this.trinoPassword = Files.readString(tls.resolve("trino-password"), UTF_8).strip();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .sslContext(identity.toTransportSecurity().jdkContext().orElseThrow())
                .build();
    }

    public static ComposeCluster start()
    {
        ComposeContainer compose = new ComposeContainer(NscCommand.repositoryRoot().resolve("docker/docker-compose.yml").toFile())
                .withBuild(true)
                .withEnv("NSC_TPCH_SCALE", "0.01")
                // as the process cluster: short reclaim timeouts, small files (see ProcessCluster)
                .withEnv("NSC_ALLOCATION_TIMEOUT", "30s")
                .withEnv("NSC_ORPHAN_CHECK_INTERVAL", "2s")
                .withEnv("NSC_ORPHAN_MIN_AGE", "5s")
                .withEnv("NSC_WRITER_BUFFER_SIZE", "16MB")
                .withEnv("NSC_WRITER_TARGET_FILE_SIZE", "256kB")
                .withExposedService("coordinator", 8443, Wait.forHealthcheck().withStartupTimeout(STARTUP))
                .withExposedService("metadata", 7071, Wait.forHealthcheck().withStartupTimeout(STARTUP))
                .waitingFor("loader", Wait.forLogMessage(".*(loaded TPC-H|already holds TPC-H).*", 1).withStartupTimeout(STARTUP));
        for (String node : STORAGE_NODES) {
            compose = compose.withExposedService(node, 7081, Wait.forHealthcheck().withStartupTimeout(STARTUP));
        }
        compose.start();
        return new ComposeCluster(compose);
    }

    @Override
    public String jdbcUrl()
    {
        return "jdbc:trino://localhost:%s/nsc".formatted(compose.getServicePort("coordinator", 8443));
    }

    @Override
    public Connection connect(String path)
            throws SQLException
    {
        Properties properties = new Properties();
        properties.setProperty("user", "nsc");
        properties.setProperty("password", trinoPassword);
        properties.setProperty("SSL", "true");
        properties.setProperty("SSLTrustStorePath", identity.ca().toString());
        return DriverManager.getConnection("jdbc:trino://localhost:%s/%s".formatted(compose.getServicePort("coordinator", 8443), path), properties);
    }

    @Override
    public String trinoRest(String path)
    {
        URI uri = URI.create("https://localhost:%s%s".formatted(compose.getServicePort("coordinator", 8443), path));
        return send(HttpRequest.newBuilder(uri)
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("nsc:" + trinoPassword).getBytes(UTF_8)))
                .build());
    }

    @Override
    public List<String> storageNodeIds()
    {
        return STORAGE_NODES;
    }

    @Override
    public void kill(String component)
    {
        docker().killContainerCmd(container(component).getContainerId()).exec();
    }

    @Override
    public void startStopped()
    {
        for (String component : List.of("metadata", "storage-1", "storage-2", "storage-3")) {
            ContainerState container = container(component);
            if (!Boolean.TRUE.equals(docker().inspectContainerCmd(container.getContainerId()).exec().getState().getRunning())) {
                docker().startContainerCmd(container.getContainerId()).exec();
            }
        }
        long deadline = System.nanoTime() + STARTUP.toNanos();
        for (String component : List.of("metadata", "storage-1", "storage-2", "storage-3")) {
            while (!healthy(component)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(component + " did not become healthy");
                }
                sleep();
            }
        }
    }

    @Override
    public Map<String, Long> metrics(String component)
    {
        String body = get(component, "/v1/metrics");
        return body.lines()
                .map(line -> line.split(" "))
                .filter(parts -> parts.length == 2 && parts[1].matches("-?\\d+"))
                .collect(toImmutableMap(parts -> parts[0], parts -> Long.parseLong(parts[1])));
    }

    @Override
    public void close()
    {
        compose.stop();
    }

    private boolean healthy(String component)
    {
        try {
            get(component, "/v1/health");
            return true;
        }
        catch (RuntimeException e) {
            return false;
        }
    }

    private String get(String component, String path)
    {
        int port = component.equals("metadata") ? 7071 : 7081;
        URI uri = URI.create("https://localhost:%s%s".formatted(compose.getServicePort(component, port), path));
        return send(HttpRequest.newBuilder(uri).build());
    }

    private String send(HttpRequest request)
    {
        URI uri = request.uri();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("%s answered %s".formatted(uri, response.statusCode()));
            }
            return response.body();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    private ContainerState container(String service)
    {
        return compose.getContainerByServiceName(service)
                .or(() -> compose.getContainerByServiceName(service + "-1"))
                .orElseThrow(() -> new IllegalArgumentException("no compose service " + service));
    }

    private static DockerClient docker()
    {
        return DockerClientFactory.instance().client();
    }

    private static void sleep()
    {
        try {
            Thread.sleep(1000);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }
}
