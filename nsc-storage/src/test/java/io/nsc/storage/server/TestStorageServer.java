package io.nsc.storage.server;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.host.HostCpus;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.PositionalReader;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.GetFileInfoResponse;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.ScanValue;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.protocol.proto.UploadHeader;
import io.nsc.protocol.proto.UploadRequest;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.storage.store.StoreOptions;
import io.nsc.storage.store.StoredFile;
import io.trino.spi.Page;
import io.trino.spi.StandardErrorCode;
import io.trino.spi.TrinoException;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.management.ObjectName;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.nsc.storage.server.StorageTesting.await;
import static io.nsc.storage.server.StorageTesting.awaitCondition;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.completing;
import static io.nsc.storage.server.StorageTesting.crc32c;
import static io.nsc.storage.server.StorageTesting.filesUnder;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.metrics;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Locale.ENGLISH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.type;

final class TestStorageServer
{
    private static final int MAX_CHUNK = 1024;
    private static final String NODE_ID = "test-node-1";

    @TempDir
    private Path disk1;
    @TempDir
    private Path disk2;

    private StorageServer server;
    private ManagedChannel channel;
    private StorageServiceBlockingStub storage;

    @BeforeEach
    void setUp()
    {
        start();
    }

    @AfterEach
    void tearDown()
    {
        stop();
    }

    private void start()
    {
        server = StorageServer.start(properties(NODE_ID, List.of(disk1, disk2), ImmutableMap.of(
                "storage.max-response-chunk", MAX_CHUNK + "B",
                "storage.read-coalesce-gap", "512B")));
        channel = channel(server);
        storage = StorageServiceGrpc.newBlockingStub(channel);
    }

    private void stop()
    {
        if (channel != null) {
            GrpcChannels.close(channel);
            channel = null;
        }
        if (server != null) {
            server.close();
            server = null;
        }
    }

    private void restart()
    {
        stop();
        start();
    }

    @Test
    void testUploadAndReadRanges()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        ParquetFileSummary expected = ParquetFooterParser.parse(PositionalReader.ofBytes(data), data.length, "all_types.parquet");
        String id = randomFileId();

        UploadResponse response = upload(channel, id, "all_types.parquet", data, data.length, 1000);
        assertThat(response.getFileId()).isEqualTo(id);
        assertThat(response.getSizeBytes()).isEqualTo(data.length);
        assertThat(response.getRowCount()).isEqualTo(expected.rowCount()).isEqualTo(9);
        assertThat(response.getColumnsList()).isEqualTo(expected.columns().stream()
                .map(column -> Column.newBuilder().setName(column.name()).setType(column.type()).build())
                .toList());
        assertThat(response.getCompactStats().toByteArray()).isEqualTo(expected.stats().encoded());
        assertThat(response.getCrc32C()).isEqualTo(crc32c(data));

        // exactly one data dir holds it, in the documented layout, next to its checksum
        Path stored = storedPath(id);
        assertThat(stored).isIn(
                disk1.resolve("files").resolve(id.substring(0, 2)).resolve(id + ".parquet"),
                disk2.resolve("files").resolve(id.substring(0, 2)).resolve(id + ".parquet"));
        assertThat(Files.readAllBytes(stored)).isEqualTo(data);
        assertThat(stored.resolveSibling(id + ".crc")).exists();
        assertNoTemporaryFiles();

