package io.nsc.storage.scan;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.PositionalReader;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.storage.server.StorageServer;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static com.google.common.io.MoreFiles.deleteRecursively;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.fixture;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.BigintType.BIGINT;

/**
 * Coverage-guided fuzzing of what a storage node does with a file it accepted: real Parquet
 * files (one with page indexes and small pages, one of every type) with a few bytes changed are
 * uploaded to a node, and every file the node accepts is scanned, every column of every row group,
 * with and without a range on the first column (so that page indexes are followed). A refused
 * upload must say INVALID_ARGUMENT; a scan of an accepted file must finish, or fail with a status
 * that names the file as undecodable (DATA_LOSS) or over its limits (RESOURCE_EXHAUSTED,
 * INVALID_ARGUMENT). Anything else (INTERNAL, an exception, an OutOfMemoryError on the fork's
 * small heap, a node that stops answering) is a finding.
 * <p>
 * {@code ./nsc test} fuzzes for a few seconds; {@code ./nsc fuzz upload-scan --duration 10m} for longer.
 */
class UploadThenScanFuzzTest
{
    private static final List<String> SEEDS = List.of("page_index.parquet", "all_types.parquet");
    private static final Set<Status.Code> SCAN_REFUSALS = Set.of(Status.Code.DATA_LOSS, Status.Code.RESOURCE_EXHAUSTED, Status.Code.INVALID_ARGUMENT);
    private static final int MAX_CHANGES = 8;
    // a node has no call to delete one file: a fresh node (and disk) every so many accepted files
    // keeps the disk and the node's in-memory file metadata small however long the fuzzing runs
    private static final int FILES_PER_NODE = 500;

    private static Path directory;
    private static int filesStored;
    private static StorageServer server;
    private static ManagedChannel channel;
    private static StorageServiceBlockingStub storage;
    private static List<byte[]> seeds;

    @BeforeAll
    static void startNode()
            throws IOException
    {
        seeds = SEEDS.stream().map(name -> fixture(name)).toList();
        directory = Files.createTempDirectory("nsc-scan-fuzz");
        // a small scan budget: what a file declares must be refused within it, not allocated
        server = StorageServer.start(properties("fuzz", List.of(directory.resolve("disk")), ImmutableMap.of("storage.scan-memory-limit", "16MB")));
        channel = channel(server);
        storage = StorageServiceGrpc.newBlockingStub(channel);
        filesStored = 0;
    }

    @AfterAll
    static void stopNode()
            throws IOException
    {
        GrpcChannels.close(channel);
        server.close();
        deleteRecursively(directory);
    }

    @FuzzTest(maxDuration = "15s")
    void fuzz(FuzzedDataProvider data)
            throws Exception
    {
        byte[] file = seeds.get(data.consumeInt(0, seeds.size() - 1)).clone();
        int changes = data.consumeInt(1, MAX_CHANGES);
        for (int change = 0; change < changes; change++) {
            file[data.consumeInt(0, file.length - 1)] = data.consumeByte();
        }
        String id = randomFileId();
        try {
            upload(channel, id, file);
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT) {
                throw e;
            }
            return;
        }
        // the node parsed the same footer: its columns and row groups are what a client would ask for
        ParquetFileSummary summary = ParquetFooterParser.parse(PositionalReader.ofBytes(file), file.length, "fuzzed.parquet");
        for (ScanRequest request : scans(id, summary)) {
            scan(request);
        }
        if (++filesStored == FILES_PER_NODE) {
            stopNode();
            startNode();
        }
    }

    private static List<ScanRequest> scans(String id, ParquetFileSummary summary)
    {
        List<ScanColumn> columns = new ArrayList<>();
        for (int ordinal = 0; ordinal < summary.columns().size(); ordinal++) {
            ColumnSpec column = summary.columns().get(ordinal);
            columns.add(ScanColumn.newBuilder().setOrdinal(ordinal).setType(column.type()).setOutput(true).build());
        }
        ScanRequest all = ScanRequest.newBuilder()
                .setFileId(id)
                .addAllRowGroups(IntStream.range(0, summary.stats().rowGroupCount()).boxed().toList())
                .addAllColumns(columns)
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4)
                .build();
        List<ScanRequest> requests = new ArrayList<>(List.of(all));
        if (summary.columns().getFirst().type().equals("bigint")) {
            // a range a page index narrows to a few pages
            TupleDomain<Integer> range = TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 12_340L, true, 12_345L, true)), false)));
            requests.add(all.toBuilder().setPredicate(TupleDomainCodec.encode(range, List.of(BIGINT))).build());
        }
        return requests;
    }

    private static void scan(ScanRequest request)
    {
        try {
            Iterator<ScanResponse> responses = storage.scan(request);
            while (responses.hasNext()) {
                responses.next();
            }
        }
        catch (StatusRuntimeException e) {
            if (!SCAN_REFUSALS.contains(e.getStatus().getCode())) {
                throw e;
            }
        }
    }
}
