package io.nsc.protocol.security;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import jakarta.validation.constraints.AssertTrue;

import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How a component proves who it is and checks who it talks to. Bound with the component's
 * prefix ({@code metadata.tls.*}, {@code storage.tls.*}, {@code nsc.tls.*}).
 */
public class TlsConfig
{
    private Path certificateFile;
    private Path keyFile;
    private Path caFile;
    private boolean insecure;

    public Optional<Path> getCertificateFile()
    {
        return Optional.ofNullable(certificateFile);
    }

    @Config("tls.certificate-file")
    @ConfigDescription("PEM certificate chain of this component, signed by the cluster CA")
    public TlsConfig setCertificateFile(String certificateFile)
    {
        this.certificateFile = certificateFile == null ? null : Path.of(certificateFile);
        return this;
    }

    public Optional<Path> getKeyFile()
    {
        return Optional.ofNullable(keyFile);
    }

    @Config("tls.key-file")
    @ConfigDescription("PEM (PKCS#8) private key of this component's certificate")
    public TlsConfig setKeyFile(String keyFile)
    {
        this.keyFile = keyFile == null ? null : Path.of(keyFile);
        return this;
    }

    public Optional<Path> getCaFile()
    {
        return Optional.ofNullable(caFile);
    }

    @Config("tls.ca-file")
    @ConfigDescription("PEM certificate of the cluster CA: the only issuer whose certificates are accepted")
    public TlsConfig setCaFile(String caFile)
    {
        this.caFile = caFile == null ? null : Path.of(caFile);
        return this;
    }

    public boolean isInsecure()
    {
        return insecure;
    }

    @Config("tls.insecure")
    @ConfigDescription("Plaintext without authentication: anyone who reaches a port may read, write and delete. For experiments only")
    public TlsConfig setInsecure(boolean insecure)
    {
        this.insecure = insecure;
        return this;
    }

    @AssertTrue(message = "Set tls.certificate-file, tls.key-file and tls.ca-file, or tls.insecure=true to run without TLS (not both)")
    public boolean isEitherTlsOrInsecure()
    {
        long filesSet = Stream.of(certificateFile, keyFile, caFile).filter(file -> file != null).count();
        return insecure ? filesSet == 0 : filesSet == 3;
    }

    /** The files, or empty when insecure. Only valid configurations reach here. */
    public TransportSecurity toTransportSecurity()
    {
        if (insecure) {
            return TransportSecurity.insecure();
        }
        return TransportSecurity.mutualTls(new TlsFiles(certificateFile, keyFile, caFile));
    }
}
