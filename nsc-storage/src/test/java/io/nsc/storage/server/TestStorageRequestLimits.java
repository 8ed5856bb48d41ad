package io.nsc.storage.server;

import com.google.common.collect.ImmutableMap;
import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.parquet.wire.PageCodec;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.NodeBusy;
import io.nsc.protocol.parquet.PageHeaderRewriter;
import io.nsc.protocol.proto.AggregateFunction;
import io.nsc.protocol.proto.ByteRange;
import io.nsc.protocol.proto.ColumnDomain;
import io.nsc.protocol.proto.ComparisonOperator;
import io.nsc.protocol.proto.GetFileInfoRequest;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ReadRangesRequest;
import io.nsc.protocol.proto.ReadRangesResponse;
import io.nsc.protocol.proto.ScanAggregate;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanComparison;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanIn;
import io.nsc.protocol.proto.ScanLike;
import io.nsc.protocol.proto.ScanPredicate;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSortKey;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Requests and files crafted to take a storage node down, sent to a real node over gRPC: each
 * is answered with INVALID_ARGUMENT or RESOURCE_EXHAUSTED, and the node serves the next request.
 */
@TestInstance(PER_CLASS)
final class TestStorageRequestLimits
{
    private static final String NODE_ID = "limits-node";
    private static final int MANY = 200_000_000;
    // all_types.parquet: column 0 the row id (integer, 9 rows in 3 row groups), column 11 a varchar
    private static final ScanColumn ROW_ID = ScanColumn.newBuilder().setOrdinal(0).setType("integer").setOutput(true).build();
    private static final ScanColumn TEXT = ScanColumn.newBuilder().setOrdinal(11).setType("varchar").setOutput(true).build();

    @TempDir
    private static Path disk;
    private StorageServer server;
    private ManagedChannel channel;
    private StorageServiceBlockingStub storage;
    private String allTypes;
    private String manyGroups;

    @BeforeAll
    void setUp()
            throws Exception
    {
        server = StorageServer.start(properties(NODE_ID, List.of(disk.resolve("data")), ImmutableMap.<String, String>builder()
                .put("storage.scan-memory-limit", "16MB")
                .put("storage.max-scan-row-groups", "3")
                .put("storage.max-read-ranges", "5")
                .put("storage.max-expression-depth", "10")
                .put("storage.max-request-size", "1MB")
                .put("storage.max-page-size", "8MB")
                .buildOrThrow()));
        channel = channel(server);
        storage = StorageServiceGrpc.newBlockingStub(channel);
        byte[] data = fixture("all_types.parquet");
        allTypes = randomFileId();
        upload(channel, allTypes, data);
        manyGroups = randomFileId();
        upload(channel, manyGroups, distinctStrings(disk.resolve("distinct.parquet"), 100_000));
    }

    @AfterAll
    void tearDown()
    {
        GrpcChannels.close(channel);
        server.close();
    }

    @Test
    void testPredicateValueClaimingManyPositions()
    {
        // 30 bytes that claim 200M longs: Trino's decoder would allocate 1.6GB before reading them
        ByteString value = block("LONG_ARRAY", out -> {
            out.writeInt(MANY);
            out.writeBoolean(false);
            out.writeLong(1);
        });
        assertThat(value.size()).isLessThanOrEqualTo(30);
        assertRefused(scan(plainScan().setPredicate(ScanPredicate.newBuilder()
                .addDomains(ColumnDomain.newBuilder().setColumn(0).setBounds(value).setInclusive(ByteString.copyFrom(new byte[2]))))
                .build()), Status.Code.INVALID_ARGUMENT, "truncated block");
        assertRefused(scan(plainScan().addFilters(ScanExpression.newBuilder().setIn(ScanIn.newBuilder().setColumn(0).setValues(value))).build()),
                Status.Code.INVALID_ARGUMENT, "truncated block");
        assertServes();
    }

