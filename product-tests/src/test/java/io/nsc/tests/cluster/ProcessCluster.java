package io.nsc.tests.cluster;

import io.nsc.protocol.security.TlsFiles;
import io.nsc.tests.NscCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static com.google.common.base.Preconditions.checkState;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * The local cluster of {@code ./nsc demo --secure --workers 2}: real service processes and real
 * Trino 476 servers, a coordinator that serves HTTPS with passwords and runs no splits and two
 * workers, with its own state directory and ports so it never touches a developer's running demo.
 * Its catalog is the default embedded one or, with {@code --catalog postgresql}, a PostgreSQL
 * server that two metadata services share.
 */
public final class ProcessCluster
        implements NscCluster
{
    private static final int PORT_BASE = 27070;
    private static final List<String> STORAGE_NODES = List.of("storage-1", "storage-2", "storage-3");
    // as many as the Compose cluster runs: the splits of a query are spread over several workers
    private static final int TRINO_WORKERS = 2;

    /** Where the cluster keeps its catalog: {@code ./nsc demo --catalog}. */
    public enum Catalog
    {
        /** The default: one metadata service with an embedded database. */
        H2(List.of("metadata")),
        /** A PostgreSQL server started by ./nsc, and two metadata services over it. */
        POSTGRESQL(List.of("metadata-1", "metadata-2"));

        private final List<String> metadataServices;

        Catalog(List<String> metadataServices)
        {
            this.metadataServices = metadataServices;
        }
    }

    private final NscCommand nsc;
    private final Path var;
    private final Catalog catalog;
    private final int trinoPort;
    private final String demoOutput;
    private final HttpClient http;

    private ProcessCluster(NscCommand nsc, Path var, Catalog catalog, int trinoPort, String demoOutput)
    {
        this.nsc = requireNonNull(nsc, "nsc is null");
        this.var = requireNonNull(var, "var is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.trinoPort = trinoPort;
        this.demoOutput = requireNonNull(demoOutput, "demoOutput is null");
        // the services' HTTP endpoints take only certificates of the cluster CA: read them as ./nsc does
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .sslContext(cliIdentity().toTransportSecurity().jdkContext().orElseThrow())
                .build();
    }

    /** The client certificate ./nsc made for itself in the cluster's state directory. */
    public TlsFiles cliIdentity()
    {
        return identity("nsc-cli");
    }

    /** The certificate and key ./nsc demo issued to {@code name} (metadata, storage-1, trino, nsc-cli, ...). */
    public TlsFiles identity(String name)
    {
        Path tls = var.resolve("cluster/tls");
        return new TlsFiles(tls.resolve(name + ".pem"), tls.resolve(name + ".key"), tls.resolve("ca.pem"));
    }

    /** Where the metadata service keeps its configuration, catalog ({@code data/}) and logs. */
    public Path metadataDirectory()
    {
        return var.resolve("cluster/metadata");
    }

    /** The data directories (disks) of a storage node, as ./nsc demo lays them out. */
    public List<Path> storageDataDirectories(String nodeId)
    {
        Path node = var.resolve("cluster").resolve(nodeId);
        return List.of(node.resolve("disk1"), node.resolve("disk2"));
    }

    /** host:port of a service's gRPC endpoint: a metadata service or a storage node id. */
    public String grpcAddress(String component)
    {
        return "127.0.0.1:" + grpcPort(component);
    }

    /** The ports of ./nsc: metadata base, metadata-N base + 2(N-1), storage-N base + 10N; HTTP on the next. */
    private static int grpcPort(String component)
    {
        if (component.equals("metadata")) {
            return PORT_BASE;
        }
        if (component.startsWith("metadata-")) {
            return PORT_BASE + 2 * (Integer.parseInt(component.substring("metadata-".length())) - 1);
        }
        return PORT_BASE + 10 * Integer.parseInt(component.substring("storage-".length()));
    }

    /** Runs {@code ./nsc demo --scale 0.01 --secure --workers 2} and returns once Trino answers queries. */
    public static ProcessCluster start(Catalog catalog)
    {
        try {
            // PostgreSQL runs as an unprivileged user when the tests run as root: it must reach its directory in here
            Path var = Files.createTempDirectory("nsc-product-tests", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx--x--x")));
            // the coordinator's HTTPS port; its plain HTTP port and the workers' ports follow it
            int trinoPort = freePorts(2 + TRINO_WORKERS);
            Map<String, String> environment = new HashMap<>(Map.of(
                    "NSC_VAR", var.toString(),
                    "NSC_PORT_BASE", String.valueOf(PORT_BASE),
                    "NSC_TRINO_CATALOG_DIR", referenceCatalogs(var).toString()));
            if (catalog == Catalog.POSTGRESQL) {
                environment.put("NSC_POSTGRESQL_PORT", String.valueOf(freePorts(1)));
            }
            NscCommand nsc = new NscCommand(NscCommand.repositoryRoot(), TestClusterSettings.environment(environment));
            NscCommand.Result demo = nsc.run(20, demoArguments(catalog, trinoPort));
            checkState(demo.exitCode() == 0, "./nsc demo failed:%n%s", demo.output());
            return new ProcessCluster(nsc, var, catalog, trinoPort, demo.output());
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A {@code memory} catalog beside nsc's: reference answers computed from tables copied there
     * once cost a fraction of what regenerating them from {@code tpcds} for every query does.
     */
    private static Path referenceCatalogs(Path var)
            throws IOException
    {
        Path catalogs = Files.createDirectories(var.resolve("trino-catalogs"));
        Files.writeString(catalogs.resolve("memory.properties"), """
                connector.name=memory
                memory.max-data-per-node=512MB
                """);
        return catalogs;
    }

    public NscCommand command()
    {
        return nsc;
    }

    /** Runs {@code ./nsc demo} again with the arguments that started this cluster. */
    public NscCommand.Result demo(long timeoutMinutes)
    {
        return nsc.run(timeoutMinutes, demoArguments(catalog, trinoPort));
    }

    private static String[] demoArguments(Catalog catalog, int trinoPort)
    {
        List<String> arguments = new ArrayList<>(List.of("demo", "--scale", "0.01", "--trino-port", String.valueOf(trinoPort), "--secure", "--workers", String.valueOf(TRINO_WORKERS)));
        // the default catalog without the flag, as users start it
        if (catalog == Catalog.POSTGRESQL) {
            arguments.addAll(List.of("--catalog", "postgresql"));
        }
        return arguments.toArray(String[]::new);
    }

    /** The Trino workers' component names, as {@code ./nsc stop} and {@code ./nsc status} name them. */
    public List<String> trinoWorkers()
    {
        return IntStream.rangeClosed(1, TRINO_WORKERS).mapToObj("trino-worker-%s"::formatted).toList();
    }

    public int trinoPort()
    {
        return trinoPort;
    }

    public String demoOutput()
    {
        return demoOutput;
    }

    @Override
    public TrinoAccess trinoAccess()
    {
        return new TrinoAccess(trinoPort, "nsc", trinoPassword(), cliIdentity().ca());
    }

    @Override
    public String trinoRest(String path)
    {
        HttpRequest request = HttpRequest.newBuilder(URI.create("https://localhost:%s%s".formatted(trinoPort, path)))
                .header("Authorization", trinoAccess().basicAuthorization())
                .build();
        return HttpAnswers.body(http, request);
    }

    /** The password ./nsc demo --secure made for Trino's user {@code nsc}. */
    public String trinoPassword()
    {
        try {
            return Files.readString(var.resolve("cluster/tls/trino-password"), UTF_8).strip();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public List<String> storageNodeIds()
    {
        return STORAGE_NODES;
    }

    @Override
    public List<String> metadataServices()
    {
        return catalog.metadataServices;
    }

    @Override
    public void kill(String component)
    {
        Path pidFile = var.resolve("cluster/state/" + component + ".pid");
        try {
            long pid = Long.parseLong(Files.readString(pidFile, UTF_8).trim());
            ProcessHandle process = ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException(component + " is not running"));
            process.destroyForcibly();
            process.onExit().get();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (Exception e) {
            throw new IllegalStateException("cannot kill " + component, e);
        }
    }

    @Override
    public void startStopped()
    {
        NscCommand.Result demo = demo(10);
        checkState(demo.exitCode() == 0, "./nsc demo failed:%n%s", demo.output());
    }

    @Override
    public Map<String, Long> metrics(String component)
    {
        int httpPort = grpcPort(component) + 1;
        String body = HttpAnswers.body(http, HttpRequest.newBuilder(URI.create("https://127.0.0.1:%s/v1/metrics".formatted(httpPort))).build());
        return HttpAnswers.counters(body);
    }

    @Override
    public void close()
    {
        NscCommand.Result stop = nsc.run(5, "stop");
        checkState(stop.exitCode() == 0, "./nsc stop failed:%n%s", stop.output());
        keepLogs();
        try (Stream<Path> paths = Files.walk(var)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The components' logs outlive the cluster, under target/cluster-logs, for whoever reads a failure. */
    private void keepLogs()
    {
        Path kept = Path.of("target", "cluster-logs", var.getFileName().toString());
        try (Stream<Path> paths = Files.walk(var.resolve("cluster"))) {
            for (Path path : paths.filter(Files::isRegularFile).filter(path -> path.getParent().getFileName().toString().equals("log")).toList()) {
                Path target = kept.resolve(var.resolve("cluster").relativize(path));
                Files.createDirectories(target.getParent());
                Files.copy(path, target);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first of {@code count} consecutive ports that are free now. */
    private static int freePorts(int count)
            throws IOException
    {
        for (int attempt = 0; attempt < 100; attempt++) {
            int first;
            try (ServerSocket socket = new ServerSocket(0)) {
                first = socket.getLocalPort();
            }
            if (first + count - 1 <= 65535 && IntStream.range(1, count).allMatch(offset -> isFree(first + offset))) {
                return first;
            }
        }
        throw new IOException("no %s consecutive free ports found".formatted(count));
    }

    private static boolean isFree(int port)
    {
        try (ServerSocket _ = new ServerSocket(port)) {
            return true;
        }
        catch (IOException e) {
            return false;
        }
    }
}
