package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.nsc.protocol.client.ValidMetadataAddresses;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.BYTE;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

final class TestStorageConfig
{
    @Test
    void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(StorageConfig.class)
                .setNodeId(null)
                .setDataDirs("")
                .setBindHost("127.0.0.1")
                .setAdvertisedHost("127.0.0.1")
                .setGrpcPort(7080)
                .setHttpPort(7081)
                .setMetadataAddress(null)
                .setReadCoalesceGap(DataSize.of(1, MEGABYTE))
                .setMaxResponseChunk(DataSize.of(1, MEGABYTE))
                .setOrphanCheckInterval(new Duration(1, MINUTES))
                .setOrphanMinAge(new Duration(1, HOURS))
                .setReservedSpace(DataSize.of(256, MEGABYTE))
                .setScanFooterCacheSize(DataSize.of(64, MEGABYTE))
                .setScanPageIndexCacheSize(DataSize.of(32, MEGABYTE))
                .setFileStatsCacheSize(DataSize.of(16, MEGABYTE))
                .setScanThreads(Runtime.getRuntime().availableProcessors())
                .setMaxScanBatch(DataSize.of(4, MEGABYTE))
                .setMaxRequestSize(DataSize.of(32, MEGABYTE))
                .setMaxScanRowGroups(10_000)
                .setMaxReadRanges(10_000)
                .setMaxExpressionNodes(10_000)
                .setMaxExpressionDepth(64)
                .setMaxPredicateValueSize(DataSize.of(16, MEGABYTE))
                .setScanMemoryLimit(DataSize.of(256, MEGABYTE))
                .setMaxPageSize(DataSize.of(64, MEGABYTE))
                .setMaxFooterSize(DataSize.of(16, MEGABYTE))
                .setChecksumBlockSize(DataSize.of(64, KILOBYTE))
                .setVerifyChecksums(true)
                .setScrubRate(DataSize.of(50, MEGABYTE))
                .setScrubInterval(new Duration(7, DAYS))
                .setRepairCopyRate(DataSize.of(100, MEGABYTE))
                .setMemoryPoolSize(DataSize.ofBytes(Runtime.getRuntime().maxMemory() / 2))
                .setScanAdmissionReservation(DataSize.of(4, MEGABYTE))
                .setScanAdmissionMaxQueued(1000)
                .setScanAdmissionMaxWait(new Duration(5, SECONDS))
                .setGrpcThreads(Math.max(16, 4 * Runtime.getRuntime().availableProcessors()))
                .setGrpcMaxConcurrentCallsPerConnection(1000));
    }

    @Test
    void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("storage.node-id", "storage-7")
                .put("storage.data-dirs", "/data/disk1, /data/disk2")
                .put("storage.bind-host", "0.0.0.0")
                .put("storage.advertised-host", "storage-7.example.com")
                .put("storage.grpc-port", "9080")
                .put("storage.http-port", "0")
                .put("storage.metadata-address", "metadata.example.com:7070,metadata-2.example.com:7070")
                .put("storage.read-coalesce-gap", "256kB")
                .put("storage.max-response-chunk", "4MB")
                .put("storage.orphan-check-interval", "30s")
                .put("storage.orphan-min-age", "2h")
                .put("storage.reserved-space", "10GB")
                .put("storage.scan-footer-cache-size", "10MB")
                .put("storage.scan-page-index-cache-size", "5MB")
                .put("storage.file-stats-cache-size", "0B")
                .put("storage.scan-threads", "3")
                .put("storage.max-scan-batch", "8MB")
                .put("storage.max-request-size", "1MB")
                .put("storage.max-scan-row-groups", "50")
                .put("storage.max-read-ranges", "60")
                .put("storage.max-expression-nodes", "70")
                .put("storage.max-expression-depth", "8")
                .put("storage.max-predicate-value-size", "2MB")
                .put("storage.scan-memory-limit", "64MB")
                .put("storage.max-page-size", "8MB")
                .put("storage.max-footer-size", "4MB")
                .put("storage.checksum-block-size", "1MB")
                .put("storage.verify-checksums", "false")
                .put("storage.scrub-rate", "5MB")
                .put("storage.scrub-interval", "1h")
                .put("storage.repair-copy-rate", "20MB")
                .put("storage.memory-pool-size", "3GB")
                .put("storage.scan-admission-reservation", "1MB")
                .put("storage.scan-admission-max-queued", "12")
                .put("storage.scan-admission-max-wait", "250ms")
                .put("storage.grpc-threads", "5")
                .put("storage.grpc-max-concurrent-calls-per-connection", "40")
                .buildOrThrow();

        StorageConfig expected = new StorageConfig()
                .setNodeId("storage-7")
                .setDataDirs("/data/disk1,/data/disk2")
                .setBindHost("0.0.0.0")
                .setAdvertisedHost("storage-7.example.com")
                .setGrpcPort(9080)
                .setHttpPort(0)
                .setMetadataAddress("metadata.example.com:7070,metadata-2.example.com:7070")
                .setReadCoalesceGap(DataSize.of(256, KILOBYTE))
                .setMaxResponseChunk(DataSize.of(4, MEGABYTE))
                .setOrphanCheckInterval(new Duration(30, SECONDS))
                .setOrphanMinAge(new Duration(2, HOURS))
                .setReservedSpace(DataSize.of(10, GIGABYTE))
                .setScanFooterCacheSize(DataSize.of(10, MEGABYTE))
                .setScanPageIndexCacheSize(DataSize.of(5, MEGABYTE))
                .setFileStatsCacheSize(DataSize.of(0, BYTE))
                .setScanThreads(3)
                .setMaxScanBatch(DataSize.of(8, MEGABYTE))
                .setMaxRequestSize(DataSize.of(1, MEGABYTE))
                .setMaxScanRowGroups(50)
                .setMaxReadRanges(60)
                .setMaxExpressionNodes(70)
                .setMaxExpressionDepth(8)
                .setMaxPredicateValueSize(DataSize.of(2, MEGABYTE))
                .setScanMemoryLimit(DataSize.of(64, MEGABYTE))
                .setMaxPageSize(DataSize.of(8, MEGABYTE))
                .setMaxFooterSize(DataSize.of(4, MEGABYTE))
                .setChecksumBlockSize(DataSize.of(1, MEGABYTE))
                .setVerifyChecksums(false)
                .setScrubRate(DataSize.of(5, MEGABYTE))
                .setScrubInterval(new Duration(1, HOURS))
                .setRepairCopyRate(DataSize.of(20, MEGABYTE))
                .setMemoryPoolSize(DataSize.of(3, GIGABYTE))
                .setScanAdmissionReservation(DataSize.of(1, MEGABYTE))
                .setScanAdmissionMaxQueued(12)
                .setScanAdmissionMaxWait(new Duration(250, MILLISECONDS))
                .setGrpcThreads(5)
                .setGrpcMaxConcurrentCallsPerConnection(40);

        assertFullMapping(properties, expected);
        assertThat(expected.getDataDirPaths()).containsExactly(Path.of("/data/disk1"), Path.of("/data/disk2"));
        assertThat(expected.getMetadataAddress()).contains("metadata.example.com:7070,metadata-2.example.com:7070");
    }

    @Test
    void testValidation()
    {
        assertValidates(validConfig());
        assertThat(validConfig().setMetadataAddress(null).getMetadataAddress()).isEqualTo(Optional.empty());

        assertFailsValidation(validConfig().setNodeId(null), "nodeId", "must not be null", jakarta.validation.constraints.NotNull.class);
        for (String badId : List.of("", "Upper", "has space", "a/b", "x".repeat(65))) {
            assertFailsValidation(validConfig().setNodeId(badId), "nodeId", "must be 1 to 64 characters of [a-z0-9-]", jakarta.validation.constraints.Pattern.class);
        }
        assertFailsValidation(validConfig().setDataDirs(""), "dataDirs", "must not be empty", jakarta.validation.constraints.NotEmpty.class);
        assertFailsValidation(validConfig().setDataDirs("/data/a,relative/b"), "dataDirsAbsolute", "storage.data-dirs must be absolute paths", jakarta.validation.constraints.AssertTrue.class);
        assertFailsValidation(validConfig().setDataDirs("/data/a,/data/a/"), "dataDirsDistinct", "storage.data-dirs must not name the same directory twice", jakarta.validation.constraints.AssertTrue.class);
        assertFailsValidation(validConfig().setMetadataAddress("no-port"), "metadataAddress", "metadata service address 'no-port' is not host:port", ValidMetadataAddresses.class);
        assertFailsValidation(validConfig().setMetadataAddress("a.example:7070,a.example:7070"), "metadataAddress", "metadata service address a.example:7070 is listed twice", ValidMetadataAddresses.class);
        assertValidates(validConfig().setMetadataAddress("a.example:7070, b.example:7070"));
        assertFailsValidation(validConfig().setGrpcPort(70000), "grpcPort", "must be less than or equal to 65535", jakarta.validation.constraints.Max.class);
        assertFailsValidation(validConfig().setMaxResponseChunk(DataSize.of(64, MEGABYTE)), "maxResponseChunk", "must be less than or equal to 32MB", io.airlift.units.MaxDataSize.class);
        assertFailsValidation(validConfig().setMaxRequestSize(DataSize.of(65, MEGABYTE)), "maxRequestSize", "must be less than or equal to 64MB", io.airlift.units.MaxDataSize.class);
        assertFailsValidation(validConfig().setMaxScanRowGroups(0), "maxScanRowGroups", "must be greater than or equal to 1", jakarta.validation.constraints.Min.class);
        assertFailsValidation(validConfig().setMaxReadRanges(0), "maxReadRanges", "must be greater than or equal to 1", jakarta.validation.constraints.Min.class);
        assertFailsValidation(validConfig().setMaxExpressionNodes(0), "maxExpressionNodes", "must be greater than or equal to 1", jakarta.validation.constraints.Min.class);
        assertFailsValidation(validConfig().setMaxExpressionDepth(91), "maxExpressionDepth", "must be less than or equal to 90", jakarta.validation.constraints.Max.class);
        assertFailsValidation(validConfig().setScanMemoryLimit(DataSize.of(100, KILOBYTE)), "scanMemoryLimit", "must be greater than or equal to 1MB", io.airlift.units.MinDataSize.class);
        assertFailsValidation(validConfig().setMaxPageSize(DataSize.of(2, DataSize.Unit.GIGABYTE)), "maxPageSize", "must be less than or equal to 1GB", io.airlift.units.MaxDataSize.class);
        assertFailsValidation(validConfig().setMaxFooterSize(DataSize.of(512, MEGABYTE)), "maxFooterSize", "must be less than or equal to 256MB", io.airlift.units.MaxDataSize.class);
        assertFailsValidation(validConfig().setOrphanCheckInterval(new Duration(1, java.util.concurrent.TimeUnit.MILLISECONDS)), "orphanCheckInterval", "must be greater than or equal to 10ms", io.airlift.units.MinDuration.class);
    }

    private static StorageConfig validConfig()
    {
        return new StorageConfig()
                .setNodeId("node-1")
                .setDataDirs("/data/a,/data/b")
                .setMetadataAddress("localhost:7070");
    }
}