    @Test
    void testPageBatchLikePayloadsThatExpand()
    {
        // a run-length block of 200M positions is a few bytes on the wire and gigabytes once expanded
        ByteString runLength = block("RLE", out -> {
            out.writeInt(MANY);
            writeName(out, "INT_ARRAY");
            out.writeInt(1);
            out.writeBoolean(false);
            out.writeInt(7);
        });
        long before = counter("ScansRefusedMemory");
        assertRefused(scan(plainScan().addFilters(ScanExpression.newBuilder().setIn(ScanIn.newBuilder().setColumn(0).setValues(runLength))).build()),
                Status.Code.RESOURCE_EXHAUSTED, "exceeds its memory limit of 16MB");
        assertThat(counter("ScansRefusedMemory")).isEqualTo(before + 1);
        // a comparison value that is a whole page batch's worth of garbage
        ByteString batch = ByteString.copyFrom(new PageCodec(PageCompression.PAGE_COMPRESSION_NONE).newBatch().build().toByteArray()).concat(ByteString.copyFrom(new byte[64]));
        assertRefused(scan(plainScan().addFilters(ScanExpression.newBuilder().setComparison(ScanComparison.newBuilder()
                .setColumn(0)
                .setOperator(ComparisonOperator.COMPARISON_OPERATOR_EQUAL)
                .setValue(batch))).build()), Status.Code.INVALID_ARGUMENT, "bad predicate");
        assertServes();
    }

    @Test
    void testRowGroupsMustBeDistinctAscendingAndFew()
    {
        long before = counter("ScansRefusedInvalid");
        assertRefused(scan(plainScan().clearRowGroups().addAllRowGroups(List.of(0, 0)).build()), Status.Code.INVALID_ARGUMENT, "ascending order");
        assertRefused(scan(plainScan().clearRowGroups().addAllRowGroups(List.of(2, 1)).build()), Status.Code.INVALID_ARGUMENT, "ascending order");
        assertRefused(scan(plainScan().clearRowGroups().addAllRowGroups(List.of(-1)).build()), Status.Code.INVALID_ARGUMENT, "negative row group");
        assertRefused(scan(plainScan().clearRowGroups().addAllRowGroups(List.of(0, 1, 2, 3)).build()), Status.Code.INVALID_ARGUMENT, "more than the 3 allowed");
        assertRefused(scan(plainScan().clearRowGroups().addAllRowGroups(Collections.nCopies(2_000_000, 0)).build()), Status.Code.INVALID_ARGUMENT, "more than the 1048576 allowed");
        assertThat(counter("ScansRefusedInvalid")).isEqualTo(before + 5);
        assertServes();
    }

    @Test
    void testTooManyRanges()
    {
        ReadRangesRequest.Builder request = ReadRangesRequest.newBuilder().setFileId(allTypes);
        for (int i = 0; i < 6; i++) {
            request.addRanges(ByteRange.newBuilder().setOffset(i * 10L).setLength(10));
        }
        assertRefused(() -> storage.readRanges(request.build()).forEachRemaining(_ -> {}), Status.Code.INVALID_ARGUMENT, "6 ranges, more than the 5 allowed");
        Iterator<ReadRangesResponse> fine = storage.readRanges(request.removeRanges(5).build());
        int messages = 0;
        while (fine.hasNext()) {
            fine.next();
            messages++;
        }
        assertThat(messages).isPositive();
    }

    @Test
    void testDeeplyNestedExpressions()
    {
        assertRefused(scan(plainScan().addFilters(nested(11)).build()), Status.Code.INVALID_ARGUMENT, "nested deeper than 10");
        // nine NOTs over a row id that is never NULL: every row
        assertThat(scan(plainScan().addFilters(nested(10)).build()).run()).isEqualTo(9);
        // deeper than protobuf parses at all (100): refused before the service sees it, and the node lives on
        assertRefused(scan(plainScan().addFilters(nested(200)).build()), Status.Code.INVALID_ARGUMENT, "Malformed Scan request");
        assertServes();
    }

    @Test
    void testAdversarialLikeAnswers()
    {
        String pattern = "%a%a%a%a%a%a%a%a%a%a%a%a%b";
        assertThat(scan(plainScan().addFilters(like(pattern)).build()).run()).isZero();
        // the same pattern through a long value: a request of the allowed size, answered by a result, not a timeout
        ScanExpression longPattern = like("%" + "a%".repeat(100_000) + "b");
        assertThat(scan(plainScan().addFilters(longPattern).build()).run()).isZero();
        assertRefused(scan(plainScan().addFilters(like("%".repeat(2_000_000))).build()), Status.Code.INVALID_ARGUMENT, "more than the 1048576 allowed");
        assertServes();
    }

