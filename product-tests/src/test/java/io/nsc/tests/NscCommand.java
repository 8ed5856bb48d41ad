package io.nsc.tests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * Runs {@code ./nsc} as a user would, with its own var dir and ports so a test cluster never
 * touches a developer's running demo.
 */
public final class NscCommand
{
    private final Path home;
    private final Map<String, String> environment;

    public NscCommand(Path home, Map<String, String> environment)
    {
        this.home = requireNonNull(home, "home is null");
        this.environment = Map.copyOf(environment);
    }

    public static Path repositoryRoot()
    {
        String home = System.getProperty("nsc.home");
        if (home == null) {
            throw new IllegalStateException("system property nsc.home (the repository root) is not set");
        }
        return Path.of(home);
    }

    public record Result(int exitCode, String output)
    {
        public Result
        {
            requireNonNull(output, "output is null");
        }
    }

    public Result run(long timeoutMinutes, String... arguments)
    {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("nsc").toString());
        command.addAll(List.of(arguments));
        try {
            Path log = Files.createTempFile("nsc-command", ".log");
            try {
                ProcessBuilder builder = new ProcessBuilder(command)
                        .directory(home.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                builder.environment().putAll(environment);
                Process process = builder.start();
                if (!process.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IllegalStateException("%s did not finish within %s minutes; output:%n%s".formatted(command, timeoutMinutes, Files.readString(log, UTF_8)));
                }
                return new Result(process.exitValue(), Files.readString(log, UTF_8));
            }
            finally {
                Files.deleteIfExists(log);
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
}
