package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * A real PostgreSQL server for tests: {@code initdb} and {@code pg_ctl start} from the installed
 * binaries (Debian's {@code postgresql} package) into a temporary directory, listening on a free
 * port of 127.0.0.1 only, stopped and deleted by {@link #close}. One server serves a test class;
 * each test takes a fresh database from {@link #createDatabase}, which costs a few milliseconds.
 *
 * <p>PostgreSQL refuses to run as root, so when the tests do (as in a container) the server runs
 * as the {@code postgres} user the package creates, through {@code runuser}.
 *
 * <p>Not durable unless asked: the tests' servers skip {@code fsync}, which makes nothing they
 * check different and a test run much faster; the benchmark's server does not.
 */
public final class TestingPostgreSqlServer
        implements AutoCloseable
{
    private static final Logger log = Logger.get(TestingPostgreSqlServer.class);
    public static final String USER = "nsc";
    private static final String PACKAGE_HINT = "install Debian's postgresql package (apt-get install postgresql)";

    private final Path binDirectory;
    private final Path directory;
    private final Optional<String> runAs;
    private final int port;
    private final AtomicInteger nextDatabase = new AtomicInteger();

    private TestingPostgreSqlServer(Path binDirectory, Path directory, Optional<String> runAs, int port)
    {
        this.binDirectory = requireNonNull(binDirectory, "binDirectory is null");
        this.directory = requireNonNull(directory, "directory is null");
        this.runAs = requireNonNull(runAs, "runAs is null");
        this.port = port;
    }

    public static TestingPostgreSqlServer start()
    {
        return start(false);
    }

    /**
     * @param durable whether commits are forced to disk, as a production server does
     */
    public static TestingPostgreSqlServer start(boolean durable)
    {
        Path binDirectory = findBinDirectory();
        Optional<String> runAs = isRoot() ? Optional.of("postgres") : Optional.empty();
        Path directory;
        try {
            // under /tmp, not a test's @TempDir: the postgres user must be able to reach it
            directory = Files.createTempDirectory(Path.of("/tmp"), "nsc-postgresql-");
            if (runAs.isPresent()) {
                UserPrincipal owner = directory.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(runAs.get());
                Files.setOwner(directory, owner);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot create a directory for PostgreSQL", e);
        }
        TestingPostgreSqlServer server = new TestingPostgreSqlServer(binDirectory, directory, runAs, freePort());
        try {
            server.initialize(durable);
            server.run("pg_ctl", "--pgdata", server.dataDirectory().toString(), "--log", directory.resolve("server.log").toString(), "--wait", "--silent", "start");
        }
        catch (RuntimeException e) {
            server.deleteDirectory();
            throw e;
        }
        log.info("PostgreSQL from %s listening on 127.0.0.1:%s", binDirectory, server.port);
        return server;
    }

    private void initialize(boolean durable)
    {
        run("initdb", "--pgdata", dataDirectory().toString(), "--username", USER, "--auth", "trust", "--encoding", "UTF8", "--no-locale", "--no-sync", "--no-instructions");
        List<String> settings = new ArrayList<>(List.of(
                "listen_addresses = '127.0.0.1'",
                "port = " + port,
                // the socket in the server's own directory: the default one may not exist or be writable
                "unix_socket_directories = '%s'".formatted(directory),
                "max_connections = 200",
                "shared_buffers = 64MB",
                // room for the predicate locks of serializable transactions over many rows
                "max_pred_locks_per_transaction = 256"));
        if (!durable) {
            settings.addAll(List.of("fsync = off", "synchronous_commit = off", "full_page_writes = off"));
        }
        try {
            Files.writeString(dataDirectory().resolve("postgresql.auto.conf"), String.join("\n", settings) + "\n", UTF_8);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot configure PostgreSQL in " + dataDirectory(), e);
        }
    }

    /** A new, empty database, owned by {@link #USER}; its JDBC URL. */
    public String createDatabase()
    {
        String name = "nsc_test_" + nextDatabase.incrementAndGet();
        try (Connection connection = DriverManager.getConnection(jdbcUrl("postgres"), USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        }
        catch (SQLException e) {
            throw new IllegalStateException("Cannot create database " + name, e);
        }
        return jdbcUrl(name);
    }

    public PostgreSqlConnectionSettings connectionSettings(String url, int maxConnections)
    {
        return new PostgreSqlConnectionSettings(url, USER, "", maxConnections);
    }

    public String jdbcUrl(String database)
    {
        return "jdbc:postgresql://127.0.0.1:%s/%s".formatted(port, database);
    }

    public int port()
    {
        return port;
    }

    @Override
    public void close()
    {
        try {
            // immediate: nothing of a test's server needs to survive it
            run("pg_ctl", "--pgdata", dataDirectory().toString(), "--mode", "immediate", "--wait", "--silent", "stop");
        }
        finally {
            deleteDirectory();
        }
    }

    private Path dataDirectory()
    {
        return directory.resolve("data");
    }

    private void run(String program, String... arguments)
    {
        ImmutableList.Builder<String> command = ImmutableList.builder();
        runAs.ifPresent(user -> command.add("runuser", "-u", user, "--"));
        command.add(binDirectory.resolve(program).toString()).add(arguments);
        Path output = directory.resolve(program + ".out");
        try {
            Process process = new ProcessBuilder(command.build())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException("%s did not finish within 2 minutes".formatted(command.build()));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("%s failed with exit status %s: %s%s".formatted(command.build(), process.exitValue(), Files.readString(output), serverLog()));
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command.build(), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted running " + command.build(), e);
        }
    }

    private String serverLog()
    {
        Path serverLog = directory.resolve("server.log");
        try {
            return Files.exists(serverLog) ? "\nserver log:\n" + Files.readString(serverLog) : "";
        }
        catch (IOException e) {
            return "";
        }
    }

    private void deleteDirectory()
    {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
        catch (IOException e) {
            log.warn(e, "Cannot delete %s", directory);
        }
    }

    /**
     * The directory of initdb, pg_ctl and postgres: what {@code pg_config --bindir} names (when
     * it holds them: pg_config may come from a client package alone), else the newest of
     * {@code /usr/lib/postgresql/<version>/bin}.
     */
    private static Path findBinDirectory()
    {
        Optional<Path> fromPgConfig = pgConfigBinDirectory().filter(TestingPostgreSqlServer::hasServerBinaries);
        if (fromPgConfig.isPresent()) {
            return fromPgConfig.get();
        }
        Path versions = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(versions)) {
            try (Stream<Path> children = Files.list(versions)) {
                Optional<Path> newest = children
                        .filter(child -> child.getFileName().toString().matches("\\d+"))
                        .sorted(Comparator.comparingInt((Path child) -> Integer.parseInt(child.getFileName().toString())).reversed())
                        .map(child -> child.resolve("bin"))
                        .filter(TestingPostgreSqlServer::hasServerBinaries)
                        .findFirst();
                if (newest.isPresent()) {
                    return newest.get();
                }
            }
            catch (IOException e) {
                throw new UncheckedIOException("Cannot list " + versions, e);
            }
        }
        throw new IllegalStateException("The PostgreSQL tests need the PostgreSQL server binaries (initdb, pg_ctl, postgres), found neither through pg_config --bindir nor in /usr/lib/postgresql/*/bin: " + PACKAGE_HINT);
    }

    private static Optional<Path> pgConfigBinDirectory()
    {
        try {
            Process process = new ProcessBuilder("pg_config", "--bindir").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), UTF_8).strip();
            return process.waitFor() == 0 && !output.isEmpty() ? Optional.of(Path.of(output)) : Optional.empty();
        }
        catch (IOException e) {
            // no pg_config on the path
            return Optional.empty();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static boolean hasServerBinaries(Path binDirectory)
    {
        return Stream.of("initdb", "pg_ctl", "postgres").allMatch(program -> Files.isExecutable(binDirectory.resolve(program)));
    }

    private static boolean isRoot()
    {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort()
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }
}