    @Test
    void testGroupByPastItsShareOfTheBudgetSendsPartialStatesEarly()
    {
        ScanColumn key = ScanColumn.newBuilder().setOrdinal(0).setType("varchar").setOutput(true).build();
        ScanRequest groupBy = ScanRequest.newBuilder()
                .setFileId(manyGroups)
                .addRowGroups(0)
                .addColumns(key)
                .setAggregate(true)
                .addGroupBy(0)
                .addAggregates(ScanAggregate.newBuilder().setFunction(AggregateFunction.AGGREGATE_FUNCTION_COUNT_ALL))
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4)
                .build();
        long refusedBefore = counter("ScansRefusedMemory");
        long flushesBefore = counter("EarlyFlushes");
        // 100,000 groups of 40-character keys take about 24MB; half of the 16MB budget holds a third of them
        ScanResult result = runScan(groupBy);
        assertThat(result.summary().getEarlyFlushes()).isBetween(2L, 5L);
        assertThat(result.summary().getPeakMemoryBytes()).isPositive().isLessThanOrEqualTo(16L << 20);
        assertThat(counter("EarlyFlushes")).isEqualTo(flushesBefore + result.summary().getEarlyFlushes());
        assertThat(counter("ScansRefusedMemory")).isEqualTo(refusedBefore);
        // every key once (each is in one flush only), each counted once
        Map<String, Long> counts = new HashMap<>();
        for (Page page : result.pages()) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                counts.merge(VARCHAR.getSlice(page.getBlock(0), position).toStringUtf8(), BIGINT.getLong(page.getBlock(1), position), Long::sum);
            }
        }
        assertThat(counts).hasSize(100_000);
        assertThat(counts.values()).containsOnly(1L);
        assertThat(result.summary().getRowsReturned()).isEqualTo(100_000);
        assertThat(peakScanMemory()).isLessThanOrEqualTo(16L << 20);
        // the same file scanned plainly streams within the budget too
        assertThat(scan(groupBy.toBuilder().setAggregate(false).clearGroupBy().clearAggregates().build()).run()).isEqualTo(100_000);
        assertServes();
    }

    @Test
    void testTopNPastItsShareOfTheBudgetSendsItsRowsEarly()
    {
        // the last 50,000 keys: a heap of them takes about 14MB, more than half of the 16MB budget
        ScanRequest topN = ScanRequest.newBuilder()
                .setFileId(manyGroups)
                .addRowGroups(0)
                .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("varchar").setOutput(true))
                .setTopN(50_000)
                .addOrder(ScanSortKey.newBuilder().setColumn(0).setAscending(false))
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4)
                .build();
        ScanResult result = runScan(topN);
        assertThat(result.summary().getEarlyFlushes()).isPositive();
        assertThat(result.summary().getPeakMemoryBytes()).isLessThanOrEqualTo(16L << 20);
        assertThat(result.summary().getRowsReturned()).isGreaterThan(50_000);
        // what Trino's own top-N over the rows sent keeps: the 50,000 greatest keys
        List<String> keys = new ArrayList<>();
        for (Page page : result.pages()) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                keys.add(VARCHAR.getSlice(page.getBlock(0), position).toStringUtf8());
            }
        }
        keys.sort(Comparator.reverseOrder());
        List<String> expected = new ArrayList<>();
        for (int row = 99_999; row >= 50_000; row--) {
            expected.add("%040d".formatted(row));
        }
        assertThat(keys.subList(0, 50_000)).isEqualTo(expected);
        assertServes();
    }

    @Test
    void testUploadWithAPageHeaderClaimingAHugeSize()
    {
        byte[] huge = PageHeaderRewriter.rewriteFirstPageHeader(fixture("all_types.parquet"), header -> header.setUncompressed_page_size(Integer.MAX_VALUE));
        String id = randomFileId();
        assertRefused(() -> upload(channel, id, huge), Status.Code.INVALID_ARGUMENT, "page of 2147483647 bytes");
        assertRefused(() -> storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(id).build()), Status.Code.NOT_FOUND, "not found");
        // the node takes the next upload
        String next = randomFileId();
        upload(channel, next, fixture("all_types.parquet"));
        assertThat(storage.getFileInfo(GetFileInfoRequest.newBuilder().setFileId(next).build()).getRowCount()).isEqualTo(9);
    }

    private void assertServes()
    {
        assertThat(scan(plainScan().build()).run()).isEqualTo(9);
    }

    private ScanRequest.Builder plainScan()
    {
        return ScanRequest.newBuilder()
                .setFileId(allTypes)
                .addAllRowGroups(List.of(0, 1, 2))
                .addColumns(ROW_ID)
                .addColumns(TEXT)
                .setCompression(PageCompression.PAGE_COMPRESSION_ZSTD);
    }

    /** A scan to run: the number of rows it returns. */
    private interface ScanRun
    {
        long run();
    }

    private ScanRun scan(ScanRequest request)
    {
        return () -> {
            PageCodec codec = new PageCodec(request.getCompression());
            long rows = 0;
            Iterator<ScanResponse> responses = storage.scan(request);
            while (responses.hasNext()) {
                ScanResponse response = responses.next();
                if (response.hasBatch()) {
                    for (Page page : codec.decode(response.getBatch())) {
                        rows += page.getPositionCount();
                    }
                }
            }
            return rows;
        };
    }

    private record ScanResult(List<Page> pages, ScanSummary summary) {}

    private ScanResult runScan(ScanRequest request)
    {
        PageCodec codec = new PageCodec(request.getCompression());
        List<Page> pages = new ArrayList<>();
        ScanSummary summary = null;
        Iterator<ScanResponse> responses = storage.scan(request);
        while (responses.hasNext()) {
            ScanResponse response = responses.next();
            if (response.hasBatch()) {
                pages.addAll(codec.decode(response.getBatch()));
            }
            else {
                summary = response.getSummary();
            }
        }
        assertThat(summary).isNotNull();
        return new ScanResult(pages, summary);
    }

    private static long peakScanMemory()
    {
        try {
            return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName("io.nsc.storage.scan:name=NearStorageScanner,node=" + NODE_ID), "PeakScanMemoryBytes");
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void assertRefused(ScanRun scan, Status.Code code, String message)
    {
        Executable call = scan::run;
        assertRefused(call, code, message);
    }

    private static void assertRefused(Executable call, Status.Code code, String message)
    {
        assertThatThrownBy(call::execute)
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
                    assertThat(e.getStatus().getDescription()).contains(message);
                    // the request's own limits, not a busy node: no hint that another node, or this one later, would serve it
                    assertThat(NodeBusy.retryAfterMillis(e)).isEmpty();
                });
    }

    private static long counter(String name)
    {
        try {
            return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName("io.nsc.storage.scan:name=NearStorageScanner,node=" + NODE_ID), name + ".TotalCount");
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static ScanExpression nested(int depth)
    {
        // IS NULL under depth - 1 NOTs
        ScanExpression expression = ScanExpression.newBuilder().setIsNull(0).build();
        for (int i = 1; i < depth; i++) {
            expression = ScanExpression.newBuilder().setNot(expression).build();
        }
        return expression;
    }

    private static ScanExpression like(String pattern)
    {
        return ScanExpression.newBuilder().setLike(ScanLike.newBuilder().setColumn(1).setPattern(pattern)).build();
    }

    private interface Body
    {
        void write(DynamicSliceOutput out);
    }

    private static ByteString block(String name, Body body)
    {
        DynamicSliceOutput out = new DynamicSliceOutput(64);
        writeName(out, name);
        body.write(out);
        return ByteString.copyFrom(out.slice().getBytes());
    }

    private static void writeName(DynamicSliceOutput out, String name)
    {
        out.writeInt(name.length());
        out.writeBytes(name.getBytes(US_ASCII));
    }

    /** One row group of distinct 40-character strings. */
    private static byte[] distinctStrings(Path path, int rows)
            throws Exception
    {
        BlockBuilder keys = VARCHAR.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            VARCHAR.writeSlice(keys, utf8Slice("%040d".formatted(row)));
        }
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, List.of("key"), List.of(VARCHAR), CompressionCodec.SNAPPY)) {
            writer.writeRowGroup(new Page(keys.build()));
        }
        return Files.readAllBytes(path);
    }
}
