package io.nsc.tools.load;

import com.google.common.base.Splitter;
import com.google.common.base.Stopwatch;
import com.google.common.collect.Sets;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.PeakMemory;
import io.nsc.tools.cli.TlsOptions;
import io.nsc.tools.cli.UsageException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;
import static java.lang.Math.toIntExact;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** {@code nsc load}: registers existing Parquet files as (more of) a table. */
public final class LoadCommand
{
    public static final String USAGE = "nsc load --metadata host:port[,host:port...] " + TlsOptions.USAGE + " [--replication N] [--no-verify] <schema>.<table> <file-or-dir>...";

    private LoadCommand() {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        String metadataAddress;
        String schema;
        String table;
        List<Path> paths;
        LoadOptions options;
        TransportSecurity security;
        try {
            Arguments arguments = Arguments.parse(
                    args,
                    Sets.union(Set.of("metadata", "replication"), TlsOptions.VALUE_OPTIONS),
                    Sets.union(Set.of("no-verify"), TlsOptions.FLAG_OPTIONS));
            // refused here, as a usage error, before any file is read
            metadataAddress = MetadataAddresses.parse(arguments.required("metadata")).toString();
            if (arguments.positionals().size() < 2) {
                throw new UsageException("need a <schema>.<table> and at least one file or directory");
            }
            List<String> name = Splitter.on('.').splitToList(arguments.positionals().getFirst());
            if (name.size() != 2 || name.get(0).isEmpty() || name.get(1).isEmpty()) {
                throw new UsageException("'%s' is not <schema>.<table>".formatted(arguments.positionals().getFirst()));
            }
            schema = name.get(0);
            table = name.get(1);
            paths = arguments.positionals().subList(1, arguments.positionals().size()).stream()
                    .map(Path::of)
                    .collect(toImmutableList());
            options = LoadOptions.defaults()
                    .withReplication(toIntExact(arguments.longValue("replication", 1).orElse(0L)))
                    .withVerify(!arguments.flag("no-verify"));
            security = TlsOptions.parse(arguments);
        }
        catch (UsageException | IllegalArgumentException | ArithmeticException e) {
            err.println("nsc load: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }

        Stopwatch stopwatch = Stopwatch.createStarted();
        LoadResult result;
        try {
            result = new ParquetLoader(security, out::println).load(metadataAddress, schema, table, paths, options);
        }
        catch (LoadException e) {
            err.println("nsc load: " + e.getMessage());
            return EXIT_FAILED;
        }
        catch (RuntimeException e) {
            err.println("nsc load: unexpected failure: " + e);
            return EXIT_FAILED;
        }
        for (LoadedFile file : result.files()) {
            out.printf("%s: %,d rows, %.1f MB, file %s on %s%n",
                    file.path(), file.rows(), file.bytes() / 1e6, file.fileId(), String.join(",", file.replicaNodeIds()));
        }
        out.printf("loaded %d file%s, %,d rows, %.1f MB into %s.%s (version %d%s) in %.1f s%n",
                result.files().size(),
                result.files().size() == 1 ? "" : "s",
                result.rows(),
                result.bytes() / 1e6,
                result.schema(),
                result.table(),
                result.tableVersion(),
                result.tableCreated() ? ", table created" : "",
                stopwatch.elapsed(MILLISECONDS) / 1e3);
        out.println(PeakMemory.describe());
        return EXIT_OK;
    }
}
