package io.nsc.trino;

import com.google.common.collect.ImmutableMap;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.protocol.client.ValidMetadataAddresses;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.airlift.configuration.testing.ConfigAssertions.assertFullMapping;
import static io.airlift.configuration.testing.ConfigAssertions.assertRecordedDefaults;
import static io.airlift.configuration.testing.ConfigAssertions.recordDefaults;
import static io.airlift.testing.ValidationAssertions.assertFailsValidation;
import static io.airlift.testing.ValidationAssertions.assertValidates;
import static io.airlift.units.DataSize.Unit.BYTE;
import static io.airlift.units.DataSize.Unit.GIGABYTE;
import static io.airlift.units.DataSize.Unit.KILOBYTE;
import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

final class TestNscConfig
{
    @Test
    void testDefaults()
    {
        assertRecordedDefaults(recordDefaults(NscConfig.class)
                .setMetadataAddress(null)
                .setTargetSplitSize(DataSize.of(32, MEGABYTE))
                .setMetadataTimeout(new Duration(30, SECONDS))
                .setStorageTimeout(new Duration(2, MINUTES))
                .setTableFilesCacheTtl(new Duration(10, SECONDS))
                .setTableFilesCacheMaxSize(DataSize.of(128, MEGABYTE))
                .setTableFilesBatchSize(1000)
                .setFooterCacheMaxSize(DataSize.of(128, MEGABYTE))
                .setStatsPruningEnabled(true)
                .setWriterBufferSize(DataSize.of(256, MEGABYTE))
                .setWriterTargetFileSize(DataSize.of(1, GIGABYTE))
                .setCompressionCodec(ParquetWriteCodec.ZSTD)
                .setWriterTempDir(null)
                .setUploadTimeout(new Duration(10, MINUTES))
                .setMaxReplicaReplacements(3)
                .setPushdown(PushdownMode.AUTO)
                .setAdaptiveScanModes(false)
                .setScanCompression(ScanCompression.LZ4)
                .setScanBatchSize(DataSize.of(1, MEGABYTE))
                .setRawReadMaxMergeDistance(DataSize.of(128, KILOBYTE))
                .setDynamicFilteringWaitTimeout(new Duration(1, SECONDS))
                .setDynamicFilteringMinProbeSize(DataSize.of(8, MEGABYTE))
                .setDynamicFilteringProbeWaitTimeout(new Duration(5, SECONDS))
                .setAggregationPushdownMaxGroups(10_000)
                .setScanTimeout(new Duration(1, HOURS))
                .setBusyNodeBackOff(new Duration(30, SECONDS))
                .setScanFanOutThreads(16));
    }

