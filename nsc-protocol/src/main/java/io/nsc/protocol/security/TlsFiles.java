package io.nsc.protocol.security;

import java.nio.file.Path;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/** The three PEM files a component needs for mutual TLS. */
public record TlsFiles(Path certificate, Path key, Path ca)
{
    public TlsFiles
    {
        requireNonNull(certificate, "certificate is null");
        requireNonNull(key, "key is null");
        requireNonNull(ca, "ca is null");
    }

    /** The configuration properties that name these files, for a component bound with {@code prefix} ({@code metadata}, {@code storage}, {@code nsc}). */
    public Map<String, String> toProperties(String prefix)
    {
        return Map.of(
                prefix + ".tls.certificate-file", certificate.toString(),
                prefix + ".tls.key-file", key.toString(),
                prefix + ".tls.ca-file", ca.toString());
    }

    public TransportSecurity toTransportSecurity()
    {
        return TransportSecurity.mutualTls(this);
    }
}
