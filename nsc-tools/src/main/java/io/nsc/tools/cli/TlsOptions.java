package io.nsc.tools.cli;

import io.nsc.protocol.security.TlsFiles;
import io.nsc.protocol.security.TransportSecurity;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * The options every tool that talks to the services takes: {@code --certificate}, {@code --key}
 * and {@code --ca} (the tool's client certificate from the cluster CA), or {@code --insecure}
 * for a cluster that runs without TLS.
 */
public final class TlsOptions
{
    public static final Set<String> VALUE_OPTIONS = Set.of("certificate", "key", "ca");
    public static final Set<String> FLAG_OPTIONS = Set.of("insecure");
    public static final String USAGE = "(--certificate F --key F --ca F | --insecure)";

    private TlsOptions() {}

    public static TransportSecurity parse(Arguments arguments)
            throws UsageException
    {
        Optional<String> certificate = arguments.value("certificate");
        Optional<String> key = arguments.value("key");
        Optional<String> ca = arguments.value("ca");
        boolean insecure = arguments.flag("insecure");
        boolean anyFile = certificate.isPresent() || key.isPresent() || ca.isPresent();
        if (insecure) {
            if (anyFile) {
                throw new UsageException("--insecure takes no --certificate, --key or --ca");
            }
            return TransportSecurity.insecure();
        }
        if (certificate.isEmpty() || key.isEmpty() || ca.isEmpty()) {
            throw new UsageException("name the client certificate with --certificate, --key and --ca (PEM files from the cluster CA), or pass --insecure for a cluster without TLS");
        }
        try {
            return TransportSecurity.mutualTls(new TlsFiles(Path.of(certificate.get()), Path.of(key.get()), Path.of(ca.get())));
        }
        catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
