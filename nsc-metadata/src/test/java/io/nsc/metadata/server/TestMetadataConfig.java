package io.nsc.metadata.server;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.nsc.metadata.catalog.CatalogBackend;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

final class TestMetadataConfig
{
    @Test
    void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(MetadataConfig.class)
                .setBindHost("127.0.0.1")
                .setGrpcPort(7070)
                .setHttpPort(7071)
                .setDataDir(null)
                .setDefaultReplication(2)
                .setHeartbeatInterval(new Duration(2, SECONDS))
                .setNodeTimeout(new Duration(10, SECONDS))
                .setAllocationTimeout(new Duration(1, HOURS))
                .setUploadGrantLifetime(new Duration(30, MINUTES))
                .setReplicaLossTimeout(new Duration(10, MINUTES))
                .setReplicationCheckInterval(new Duration(10, SECONDS))
                .setCopyTimeout(new Duration(10, MINUTES))
                .setMaxCopiesPerNode(4)
                .setTableFilesPageMaxFiles(1000)
                .setTableFilesPageMaxSize(DataSize.of(4, MEGABYTE))
                .setTableVersionRetention(new Duration(1, HOURS))
                .setAllocationPurgeInterval(new Duration(1, MINUTES))
                .setCatalog(CatalogBackend.H2)
                .setPostgreSqlUrl(null)
                .setPostgreSqlUser(null)
                .setPostgreSqlPassword("")
                .setPostgreSqlMaxConnections(8)
                .setGrpcThreads(Math.max(16, 4 * Runtime.getRuntime().availableProcessors()))
                .setGrpcMaxConcurrentCallsPerConnection(1000));
    }

    @Test
    void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("metadata.bind-host", "0.0.0.0")
                .put("metadata.grpc-port", "0")
                .put("metadata.http-port", "8081")
                .put("metadata.data-dir", "/var/lib/nsc/metadata")
                .put("metadata.default-replication", "3")
                .put("metadata.heartbeat-interval", "500ms")
                .put("metadata.node-timeout", "1m")
                .put("metadata.allocation-timeout", "30m")
                .put("metadata.upload-grant-lifetime", "5m")
                .put("metadata.replica-loss-timeout", "20s")
                .put("metadata.replication-check-interval", "1s")
                .put("metadata.copy-timeout", "2m")
                .put("metadata.max-copies-per-node", "8")
                .put("metadata.table-files-page-max-files", "50")
                .put("metadata.table-files-page-max-size", "1MB")
                .put("metadata.table-version-retention", "10m")
                .put("metadata.allocation-purge-interval", "30s")
                .put("metadata.catalog", "postgresql")
                .put("metadata.catalog.postgresql.url", "jdbc:postgresql://10.0.0.1:7432/nsc")
                .put("metadata.catalog.postgresql.user", "nsc")
                .put("metadata.catalog.postgresql.password", "secret")
                .put("metadata.catalog.postgresql.max-connections", "16")
                .put("metadata.grpc-threads", "5")
                .put("metadata.grpc-max-concurrent-calls-per-connection", "40")
                .buildOrThrow();

        MetadataConfig expected = new MetadataConfig()
                .setBindHost("0.0.0.0")
                .setGrpcPort(0)
                .setHttpPort(8081)
                .setDataDir("/var/lib/nsc/metadata")
                .setDefaultReplication(3)
                .setHeartbeatInterval(new Duration(500, MILLISECONDS))
                .setNodeTimeout(new Duration(1, MINUTES))
                .setAllocationTimeout(new Duration(30, MINUTES))
                .setUploadGrantLifetime(new Duration(5, MINUTES))
                .setReplicaLossTimeout(new Duration(20, SECONDS))
                .setReplicationCheckInterval(new Duration(1, SECONDS))
                .setCopyTimeout(new Duration(2, MINUTES))
                .setMaxCopiesPerNode(8)
                .setTableFilesPageMaxFiles(50)
                .setTableFilesPageMaxSize(DataSize.of(1, MEGABYTE))
                .setTableVersionRetention(new Duration(10, MINUTES))
                .setAllocationPurgeInterval(new Duration(30, SECONDS))
                .setCatalog(CatalogBackend.POSTGRESQL)
                .setPostgreSqlUrl("jdbc:postgresql://10.0.0.1:7432/nsc")
                .setPostgreSqlUser("nsc")
                .setPostgreSqlPassword("secret")
                .setPostgreSqlMaxConnections(16)
                .setGrpcThreads(5)
                .setGrpcMaxConcurrentCallsPerConnection(40);

        assertFullMapping(properties, expected);
    }

    @Test
    void testNodeTimeoutMustExceedHeartbeatInterval()
    {
        MetadataConfig config = new MetadataConfig()
                .setHeartbeatInterval(new Duration(5, SECONDS))
                .setNodeTimeout(new Duration(5, SECONDS));
        assertThat(config.isNodeTimeoutLongerThanHeartbeatInterval()).isFalse();
        assertThat(config.setNodeTimeout(new Duration(6, SECONDS)).isNodeTimeoutLongerThanHeartbeatInterval()).isTrue();
    }

    @Test
    void testPostgreSqlNeedsUrlAndUser()
    {
        MetadataConfig config = new MetadataConfig().setCatalog(CatalogBackend.POSTGRESQL);
        assertThat(config.isPostgreSqlUrlSetForPostgreSql()).isFalse();
        assertThat(config.isPostgreSqlUserSetForPostgreSql()).isFalse();
        assertThat(config.setPostgreSqlUrl("jdbc:mysql://127.0.0.1/nsc").isPostgreSqlUrlSetForPostgreSql()).isFalse();
        assertThat(config.setPostgreSqlUrl("jdbc:postgresql://127.0.0.1:7432/nsc").isPostgreSqlUrlSetForPostgreSql()).isTrue();
        assertThat(config.setPostgreSqlUser("nsc").isPostgreSqlUserSetForPostgreSql()).isTrue();
        // the embedded catalog needs neither
        assertThat(new MetadataConfig().isPostgreSqlUrlSetForPostgreSql()).isTrue();
        assertThat(new MetadataConfig().isPostgreSqlUserSetForPostgreSql()).isTrue();
        assertThat(config.describeCatalog()).isEqualTo("in PostgreSQL at jdbc:postgresql://127.0.0.1:7432/nsc as nsc");
    }
}