        assertThat(storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(id).build())).isEqualTo(GetFileInfoResponse.newBuilder()
                .setFileId(id)
                .setSizeBytes(data.length)
                .setRowCount(9)
                .setCompactStats(response.getCompactStats())
                .setCrc32C(crc32c(data))
                .build());

        int size = data.length;
        List<ByteRange> ranges = List.of(
                range(1000, 500),
                range(1500, 300), // adjacent to the previous one
                range(1200, 500), // overlapping both
                range(0, 4),
                range(3000, 2500), // larger than a response chunk
                range(0, size), // the whole file, out of order with the rest
                range(size - 8, 8),
                range(5000, 0),
                range(10_000, 100)); // far from the others: a read of its own
        assertThat(readRanges(id, ranges)).isEqualTo(expectedSlices(data, ranges));

        long requested = ranges.stream().mapToLong(ByteRange::getLength).sum();
        GetNodeStatsResponse stats = storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        assertThat(stats.getNodeId()).isEqualTo(NODE_ID);
        assertThat(stats.getFileCount()).isEqualTo(1);
        // the stats of the one file asked about (GetFileInfo above), with the cache's entry: none are kept per file
        assertThat(stats.getCompactStatsBytes()).isBetween((long) expected.stats().sizeInBytes(), expected.stats().sizeInBytes() + 512L);
        assertThat(stats.getColumnChunkCount()).isEqualTo(expected.stats().columnChunkCount()).isEqualTo(3L * expected.columns().size());
        assertThat(stats.getBytesUploaded()).isEqualTo(size);
        assertThat(stats.getReadRequests()).isEqualTo(1);
        assertThat(stats.getBytesSent()).isEqualTo(requested);
        assertThat(stats.getBytesReadFromDisk()).isPositive();
        // standalone: no metadata service gave the node a cluster, and nothing to disagree with
        assertThat(stats.getClusterId()).isEmpty();
        assertThat(stats.getClusterIdMismatch()).isFalse();

        // the same counters over HTTP and JMX, and the room the disks have (whatever the machine's disk holds)
        Map<String, Long> metrics = new HashMap<>(metrics(server));
        assertThat(metrics.remove("free_bytes")).isPositive();
        assertThat(metrics.remove("upload_reserved_bytes")).isZero();
        // half of this JVM's heap, by default
        assertThat(metrics.remove("memory_pool_max_bytes")).isEqualTo(Runtime.getRuntime().maxMemory() / 2);
        assertThat(metrics).isEqualTo(ImmutableMap.<String, Long>builder()
                .put("file_count", 1L)
                .put("compact_stats_bytes", stats.getCompactStatsBytes())
                .put("column_chunk_count", stats.getColumnChunkCount())
                .put("bytes_read_from_disk", stats.getBytesReadFromDisk())
                .put("bytes_sent", requested)
                .put("read_requests", 1L)
                .put("bytes_uploaded", (long) size)
                .put("files_deleted", 0L)
                .put("bytes_deleted", 0L)
                .put("cluster_id_mismatch", 0L)
                // standalone: no metadata service to reach
                .put("metadata_reachable", 0L)
                .put("scans_active", 0L)
                .put("scans_completed", 0L)
                .put("scan_rows_scanned", 0L)
                .put("scan_rows_returned", 0L)
                .put("scan_bytes_read_from_disk", 0L)
                .put("scan_bytes_sent", 0L)
                .put("scan_cpu_nanos", 0L)
                .put("files_quarantined", 0L)
                .put("corrupt_reads", 0L)
                .put("corrupt_scans", 0L)
                .put("scrub_passes_completed", 0L)
                .put("scrub_files_scrubbed", 0L)
                .put("scrub_bytes_scrubbed", 0L)
                .put("scrub_damaged_found", 0L)
                .put("scrub_last_pass_completed_millis", 0L)
                .put("scrub_current_pass_files", 0L)
                .put("scrub_current_pass_done", 0L)
                .put("copies_completed", 0L)
                .put("copies_failed", 0L)
                .put("copies_in_progress", 0L)
                .put("bytes_copied", 0L)
                .put("file_metadata_bytes", StoredFile.RETAINED_BYTES_PER_FILE)
                .put("file_stats_cache_entries", 1L)
                .put("scan_footer_cache_bytes", 0L)
                .put("scan_footer_cache_entries", 0L)
                .put("scan_page_index_cache_bytes", 0L)
                .put("scan_page_index_cache_entries", 0L)
                .put("scan_early_flushes", 0L)
                .put("scan_peak_memory_bytes", 0L)
                // the footer and page index caches' bounds are the pool's from the start; no scan has run
                .put("memory_pool_reserved_bytes", (64L + 32L) << 20)
                .put("memory_pool_peak_reserved_bytes", (64L + 32L) << 20)
                .put("memory_pool_queued", 0L)
                .put("memory_pool_queued_total", 0L)
                .put("memory_pool_refused", 0L)
                .put("scans_refused_busy", 0L)
                .buildOrThrow());
        ObjectName reader = new ObjectName("io.nsc.storage.read:name=RangeReader,node=" + NODE_ID);
        ObjectName store = new ObjectName("io.nsc.storage.store:name=ParquetFileStore,node=" + NODE_ID);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(reader, "BytesSent.TotalCount")).isEqualTo(requested);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(reader, "BytesReadFromDisk.TotalCount")).isEqualTo(stats.getBytesReadFromDisk());
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(store, "FileCount")).isEqualTo(1);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(store, "CompactStatsBytes")).isEqualTo(stats.getCompactStatsBytes());
    }

    @Test
    void testSmallRangesAreCoalesced()
    {
        byte[] data = fixture("sorted_ints.parquet");
        String id = randomFileId();
        upload(channel, id, data);

        // 20 ranges of 10 bytes, 20 bytes apart: one segment of 390 bytes, read once
        ImmutableList.Builder<ByteRange> ranges = ImmutableList.builder();
        for (int i = 0; i < 20; i++) {
            ranges.add(range(100 + i * 20L, 10));
        }
        assertThat(readRanges(id, ranges.build())).isEqualTo(expectedSlices(data, ranges.build()));
        GetNodeStatsResponse stats = storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        assertThat(stats.getBytesSent()).isEqualTo(200);
        // read once, widened to whole checksum blocks: the file is smaller than one block
        assertThat(data.length).isLessThan(StoreOptions.DEFAULT_CHECKSUM_BLOCK_SIZE);
        assertThat(stats.getBytesReadFromDisk()).isEqualTo(data.length);
    }

    @Test
    void testReadErrors()
    {
        String id = randomFileId();
        upload(channel, id, fixture("all_types.parquet"));
        long size = fixture("all_types.parquet").length;

        assertStatus(() -> readRanges(randomFileId(), List.of(range(0, 1))), Status.Code.NOT_FOUND, "not found");
        assertStatus(() -> readRanges("../../etc/passwd", List.of(range(0, 1))), Status.Code.INVALID_ARGUMENT, "Invalid file id");
        assertStatus(() -> readRanges(id, List.of(range(0, 1), range(size - 1, 2))), Status.Code.OUT_OF_RANGE, "Range 1 (offset %s, length 2) ends past the end of the file".formatted(size - 1));
        assertStatus(() -> readRanges(id, List.of(range(-1, 1))), Status.Code.OUT_OF_RANGE, "is negative");
        assertStatus(() -> readRanges(id, List.of(range(0, -1))), Status.Code.OUT_OF_RANGE, "is negative");

        assertStatus(() -> storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(randomFileId()).build()), Status.Code.NOT_FOUND, "not found");
        assertStatus(() -> storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(id.toUpperCase(ENGLISH)).build()), Status.Code.INVALID_ARGUMENT, "Invalid file id");

        assertThat(readRanges(id, List.of())).isEmpty();
    }

    @Test
    void testRejectedUploads()
    {
        byte[] allTypes = fixture("all_types.parquet");
        String id = randomFileId();

        assertRejected(id, () -> upload(channel, id, "notes.txt", repeat("not parquet at all\n", 100), 1900, 512),
                "Invalid Parquet file notes.txt (file %s): not a Parquet file".formatted(id));
        byte[] truncated = Arrays.copyOf(allTypes, allTypes.length - 100);
        assertRejected(id, () -> upload(channel, id, "truncated.parquet", truncated, truncated.length, 4096),
                "Invalid Parquet file truncated.parquet (file %s)".formatted(id));
        assertRejected(id, () -> upload(channel, id, "short.parquet", allTypes, allTypes.length + 10, 4096),
                "size mismatch: the header announced %s bytes, received %s".formatted(allTypes.length + 10, allTypes.length));
        assertRejected(id, () -> upload(channel, id, "long.parquet", allTypes, allTypes.length - 10, 4096),
                "received more than the %s bytes the header announced".formatted(allTypes.length - 10));
        assertRejected(id, () -> upload(channel, id, "nested.parquet", fixture("nested.parquet"), fixture("nested.parquet").length, 4096),
                "nested type (struct/list/map) is not supported");
        assertRejected(id, () -> uploadMessages(List.of(data(allTypes))), "The first upload message must be the header");
        assertRejected(id, () -> uploadMessages(List.of()), "Upload without a header");
        assertRejected(id, () -> uploadMessages(List.of(header(id, 10), header(id, 10))), "a second header");
        assertRejected(id, () -> uploadMessages(List.of(header("../../etc/passwd", 10), data(new byte[10]))), "Invalid file id '../../etc/passwd'");
        assertRejected(id, () -> uploadMessages(List.of(header(id, -1))), "negative size");

        // nothing of the failures stays in the way of a good upload
        assertThat(upload(channel, id, allTypes).getRowCount()).isEqualTo(9);
        assertThat(storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getFileCount()).isEqualTo(1);
    }

    @Test
    void testRepeatedUpload()
    {
        byte[] data = fixture("all_types.parquet");
        String id = randomFileId();
        UploadResponse first = upload(channel, id, data);

        // the same bytes again (a client retrying after a lost answer) succeed with the same answer
        assertThat(upload(channel, id, data)).isEqualTo(first);

        byte[] other = fixture("sorted_ints.parquet");
        assertStatus(() -> upload(channel, id, other), Status.Code.ALREADY_EXISTS, "already exists");
        // same size, one byte different inside the data pages: still valid Parquet, another file
        byte[] sameSizeOtherBytes = data.clone();
        sameSizeOtherBytes[100]++;
        assertStatus(() -> upload(channel, id, sameSizeOtherBytes), Status.Code.ALREADY_EXISTS, "already exists");

        assertNoTemporaryFiles();
        assertThat(readRanges(id, List.of(range(0, data.length)))).containsExactly(ByteString.copyFrom(data));
    }

    @Test
    void testCancelledUpload()
    {
        byte[] data = fixture("all_types.parquet");
        String id = randomFileId();
        CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        ClientCallStreamObserver<UploadRequest> requests = (ClientCallStreamObserver<UploadRequest>) StorageServiceGrpc.newStub(channel)
                .upload(completing(result));
        requests.onNext(header(id, data.length));
        requests.onNext(data(Arrays.copyOf(data, 1000)));
        awaitCondition("the upload's temporary file exists", () -> !temporaryFiles().isEmpty());

        requests.cancel("test cancels the upload", null);
        awaitCondition("the temporary file is deleted", () -> temporaryFiles().isEmpty());
        assertThat(filesUnder(disk1.resolve("files"))).isEmpty();
        assertThat(filesUnder(disk2.resolve("files"))).isEmpty();
        assertStatus(() -> storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(id).build()), Status.Code.NOT_FOUND, "not found");

        // the id is free again once the server has seen the cancellation
        awaitCondition("the id can be uploaded", () -> {
            try {
                return upload(channel, id, data).getSizeBytes() == data.length;
            }
            catch (StatusRuntimeException e) {
                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
                return false;
            }
        });
    }

    @Test
    void testRestart()
            throws IOException
    {
        byte[] allTypes = fixture("all_types.parquet");
        byte[] sortedInts = fixture("sorted_ints.parquet");
        String allTypesId = randomFileId();
        String sortedIntsId = randomFileId();
        upload(channel, allTypesId, allTypes);
        upload(channel, sortedIntsId, sortedInts);
        GetFileInfoResponse allTypesInfo = fileInfo(allTypesId);
        fileInfo(sortedIntsId);
        stop();

        // leftovers of an interrupted upload; a checksum file of version 0 (whole file only);
        // a lost checksum file, which leaves no way to tell good bytes from bad
        Path leftover = Files.writeString(disk1.resolve("tmp").resolve(randomFileId() + ".0123.part"), "partial");
        Path legacyCrc = storedPath(allTypesId).resolveSibling(allTypesId + ".crc");
        Files.writeString(legacyCrc, "%08x %d\n".formatted(allTypesInfo.getCrc32C(), allTypes.length));
        Path crcFile = storedPath(sortedIntsId).resolveSibling(sortedIntsId + ".crc");
        Path sortedIntsPath = storedPath(sortedIntsId);
        Path dataDir = sortedIntsPath.getParent().getParent().getParent();
        Files.delete(crcFile);

        start();
        assertThat(leftover).doesNotExist();
        // upgraded in place, because the bytes still have the recorded checksum
        assertThat(Files.size(legacyCrc)).isGreaterThan(24);
        assertThat(fileInfo(allTypesId)).isEqualTo(allTypesInfo);
        assertThat(readRanges(allTypesId, List.of(range(0, allTypes.length)))).containsExactly(ByteString.copyFrom(allTypes));
        assertStatus(() -> fileInfo(sortedIntsId), Status.Code.NOT_FOUND, "not found");
        assertThat(sortedIntsPath).doesNotExist();
        assertThat(dataDir.resolve("quarantine").resolve(sortedIntsId + ".parquet")).hasBinaryContent(sortedInts);
        GetNodeStatsResponse stats = storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        assertThat(stats.getFileCount()).isEqualTo(1);
        // the stats of the file asked about, with the cache's entry
        assertThat(stats.getCompactStatsBytes()).isBetween((long) allTypesInfo.getCompactStats().size(), allTypesInfo.getCompactStats().size() + 512L);

        // a third start reads the upgraded checksums
        restart();
        assertThat(fileInfo(allTypesId)).isEqualTo(allTypesInfo);
    }

    @Test
    void testLegacyChecksumOfChangedBytesIsNotUpgraded()
            throws IOException
    {
        byte[] allTypes = fixture("all_types.parquet");
        String id = randomFileId();
        upload(channel, id, allTypes);
        GetFileInfoResponse info = fileInfo(id);
        Path path = storedPath(id);
        stop();

        Files.writeString(path.resolveSibling(id + ".crc"), "%08x %d\n".formatted(info.getCrc32C(), allTypes.length));
        byte[] flipped = allTypes.clone();
        flipped[100] ^= 0x01;
        Files.write(path, flipped);

        start();
        assertStatus(() -> fileInfo(id), Status.Code.NOT_FOUND, "not found");
        assertThat(path.getParent().getParent().getParent().resolve("quarantine").resolve(id + ".parquet")).hasBinaryContent(flipped);
    }

    @Test
    void testDamagedBytesFailReadsAndScansWithDataLoss()
            throws IOException
    {
        byte[] data = fixture("all_types.parquet");
        String readId = randomFileId();
        String scanId = randomFileId();
        upload(channel, readId, data);
        upload(channel, scanId, data);
        // one bit flipped behind the node's back, in the first column chunk: same size, footer intact
        for (String id : List.of(readId, scanId)) {
            Path path = storedPath(id);
            byte[] flipped = data.clone();
            flipped[10] ^= 0x04;
            Files.write(path, flipped);
        }

        assertStatus(() -> readRanges(readId, List.of(range(0, 20))), Status.Code.DATA_LOSS, "Copy of file %s on this node is damaged".formatted(readId));
        assertStatus(() -> scan(ScanRequest.newBuilder()
                .setFileId(scanId)
                .addRowGroups(0)
                .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("integer").setOutput(true))
                .build()), Status.Code.DATA_LOSS, "Copy of file %s on this node is damaged".formatted(scanId));

        // both copies are quarantined: later calls answer NOT_FOUND, and the node reports them
        assertStatus(() -> fileInfo(readId), Status.Code.NOT_FOUND, "not found");
        assertStatus(() -> fileInfo(scanId), Status.Code.NOT_FOUND, "not found");
        GetNodeStatsResponse stats = storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        assertThat(stats.getFilesQuarantined()).isEqualTo(2);
        assertThat(stats.getCorruptReads()).isEqualTo(1);
        assertThat(stats.getCorruptScans()).isEqualTo(1);
    }

    @Test
    void testDamagedFileIsQuarantined()
            throws IOException
    {
        byte[] allTypes = fixture("all_types.parquet");
        String damagedId = randomFileId();
        String goodId = randomFileId();
        upload(channel, damagedId, allTypes);
        upload(channel, goodId, fixture("sorted_ints.parquet"));
        Path damaged = storedPath(damagedId);
        Path dataDir = damaged.getParent().getParent().getParent();
        stop();

        // overwrite the footer (same size, so only parsing can tell)
        byte[] corrupted = allTypes.clone();
        Arrays.fill(corrupted, corrupted.length - 200, corrupted.length, (byte) 0);
        Files.write(damaged, corrupted);

        start();
        assertStatus(() -> fileInfo(damagedId), Status.Code.NOT_FOUND, "not found");
        assertThat(damaged).doesNotExist();
        assertThat(damaged.resolveSibling(damagedId + ".crc")).doesNotExist();
        assertThat(dataDir.resolve("quarantine").resolve(damagedId + ".parquet")).hasBinaryContent(corrupted);
        assertThat(dataDir.resolve("quarantine").resolve(damagedId + ".crc")).exists();
        assertThat(fileInfo(goodId).getRowCount()).isPositive();
        assertThat(storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getFileCount()).isEqualTo(1);
    }

    @Test
    void testFailedStartLeavesNothingBehind()
    {
        Map<String, String> taken = properties("test-node-2", List.of(disk1), ImmutableMap.of("storage.grpc-port", String.valueOf(server.grpcPort())));
        assertThatThrownBy(() -> StorageServer.start(taken))
                .hasMessageContaining("Cannot bind gRPC port 127.0.0.1:" + server.grpcPort());

        // the same node starts fine once the port is free of it: nothing (MBeans, threads) was left registered
        try (StorageServer second = StorageServer.start(properties("test-node-2", List.of(disk1), ImmutableMap.of()))) {
            assertThat(second.nodeId()).isEqualTo("test-node-2");
        }
    }

    @Test
    void testScanSkipsPagesThePageIndexRulesOut()
            throws Exception
    {
        // ids 0..19,999 sorted in 2 row groups of small pages, with page indexes (pyarrow's)
        byte[] data = fixture("page_index.parquet");
        String id = randomFileId();
        upload(channel, id, "page_index.parquet", data, data.length, 1000);
        ScanColumn rowId = ScanColumn.newBuilder().setOrdinal(0).setType("bigint").setOutput(true).build();
        TupleDomain<Integer> fewIds = TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 12_340L, true, 12_345L, true)), false)));
        ScanRequest request = ScanRequest.newBuilder()
                .setFileId(id)
                .addAllRowGroups(List.of(0, 1))
                .addColumns(rowId)
                .setPredicate(TupleDomainCodec.encode(fewIds, List.of(BIGINT)))
                .setCompression(PageCompression.PAGE_COMPRESSION_ZSTD)
                .build();

        ScanResult result = scan(request);
        assertThat(result.rows()).isEqualTo(6);
        // the pages around the six ids (about 500 rows each), not the 20,000 rows of both row groups
        assertThat(result.summary().getRowsScanned()).isPositive().isLessThan(2_000);
        // both row groups' indexes were read (the statistics rule out all of the first and part of
        // the second) and are kept: the next scan of the file reads none of them again
        ObjectName scanner = new ObjectName("io.nsc.storage.scan:name=NearStorageScanner,node=" + NODE_ID);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(scanner, "PageIndexCache.Entries")).isEqualTo(2L);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(scanner, "PageIndexCache.Misses")).isEqualTo(2L);
        assertThat(scan(request).summary().getRowsScanned()).isEqualTo(result.summary().getRowsScanned());
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(scanner, "PageIndexCache.Hits")).isEqualTo(2L);
        assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(scanner, "PageIndexCache.Misses")).isEqualTo(2L);
        assertThat(metrics(server).get("scan_page_index_cache_bytes")).isPositive();

        // without a predicate on the column every row is read
        assertThat(scan(request.toBuilder().clearPredicate().build()).summary().getRowsScanned()).isEqualTo(20_000);
    }

    @Test
    void testScanFiltersProjectsAndLimits()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        String id = randomFileId();
        upload(channel, id, "all_types.parquet", data, data.length, 1000);
        // column 0 is the row id (0..8, three row groups), column 11 the varchar
        ScanColumn rowId = ScanColumn.newBuilder().setOrdinal(0).setType("integer").setOutput(false).build();
        ScanColumn text = ScanColumn.newBuilder().setOrdinal(11).setType("varchar").setOutput(true).build();
        TupleDomain<Integer> idAtLeastThree = TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.ofRanges(Range.greaterThanOrEqual(INTEGER, 3L)), false)));
        ScanRequest request = ScanRequest.newBuilder()
                .setFileId(id)
                .addAllRowGroups(List.of(0, 1, 2))
                .addColumns(rowId)
                .addColumns(text)
                .setPredicate(TupleDomainCodec.encode(idAtLeastThree, List.of(INTEGER, VARCHAR)))
                .setCompression(PageCompression.PAGE_COMPRESSION_ZSTD)
                .build();

        ScanResult all = scan(request);
        assertThat(all.summary().getRowsScanned()).isEqualTo(9);
        assertThat(all.summary().getRowsReturned()).isEqualTo(all.rows()).isEqualTo(6);
        assertThat(all.channels()).isEqualTo(1);
        assertThat(all.summary().getBytesReadFromDisk()).isPositive();
        assertThat(all.summary().getBytesSent()).isPositive();
        assertThat(all.summary().getCpuNanos()).isPositive();

        ScanResult limited = scan(request.toBuilder().setLimit(2).build());
        assertThat(limited.rows()).isEqualTo(2);
        ScanResult lastRowGroup = scan(request.toBuilder().clearRowGroups().addRowGroups(2).build());
        assertThat(lastRowGroup.summary().getRowsScanned()).isEqualTo(3);

        GetNodeStatsResponse stats = storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance());
        assertThat(stats.getScansCompleted()).isEqualTo(3);
        assertThat(stats.getScansActive()).isZero();
        assertThat(stats.getScanRowsReturned()).isEqualTo(6 + 2 + lastRowGroup.rows());

        assertStatus(() -> scan(request.toBuilder().setColumns(1, text.toBuilder().setType("no_such_type")).build()), Status.Code.INVALID_ARGUMENT, "unknown column type");
        assertStatus(() -> scan(request.toBuilder().clearRowGroups().addRowGroups(7).build()), Status.Code.OUT_OF_RANGE, "row group 7");
        // a column past the file's last, which the table gained since: NULL in every row, so no
        // row has it at least three and the predicate on it keeps none
        ScanResult added = scan(request.toBuilder().setColumns(1, text.toBuilder().setOrdinal(99)).build());
        assertThat(added.rows()).isEqualTo(6);
        ScanColumn addedId = rowId.toBuilder().setOrdinal(99).build();
        assertThat(scan(request.toBuilder().setColumns(0, addedId).build()).rows()).isZero();
        TupleDomain<Integer> addedIsNull = TupleDomain.withColumnDomains(Map.of(0, Domain.onlyNull(INTEGER)));
        assertThat(scan(request.toBuilder().setColumns(0, addedId).setPredicate(TupleDomainCodec.encode(addedIsNull, List.of(INTEGER, VARCHAR))).build()).rows()).isEqualTo(9);
        assertStatus(() -> scan(request.toBuilder().clearRowGroups().build()), Status.Code.INVALID_ARGUMENT, "no row group");
        assertStatus(() -> scan(request.toBuilder().setFileId(randomFileId()).build()), Status.Code.NOT_FOUND, "not found");
    }

    @Test
    void testScanComputesValuesAndPassesTheQuerysErrorsOn()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        String id = randomFileId();
        upload(channel, id, "all_types.parquet", data, data.length, 1000);
        // column 0 is the row id (0..8), column 11 the varchar; channel 2 is id * 10, channel 3 id * 1000000000
        ValueExpression rowId = ValueExpression.column(0, INTEGER);
        ValueExpression times10 = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, rowId, new ValueExpression.Constant(INTEGER, 10L));
        ValueExpression timesBillion = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, rowId, new ValueExpression.Constant(INTEGER, 1_000_000_000L));
        ScanRequest request = ScanRequest.newBuilder()
                .setFileId(id)
                .addAllRowGroups(List.of(0, 1, 2))
                .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("integer"))
                .addColumns(ScanColumn.newBuilder().setOrdinal(11).setType("varchar"))
                .addComputed(RowExpressionCodec.encode(times10))
                .addComputed(RowExpressionCodec.encode(timesBillion))
                // the computed value first, then the text
                .addAllOutputChannels(List.of(2, 1))
                // id * 10 >= 30
                .addFilters(RowExpressionCodec.encode(new RowExpression.Comparison(ValueExpression.column(2, INTEGER), RowExpression.Operator.GREATER_THAN_OR_EQUAL, new ValueExpression.Constant(INTEGER, 30L))))
                .setCompression(PageCompression.PAGE_COMPRESSION_NONE)
                .build();

        List<Long> computed = new ArrayList<>();
        Iterator<ScanResponse> responses = storage.scan(request);
        PageCodec codec = new PageCodec(request.getCompression());
        while (responses.hasNext()) {
            ScanResponse response = responses.next();
            if (response.hasBatch()) {
                for (Page page : codec.decode(response.getBatch())) {
                    assertThat(page.getChannelCount()).isEqualTo(2);
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        computed.add((long) INTEGER.getInt(page.getBlock(0), position));
                    }
                }
            }
        }
        assertThat(computed).containsExactly(30L, 40L, 50L, 60L, 70L, 80L);

        // id * 1000000000 overflows an integer from id 3 on: Trino's error, not the node's, with Trino's code
        ScanRequest overflowing = request.toBuilder().clearOutputChannels().addAllOutputChannels(List.of(3)).build();
        assertThatThrownBy(() -> scan(overflowing))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.OUT_OF_RANGE);
                    TrinoException failure = QueryFailures.fromStatus(e).orElseThrow();
                    assertThat(failure.getErrorCode()).isEqualTo(StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode());
                    assertThat(failure).hasMessage("integer multiplication overflow: 3 * 1000000000");
                });
        // what does not decode is a bad request
        assertStatus(() -> scan(request.toBuilder().addAllOutputChannels(List.of(4)).build()), Status.Code.INVALID_ARGUMENT, "outputs channel 4 of 4");
        ScanValue mistyped = RowExpressionCodec.encode(times10).toBuilder().setType("bigint").build();
        assertStatus(() -> scan(request.toBuilder().setComputed(0, mistyped).build()), Status.Code.INVALID_ARGUMENT, "declared as bigint");
    }

    @Test
    void testScansTakeTurnsOnTheScanThreads()
            throws Exception
    {
        // one scan thread: eight concurrent scans take turns on it and all finish, with the same rows
        stop();
        server = StorageServer.start(properties(NODE_ID, List.of(disk1, disk2), ImmutableMap.of("storage.scan-threads", "1")));
        channel = channel(server);
        storage = StorageServiceGrpc.newBlockingStub(channel);
        byte[] data = fixture("all_types.parquet");
        String id = randomFileId();
        upload(channel, id, "all_types.parquet", data, data.length, 1000);
        ScanRequest request = ScanRequest.newBuilder()
                .setFileId(id)
                .addAllRowGroups(List.of(0, 1, 2))
                .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("integer").setOutput(true))
                .addColumns(ScanColumn.newBuilder().setOrdinal(11).setType("varchar").setOutput(true))
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4)
                .build();
        List<CompletableFuture<ScanResult>> scans = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            scans.add(CompletableFuture.supplyAsync(() -> scan(request)));
        }
        for (CompletableFuture<ScanResult> scan : scans) {
            ScanResult result = await(scan);
            assertThat(result.rows()).isEqualTo(9);
            assertThat(result.channels()).isEqualTo(2);
        }
        assertThat(storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance()).getScansCompleted()).isEqualTo(8);
    }

    private record ScanResult(long rows, int channels, ScanSummary summary) {}

    private ScanResult scan(ScanRequest request)
    {
        PageCodec codec = new PageCodec(request.getCompression());
        long rows = 0;
        int channels = -1;
        ScanSummary summary = null;
        Iterator<ScanResponse> responses = storage.scan(request);
        while (responses.hasNext()) {
            ScanResponse response = responses.next();
            assertThat(summary).as("nothing after the summary").isNull();
            if (response.hasSummary()) {
                summary = response.getSummary();
                continue;
            }
            for (Page page : codec.decode(response.getBatch())) {
                rows += page.getPositionCount();
                channels = page.getChannelCount();
            }
        }
        assertThat(summary).isNotNull();
        return new ScanResult(rows, channels, summary);
    }

    @Test
    void testFreshNodeStats()
    {
        assertThat(server.nodeId()).isEqualTo(NODE_ID);
        assertThat(storage.getNodeStats(GetNodeStatsRequest.getDefaultInstance()))
                .isEqualTo(GetNodeStatsResponse.newBuilder()
                        .setNodeId(NODE_ID)
                        .setAvailableProcessors(Runtime.getRuntime().availableProcessors())
                        .setHost(HostCpus.current().host())
                        .setCpus(HostCpus.current().cpuList())
                        .build());
        assertThat(disk1.resolve("files")).isDirectory();
        assertThat(disk2.resolve("tmp")).isDirectory();
    }

    private GetFileInfoResponse fileInfo(String id)
    {
        return storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(id).build());
    }

    /**
     * Reads ranges and checks the stream's shape: request order, each message within the chunk
     * limit, each range's messages contiguous from its offset and no more of them than needed.
     * Returns each range's bytes.
     */
    private List<ByteString> readRanges(String id, List<ByteRange> ranges)
    {
        Iterator<ReadRangesResponse> responses = storage.readRanges(ReadRangesRequest.newBuilder().setFileId(id).addAllRanges(ranges).build());
        ByteString[] results = new ByteString[ranges.size()];
        Arrays.fill(results, ByteString.EMPTY);
        int[] messages = new int[ranges.size()];
        int lastIndex = 0;
        while (responses.hasNext()) {
            ReadRangesResponse response = responses.next();
            int index = response.getRangeIndex();
            assertThat(index).isGreaterThanOrEqualTo(lastIndex);
            lastIndex = index;
            assertThat(response.getData().size()).isLessThanOrEqualTo(MAX_CHUNK);
            assertThat(response.getOffset()).isEqualTo(ranges.get(index).getOffset() + results[index].size());
            results[index] = results[index].concat(response.getData());
            messages[index]++;
        }
        for (int index = 0; index < ranges.size(); index++) {
            // full chunks, except that a range starting inside an earlier read's buffer may first finish that buffer
            int fullChunks = (int) ((ranges.get(index).getLength() + MAX_CHUNK - 1) / MAX_CHUNK);
            assertThat(messages[index]).as("messages for range %s", index)
                    .isBetween(Math.max(1, fullChunks), Math.max(1, fullChunks + 1));
        }
        return List.of(results);
    }

    private static List<ByteString> expectedSlices(byte[] data, List<ByteRange> ranges)
    {
        return ranges.stream()
                .map(range -> ByteString.copyFrom(data, (int) range.getOffset(), (int) range.getLength()))
                .toList();
    }

    private UploadResponse uploadMessages(List<UploadRequest> messages)
    {
        CompletableFuture<UploadResponse> result = new CompletableFuture<>();
        StreamObserver<UploadRequest> requests = StorageServiceGrpc.newStub(channel).upload(completing(result));
        messages.forEach(requests::onNext);
        requests.onCompleted();
        return await(result);
    }

    private void assertRejected(String id, Runnable upload, String message)
    {
        assertStatus(upload, Status.Code.INVALID_ARGUMENT, message);
        assertNoTemporaryFiles();
        assertThat(filesUnder(disk1.resolve("files"))).isEmpty();
        assertThat(filesUnder(disk2.resolve("files"))).isEmpty();
        assertStatus(() -> fileInfo(id), Status.Code.NOT_FOUND, "not found");
    }

    private static void assertStatus(Runnable call, Status.Code code, String message)
    {
        assertThatThrownBy(call::run)
                .asInstanceOf(type(StatusRuntimeException.class))
                .satisfies(e -> assertThat(e.getStatus().getCode()).isEqualTo(code))
                .satisfies(e -> assertThat(e.getStatus().getDescription()).contains(message));
    }

    private void assertNoTemporaryFiles()
    {
        // the server deletes a failed upload's file before it answers
        assertThat(temporaryFiles()).isEmpty();
    }

    private List<Path> temporaryFiles()
    {
        return ImmutableList.<Path>builder()
                .addAll(filesUnder(disk1.resolve("tmp")))
                .addAll(filesUnder(disk2.resolve("tmp")))
                .build();
    }

    private Path storedPath(String id)
    {
        List<Path> found = ImmutableList.<Path>builder()
                .addAll(filesUnder(disk1.resolve("files")))
                .addAll(filesUnder(disk2.resolve("files")))
                .build()
                .stream()
                .filter(path -> path.getFileName().toString().equals(id + ".parquet"))
                .toList();
        assertThat(found).hasSize(1);
        return found.getFirst();
    }

    private static ByteRange range(long offset, long length)
    {
        return ByteRange.newBuilder().setOffset(offset).setLength(length).build();
    }

    private static UploadRequest header(String id, long size)
    {
        return UploadRequest.newBuilder().setHeader(UploadHeader.newBuilder().setFileId(id).setSizeBytes(size)).build();
    }

    private static UploadRequest data(byte[] data)
    {
        return UploadRequest.newBuilder().setData(ByteString.copyFrom(data)).build();
    }

    private static byte[] repeat(String text, int times)
    {
        return text.repeat(times).getBytes(UTF_8);
    }
}
