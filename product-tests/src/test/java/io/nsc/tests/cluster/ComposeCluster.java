package io.nsc.tests.cluster;

import io.nsc.tests.NscCommand;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static com.google.common.base.Preconditions.checkState;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The Docker Compose cluster of {@code docker/docker-compose.yml} ({@code -Dnsc.cluster=compose}),
 * started with {@code ./nsc compose up --secure} as a user starts it, under a project name of its
 * own so it never touches a developer's Compose cluster. Components are killed, started and
 * asked for their metrics with the Docker CLI; the services' HTTP endpoints are not published,
 * so metrics are read inside each container with its own certificate.
 */
public final class ComposeCluster
        implements NscCluster
{
    private static final List<String> STORAGE_NODES = List.of("storage-1", "storage-2", "storage-3");
    private static final List<String> SERVICES = List.of("metadata", "storage-1", "storage-2", "storage-3");
    private static final Duration STARTUP = Duration.ofMinutes(5);

    private final NscCommand nsc;
    private final String project;
    private final int trinoHttpsPort;
    private final Path tls;
    private final HttpClient http;

    private ComposeCluster(NscCommand nsc, String project, int trinoHttpsPort, Path tls)
    {
        this.nsc = nsc;
        this.project = project;
        this.trinoHttpsPort = trinoHttpsPort;
        this.tls = tls;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .sslContext(trusting(tls.resolve("ca.pem")))
                .build();
    }

    public static ComposeCluster start()
    {
        try {
            Path var = Files.createTempDirectory("nsc-compose-tests");
            String project = "nsc-tests-" + ProcessHandle.current().pid();
            int httpsPort = freePort();
            NscCommand nsc = new NscCommand(NscCommand.repositoryRoot(), TestClusterSettings.environment(Map.of(
                    "NSC_VAR", var.toString(),
                    "NSC_COMPOSE_PROJECT", project,
                    "NSC_TRINO_PORT", String.valueOf(freePort()),
                    "NSC_TRINO_HTTPS_PORT", String.valueOf(httpsPort))));
            NscCommand.Result up = nsc.run(20, "compose", "up", "--secure", "--scale", "0.01");
            if (up.exitCode() != 0) {
                nsc.run(5, "compose", "down", "--volumes");
                throw new IllegalStateException("./nsc compose up failed:%n%s".formatted(up.output()));
            }
            return new ComposeCluster(nsc, project, httpsPort, var.resolve("compose").resolve(project).resolve("tls"));
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public TrinoAccess trinoAccess()
    {
        return new TrinoAccess(trinoHttpsPort, "nsc", trinoPassword(), tls.resolve("ca.pem"));
    }

    @Override
    public String trinoRest(String path)
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://localhost:%s%s".formatted(trinoHttpsPort, path)))
                .header("Authorization", trinoAccess().basicAuthorization())
                .build();
        return HttpAnswers.body(http, request);
    }

    @Override
    public List<String> storageNodeIds()
    {
        return STORAGE_NODES;
    }

    @Override
    public List<String> metadataServices()
    {
        return List.of("metadata");
    }

    @Override
    public void kill(String component)
    {
        docker("kill", "--signal", "KILL", container(component));
    }

    @Override
    public void startStopped()
    {
        for (String service : SERVICES) {
            String container = container(service);
            if (!docker("inspect", "--format", "{{.State.Running}}", container).equals("true")) {
                docker("start", container);
            }
        }
        long deadline = System.nanoTime() + STARTUP.toNanos();
        for (String service : SERVICES) {
            while (!docker("inspect", "--format", "{{.State.Health.Status}}", container(service)).equals("healthy")) {
                checkState(System.nanoTime() < deadline, "%s did not become healthy within %s", service, STARTUP);
                sleep();
            }
        }
    }

    @Override
    public Map<String, Long> metrics(String component)
    {
        int port = component.equals("metadata") ? 7071 : 7081;
        String body = docker("exec", container(component), "curl", "-fsS",
                "--cacert", "/var/lib/nsc-tls/ca.pem",
                "--cert", "/var/lib/nsc-tls/%s.pem".formatted(component),
                "--key", "/var/lib/nsc-tls/%s.key".formatted(component),
                "https://localhost:%s/v1/metrics".formatted(port));
        return HttpAnswers.counters(body);
    }

    /** The names of the files in a service's TLS directory, as its container sees it. */
    public List<String> tlsFiles(String service)
    {
        String listing = docker("exec", container(service), "ls", "-A", "/var/lib/nsc-tls");
        return listing.isEmpty() ? List.of() : List.of(listing.split("\n"));
    }

    /** The names of the volumes a service's container mounts, without the project's prefix. */
    public List<String> volumes(String service)
    {
        String names = docker("inspect", "--format", "{{range .Mounts}}{{.Name}} {{end}}", container(service));
        return List.of(names.split(" ")).stream()
                .filter(name -> !name.isBlank())
                .map(name -> name.startsWith(project + "_") ? name.substring(project.length() + 1) : name)
                .toList();
    }

    @Override
    public void close()
    {
        NscCommand.Result down = nsc.run(5, "compose", "down", "--volumes");
        checkState(down.exitCode() == 0, "./nsc compose down failed:%n%s", down.output());
    }

    private String trinoPassword()
    {
        try {
            return Files.readString(tls.resolve("trino-password"), UTF_8).strip();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The container of a Compose service, by the labels both Compose versions set. */
    private String container(String service)
    {
        String id = docker("ps", "-aq",
                "--filter", "label=com.docker.compose.project=" + project,
                "--filter", "label=com.docker.compose.service=" + service);
        checkState(!id.isEmpty() && !id.contains("\n"), "expected one container of service %s in project %s, found [%s]", service, project, id);
        return id;
    }

    private static String docker(String... arguments)
    {
        List<String> command = new ArrayList<>();
        command.add("docker");
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            checkState(process.waitFor(1, TimeUnit.MINUTES), "%s did not finish", command);
            String text = new String(output, UTF_8).strip();
            checkState(process.exitValue() == 0, "%s failed: %s", command, text);
            return text;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    private static SSLContext trusting(Path caFile)
    {
        try (InputStream in = Files.newInputStream(caFile)) {
            KeyStore trustStore = KeyStore.getInstance(KeyStore.getDefaultType());
            trustStore.load(null, null);
            trustStore.setCertificateEntry("nsc-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trustStore);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot trust " + caFile, e);
        }
    }

    private static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
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
