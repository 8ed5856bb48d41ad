package io.nsc.protocol.security;

import io.airlift.configuration.ConfigurationFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestTlsConfig
{
    @Test
    void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(TlsConfig.class)
                .setCertificateFile(null)
                .setKeyFile(null)
                .setCaFile(null)
                .setInsecure(false));
    }

    @Test
    void testExplicitPropertyMappings()
    {
        // the files and insecure exclude each other, so no one valid configuration sets every property
        TlsConfig files = new ConfigurationFactory(Map.of(
                "tls.certificate-file", "/etc/nsc/storage-1.pem",
                "tls.key-file", "/etc/nsc/storage-1.key",
                "tls.ca-file", "/etc/nsc/ca.pem"))
                .build(TlsConfig.class);
        assertThat(files.getCertificateFile()).contains(Path.of("/etc/nsc/storage-1.pem"));
        assertThat(files.getKeyFile()).contains(Path.of("/etc/nsc/storage-1.key"));
        assertThat(files.getCaFile()).contains(Path.of("/etc/nsc/ca.pem"));
        assertThat(files.isInsecure()).isFalse();

        TlsConfig insecure = new ConfigurationFactory(Map.of("tls.insecure", "true")).build(TlsConfig.class);
        assertThat(insecure.isInsecure()).isTrue();
        assertThat(insecure.toTransportSecurity().isInsecure()).isTrue();
    }

    @Test
    void testEitherAllFilesOrInsecure()
    {
        assertThat(new TlsConfig().isEitherTlsOrInsecure()).isFalse();
        assertThat(new TlsConfig().setInsecure(true).isEitherTlsOrInsecure()).isTrue();
        assertThat(new TlsConfig().setCertificateFile("a").setKeyFile("b").isEitherTlsOrInsecure()).isFalse();
        assertThat(new TlsConfig().setCertificateFile("a").setKeyFile("b").setCaFile("c").isEitherTlsOrInsecure()).isTrue();
        assertThat(new TlsConfig().setCertificateFile("a").setKeyFile("b").setCaFile("c").setInsecure(true).isEitherTlsOrInsecure()).isFalse();
    }

    @Test
    void testLoadsIssuedCertificates(@TempDir Path directory)
    {
        ClusterCertificates certificates = ClusterCertificates.openOrCreate(directory);
        TlsFiles files = certificates.issue(ComponentRole.STORAGE, "storage-7", List.of("node7.example"));
        TlsConfig config = new TlsConfig()
                .setCertificateFile(files.certificate().toString())
                .setKeyFile(files.key().toString())
                .setCaFile(files.ca().toString());
        TransportSecurity security = config.toTransportSecurity();
        assertThat(security.isInsecure()).isFalse();
        assertThat(security.ownIdentity()).contains(new PeerIdentity(ComponentRole.STORAGE, "storage-7"));
        assertThat(security.grpcServerContext()).isPresent();
        assertThat(security.jdkContext()).isPresent();

        // the key of another component does not go with this certificate
        TlsFiles other = certificates.issue(ComponentRole.CLIENT, "trino", List.of());
        assertThatThrownBy(() -> TransportSecurity.mutualTls(new TlsFiles(files.certificate(), other.key(), files.ca())))
                .hasMessageContaining("does not match");
        assertThatThrownBy(() -> TransportSecurity.mutualTls(new TlsFiles(directory.resolve("missing.pem"), files.key(), files.ca())))
                .hasMessageContaining("missing.pem");
    }
}
