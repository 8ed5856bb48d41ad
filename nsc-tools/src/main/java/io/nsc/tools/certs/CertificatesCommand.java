package io.nsc.tools.certs;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import io.nsc.protocol.security.ClusterCertificates;
import io.nsc.protocol.security.ComponentRole;
import io.nsc.protocol.security.TlsFiles;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.UsageException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;

/**
 * {@code nsc certs}: the cluster CA in a directory, and a certificate per component from it.
 * Safe to run on every start: what exists and is usable is kept. With {@code --out}, each
 * component's certificate, key and the CA's certificate (never its key) are also copied into a
 * directory of its own under it, a bundle to hand to the host that runs the component, so that
 * the CA's key stays where certificates are issued. Kind {@code server} certifies a TLS server
 * outside nsc that the components verify by the cluster CA (PostgreSQL, which the metadata
 * services reach with {@code sslmode=verify-full}); it authenticates to none of nsc's services.
 */
public final class CertificatesCommand
{
    public static final String USAGE = "nsc certs --dir DIR [--out BUNDLES] kind:name[:host,host...]...   (kind: metadata, storage or client, or server: a TLS server outside nsc such as PostgreSQL; --out: BUNDLES/<name>/ gets ca.pem, <name>.pem, <name>.key)";

    private CertificatesCommand() {}

    /** One certificate to issue: of an nsc component with its role, or of a TLS server outside nsc (no role). */
    private record Request(Optional<ComponentRole> role, String name, List<String> hosts)
    {
        String kind()
        {
            return role.map(ComponentRole::displayName).orElse(ClusterCertificates.TLS_SERVER_KIND);
        }
    }

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        Path directory;
        Optional<Path> bundles;
        List<Request> requests = new ArrayList<>();
        try {
            Arguments arguments = Arguments.parse(args, Set.of("dir", "out"), Set.of());
            directory = Path.of(arguments.required("dir"));
            bundles = arguments.value("out").map(Path::of);
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
                TlsFiles files = request.role().isPresent()
                        ? authority.issue(request.role().get(), request.name(), request.hosts())
                        : authority.issueServer(request.name(), request.hosts());
                out.printf("%s %s: %s %s%n", request.kind(), request.name(), files.certificate(), files.key());
                if (bundles.isPresent()) {
                    out.printf("  bundle: %s%n", bundle(files, bundles.get().resolve(request.name())));
                }
            }
            return EXIT_OK;
        }
        catch (IOException e) {
            err.println("nsc certs: cannot write a bundle: " + e.getMessage());
            return EXIT_FAILED;
        }
        catch (RuntimeException e) {
            err.println("nsc certs: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    /** Copies what one component needs into {@code target}, readable by its owner only where it is secret. */
    private static Path bundle(TlsFiles files, Path target)
            throws IOException
    {
        Files.createDirectories(target);
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
        copy(files.ca(), target, "rw-r--r--");
        copy(files.certificate(), target, "rw-r--r--");
        copy(files.key(), target, "rw-------");
        return target;
    }

    private static void copy(Path file, Path directory, String permissions)
            throws IOException
    {
        Path target = directory.resolve(file.getFileName());
        // written beside and moved: a component starting meanwhile never reads half a key
        Path partial = Files.createTempFile(directory, ".bundle", ".tmp", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.copy(file, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(partial, PosixFilePermissions.fromString(permissions));
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static Request parse(String text)
            throws UsageException
    {
        List<String> parts = Splitter.on(':').limit(3).splitToList(text);
        if (parts.size() < 2) {
            throw new UsageException("'%s' is not role:name[:hosts]".formatted(text));
        }
        List<String> hosts = parts.size() == 3 ? Splitter.on(',').omitEmptyStrings().trimResults().splitToList(parts.get(2)) : ImmutableList.of();
        Optional<ComponentRole> role = parts.get(0).equals(ClusterCertificates.TLS_SERVER_KIND) ? Optional.empty() : Optional.of(role(parts.get(0)));
        return new Request(role, parts.get(1), hosts);
    }

    private static ComponentRole role(String kind)
            throws UsageException
    {
        try {
            return ComponentRole.fromDisplayName(kind);
        }
        catch (IllegalArgumentException e) {
            throw new UsageException("Unknown role '%s': expected metadata, storage, client or %s (a TLS server outside nsc, such as PostgreSQL)".formatted(kind, ClusterCertificates.TLS_SERVER_KIND));
        }
    }
}
