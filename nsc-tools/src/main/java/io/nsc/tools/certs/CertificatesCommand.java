package io.nsc.tools.certs;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.UsageException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;

/**
 * {@code nsc certs}: the cluster CA in a directory, and a certificate per component from it.
 * Safe to run on every start: what exists and is usable is kept.
 */
public final class CertificatesCommand
{
    public static final String USAGE = "nsc certs --dir DIR role:name[:host,host...]...   (role: metadata, storage or client)";

    private CertificatesCommand() {}

    private record Request(ComponentRole role, String name, List<String> hosts) {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        Path directory;
        List<Request> requests = new ArrayList<>();
        try {
            Arguments arguments = Arguments.parse(args, Set.of("dir"), Set.of());
            directory = Path.of(arguments.required("dir"));
            for (String positional : arguments.positionals()) {
                requests.add(parse(positional));
            }
        }
        catch (UsageException | IllegalArgumentException e) {
            err.println("nsc certs: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }
        try {
            ClusterCertificates authority = ClusterCertificates.openOrCreate(directory);
            out.println("CA: " + authority.caFile());
            for (Request request : requests) {
                TlsFiles files = authority.issue(request.role(), request.name(), request.hosts());
                out.printf("%s %s: %s %s%n", request.role().displayName(), request.name(), files.certificate(), files.key());
            }
            return EXIT_OK;
        }
        catch (RuntimeException e) {
            err.println("nsc certs: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    private static Request parse(String text)
            throws UsageException
    {
        List<String> parts = Splitter.on(':').limit(3).splitToList(text);
        if (parts.size() < 2) {
            throw new UsageException("'%s' is not role:name[:hosts]".formatted(text));
        }
        List<String> hosts = parts.size() == 3 ? Splitter.on(',').omitEmptyStrings().trimResults().splitToList(parts.get(2)) : ImmutableList.of();
        return new Request(ComponentRole.fromDisplayName(parts.get(0)), parts.get(1), hosts);
    }
}
