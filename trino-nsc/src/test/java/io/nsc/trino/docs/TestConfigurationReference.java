package io.nsc.trino.docs;

import io.nsc.metadata.server.MetadataConfig;
import io.nsc.protocol.security.TlsConfig;
import io.nsc.storage.server.StorageConfig;
import io.nsc.trino.NscConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static io.nsc.trino.docs.ConfigurationReference.FILE;
import static io.nsc.trino.docs.ConfigurationReference.REGENERATE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md is what {@link ConfigurationReference} generates from the code: a
 * property added, renamed, described anew or given another default fails this test until the
 * file is regenerated.
 */
final class TestConfigurationReference
{
    @Test
    void testFileMatchesTheCode()
            throws IOException
    {
        Path file = ConfigurationReference.findRepositoryRoot().resolve(FILE);
        String generated = ConfigurationReference.generate();
        if (Boolean.getBoolean("nsc.docs.regenerate")) {
            Files.writeString(file, generated, UTF_8);
        }
        String current = Files.exists(file) ? Files.readString(file, UTF_8) : "";
        assertThat(current)
                .withFailMessage(() -> "%s differs from the @Config classes and the connector's properties. Regenerate it from the repository's root with:%n    %s%nor run io.nsc.trino.docs.ConfigurationReference.main on trino-nsc's test classpath, then review and commit the diff."
                        .formatted(FILE, REGENERATE))
                .isEqualTo(generated);
    }

    @Test
    void testEveryPropertyIsDescribed()
    {
        Stream.of(NscConfig.class, MetadataConfig.class, StorageConfig.class, TlsConfig.class)
                .flatMap(configClass -> ConfigurationReference.rows(configClass, "").stream())
                .forEach(row -> assertThat(row.description())
                        .withFailMessage("%s has no @ConfigDescription", row.property())
                        .isNotBlank());
    }
}
