package io.nsc.tests;

import io.nsc.tests.cluster.TrinoAccess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * Runs the Python scripts under {@code product-tests/src/test/python} against a cluster's Trino,
 * with the clients BI tools use (the trino client and its SQLAlchemy dialect) installed from
 * PyPI into a virtual environment. The environment is kept in nsc's download cache, named by a
 * hash of {@code requirements.txt}, so it is made once per set of pinned versions.
 */
public final class PythonClients
{
    private static final Path SCRIPTS = NscCommand.repositoryRoot().resolve("product-tests/src/test/python");

    private PythonClients() {}

    public record Result(int exitCode, String stdout, String stderr) {}

    /** Runs {@code script} with {@code arguments}; the script reaches Trino through NSC_TRINO_* variables. */
    public static Result run(TrinoAccess trino, String script, String... arguments)
    {
        List<String> command = new ArrayList<>();
        command.add(environment().resolve("bin/python").toString());
        command.add(SCRIPTS.resolve(script).toString());
        command.addAll(List.of(arguments));
        Map<String, String> environment = new HashMap<>(System.getenv());
        // requests prefers these to the CA a client names, so a machine-wide bundle would hide the cluster CA
        environment.remove("REQUESTS_CA_BUNDLE");
        environment.remove("CURL_CA_BUNDLE");
        environment.putAll(Map.of(
                "NSC_TRINO_PORT", String.valueOf(trino.httpsPort()),
                "NSC_TRINO_USER", trino.user(),
                "NSC_TRINO_PASSWORD", trino.password(),
                "NSC_TRINO_CA", trino.caFile().toString()));
        return execute(command, environment);
    }

    private static synchronized Path environment()
    {
        try {
            Path requirements = SCRIPTS.resolve("requirements.txt");
            Path venv = cacheDirectory().resolve("python-clients-" + sha256(Files.readAllBytes(requirements)).substring(0, 12));
            if (Files.exists(venv.resolve("installed"))) {
                return venv;
            }
            // a half-made environment (an interrupted pip) is made again from scratch
            check(execute(List.of("rm", "-rf", venv.toString()), null), "removing " + venv);
            check(execute(List.of("python3", "-m", "venv", venv.toString()), null), "python3 -m venv");
            check(execute(List.of(venv.resolve("bin/pip").toString(), "install", "--quiet", "--disable-pip-version-check", "-r", requirements.toString()), null), "pip install");
            Files.writeString(venv.resolve("installed"), "", UTF_8);
            return venv;
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where ./nsc keeps its downloads: $NSC_CACHE, else $XDG_CACHE_HOME/nsc, else ~/.cache/nsc. */
    private static Path cacheDirectory()
    {
        String cache = System.getenv("NSC_CACHE");
        if (cache != null && !cache.isEmpty()) {
            return Path.of(cache);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        return (xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache")).resolve("nsc");
    }

    private static void check(Result result, String step)
    {
        if (result.exitCode() != 0) {
            throw new IllegalStateException("%s failed (exit %s):%n%s%n%s".formatted(step, result.exitCode(), result.stdout(), result.stderr()));
        }
    }

    /** Runs {@code command} in {@code environment}, or in this process's environment when null. */
    private static Result execute(List<String> command, Map<String, String> environment)
    {
        try {
            Path stdout = Files.createTempFile("nsc-python", ".out");
            Path stderr = Files.createTempFile("nsc-python", ".err");
            try {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .redirectOutput(stdout.toFile())
                        .redirectError(stderr.toFile());
                if (environment != null) {
                    builder.environment().clear();
                    builder.environment().putAll(environment);
                }
                Process process = builder.start();
                if (!process.waitFor(10, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IllegalStateException("%s did not finish within 10 minutes".formatted(command));
                }
                return new Result(process.exitValue(), Files.readString(stdout, UTF_8), Files.readString(stderr, UTF_8));
            }
            finally {
                Files.deleteIfExists(stdout);
                Files.deleteIfExists(stderr);
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    private static String sha256(byte[] bytes)
    {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