    @Test
    void testExplicitPropertyMappings()
    {
        Map<String, String> properties = ImmutableMap.<String, String>builder()
                .put("nsc.metadata-address", "meta.example:9000,meta-2.example:9000")
                .put("nsc.target-split-size", "8MB")
                .put("nsc.metadata-timeout", "5s")
                .put("nsc.storage-timeout", "20s")
                .put("nsc.table-files-cache-ttl", "1m")
                .put("nsc.table-files-cache-max-size", "1GB")
                .put("nsc.table-files-batch-size", "50")
                .put("nsc.footer-cache-max-size", "1GB")
                .put("nsc.stats-pruning-enabled", "false")
                .put("nsc.writer-buffer-size", "16MB")
                .put("nsc.writer-target-file-size", "128MB")
                .put("nsc.compression-codec", "SNAPPY")
                .put("nsc.writer-temp-dir", "/var/tmp/nsc")
                .put("nsc.upload-timeout", "3m")
                .put("nsc.max-replica-replacements", "0")
                .put("nsc.pushdown", "FILTER")
                .put("nsc.adaptive-scan-modes", "true")
                .put("nsc.scan-compression", "ZSTD")
                .put("nsc.scan-batch-size", "2MB")
                .put("nsc.raw-read-max-merge-distance", "1MB")
                .put("nsc.dynamic-filtering-wait-timeout", "5s")
                .put("nsc.dynamic-filtering-min-probe-size", "0B")
                .put("nsc.dynamic-filtering-probe-wait-timeout", "30s")
                .put("nsc.aggregation-pushdown-max-groups", "500")
                .put("nsc.scan-timeout", "7m")
                .put("nsc.busy-node-back-off", "2s")
                .put("nsc.scan-fan-out-threads", "4")
                .buildOrThrow();

        assertFullMapping(properties, new NscConfig()
                .setMetadataAddress("meta.example:9000,meta-2.example:9000")
                .setTargetSplitSize(DataSize.of(8, MEGABYTE))
                .setMetadataTimeout(new Duration(5, SECONDS))
                .setStorageTimeout(new Duration(20, SECONDS))
                .setTableFilesCacheTtl(new Duration(1, MINUTES))
                .setTableFilesCacheMaxSize(DataSize.of(1, GIGABYTE))
                .setTableFilesBatchSize(50)
                .setFooterCacheMaxSize(DataSize.of(1, GIGABYTE))
                .setStatsPruningEnabled(false)
                .setWriterBufferSize(DataSize.of(16, MEGABYTE))
                .setWriterTargetFileSize(DataSize.of(128, MEGABYTE))
                .setCompressionCodec(ParquetWriteCodec.SNAPPY)
                .setWriterTempDir("/var/tmp/nsc")
                .setUploadTimeout(new Duration(3, MINUTES))
                .setMaxReplicaReplacements(0)
                .setPushdown(PushdownMode.FILTER)
                .setAdaptiveScanModes(true)
                .setScanCompression(ScanCompression.ZSTD)
                .setScanBatchSize(DataSize.of(2, MEGABYTE))
                .setRawReadMaxMergeDistance(DataSize.of(1, MEGABYTE))
                .setDynamicFilteringWaitTimeout(new Duration(5, SECONDS))
                .setDynamicFilteringMinProbeSize(DataSize.of(0, BYTE))
                .setDynamicFilteringProbeWaitTimeout(new Duration(30, SECONDS))
                .setAggregationPushdownMaxGroups(500)
                .setScanTimeout(new Duration(7, MINUTES))
                .setBusyNodeBackOff(new Duration(2, SECONDS))
                .setScanFanOutThreads(4));
    }

    @Test
    void testMetadataAddressesAreValidated()
    {
        assertValidates(new NscConfig().setMetadataAddress("127.0.0.1:7070"));
        assertValidates(new NscConfig().setMetadataAddress("127.0.0.1:7070, meta-2.example:7072"));
        assertFailsValidation(new NscConfig(), "metadataAddress", "must not be null", NotNull.class);
        assertFailsValidation(new NscConfig().setMetadataAddress(""), "metadataAddress", "at least one metadata service address is needed", ValidMetadataAddresses.class);
        assertFailsValidation(new NscConfig().setMetadataAddress("127.0.0.1:7070,meta-2.example"), "metadataAddress", "metadata service address 'meta-2.example' is not host:port", ValidMetadataAddresses.class);
        assertFailsValidation(new NscConfig().setMetadataAddress("127.0.0.1:7070,"), "metadataAddress", "empty entry in the metadata service addresses: every entry must be host:port", ValidMetadataAddresses.class);
        assertFailsValidation(new NscConfig().setMetadataAddress("127.0.0.1:7070,127.0.0.1:7070"), "metadataAddress", "metadata service address 127.0.0.1:7070 is listed twice", ValidMetadataAddresses.class);
    }

    @Test
    void testCompressionCodecIsRequired()
    {
        assertFailsValidation(new NscConfig().setCompressionCodec(null), "compressionCodec", "must not be null", NotNull.class);
    }

    @Test
    void testWriterSizesAreBounded()
    {
        // the smallest writer memory fits a sorter's merge of two runs and a file's writer
        assertFailsValidation(new NscConfig().setWriterBufferSize(DataSize.of(512, KILOBYTE)), "writerBufferSize", "must be greater than or equal to 1MB", MinDataSize.class);
        assertFailsValidation(new NscConfig().setWriterTargetFileSize(DataSize.of(65, GIGABYTE)), "writerTargetFileSize", "must be less than or equal to 64GB", MaxDataSize.class);
    }
}
