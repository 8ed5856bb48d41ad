package io.nsc.trino.split;

import com.google.common.collect.Iterators;
import com.google.protobuf.ByteString;
import io.airlift.units.DataSize;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.nsc.metadata.server.MetadataServer;
import io.nsc.parquet.stats.ColumnSketches;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.HeartbeatRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RegisterNodeRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.KeyKind;
import io.nsc.trino.NscConfig;
import io.nsc.trino.PushdownMode;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.metadata.NscColumnHandle;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.metadata.TableFilesCache;
import io.trino.plugin.base.metrics.LongCount;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.ConnectorSplitSource.ConnectorSplitBatch;
import io.trino.spi.connector.DynamicFilter;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.trino.spi.type.BigintType.BIGINT;

/**
 * Split generation for a synthetic table of many files (default 20,000 files of 16 columns, one
 * row group each, with column sketches, as CTAS writes them), against an in-process metadata
 * service: the whole table in one GetTableFiles message planned at once (what the coordinator
 * did before), against the paged listing planned a batch at a time. Reports the time to the last
 * split (median of the rounds) and what the coordinator holds: the file entries, by their
 * retained-size estimate, and the largest message. Not a test: run it with
 * {@code benchmarks/split-generation/run.sh}.
 */
public final class BenchmarkSplitGeneration
{
    private static final int NODES = 3;

    private BenchmarkSplitGeneration() {}

    public static void main(String[] args)
            throws Exception
    {
        int fileCount = Integer.parseInt(option(args, "--files", "20000"));
        int columns = Integer.parseInt(option(args, "--columns", "16"));
        int rounds = Integer.parseInt(option(args, "--rounds", "5"));
        int batchSize = Integer.parseInt(option(args, "--batch", "1000"));
        // the service's logging takes over System.out once it starts
        PrintStream out = System.out;
        Path dataDir = Files.createTempDirectory("bench-split-generation");
        try (MetadataServer server = MetadataServer.start(Map.of(
                "metadata.data-dir", dataDir.resolve("metadata").toString(),
                "metadata.grpc-port", "0",
                "metadata.http-port", "0",
                "metadata.tls.insecure", "true",
                // the service's largest limits: the whole table in one answer, as before pages existed, is
                // the baseline (a service with its default limits refuses it with RESOURCE_EXHAUSTED)
                "metadata.table-files-page-max-files", "100000",
                "metadata.table-files-page-max-size", "32MB"))) {
            String address = "127.0.0.1:" + server.grpcPort();
            ManagedChannel channel = GrpcChannels.forAddress(address, TransportSecurity.insecure());
            try {
                MetadataServiceBlockingStub metadata = MetadataServiceGrpc.newBlockingStub(channel);
                long started = System.nanoTime();
                CommitFilesResponse table = createTable(metadata, fileCount, columns);
                out.printf("table: %,d files of %d columns committed in %.1f s (version %d)%n", fileCount, columns, (System.nanoTime() - started) / 1e9, table.getVersion());
                run(out, metadata, address, table, columns, rounds, batchSize);
            }
            finally {
                GrpcChannels.close(channel);
            }
        }
        finally {
            deleteRecursively(dataDir);
        }
    }

    private static void run(PrintStream out, MetadataServiceBlockingStub metadata, String address, CommitFilesResponse table, int columns, int rounds, int batchSize)
    {
        List<NscColumnHandle> handles = IntStream.range(0, columns).mapToObj(column -> new NscColumnHandle("c" + column, BIGINT, column)).collect(toImmutableList());
        NscTableHandle handle = NscTableHandle.forTable(new SchemaTableName("bench", "t"), table.getTableId(), table.getVersion(), handles, Map.of());
        RowGroupPlanner planner = new RowGroupPlanner(DataSize.of(32, DataSize.Unit.MEGABYTE).toBytes());

        // before: one message with every file and its sketches, as the connector asked for it
        try {
            GetTableFilesResponse withSketches = metadata.getTableFiles(GetTableFilesRequest.newBuilder().setTableId(table.getTableId()).build());
            out.printf("before: the whole table with its sketches in one message of %,d bytes%n", withSketches.getSerializedSize());
        }
        catch (StatusRuntimeException e) {
            out.printf("before: the whole table with its sketches in one message fails: %s%n", e.getStatus());
        }
        // before, at best: the whole table without sketches in one message, decoded, kept and planned at once
        GetTableFilesRequest wholeRequest = GetTableFilesRequest.newBuilder().setTableId(table.getTableId()).setOmitColumnSketches(true).build();
        GetTableFilesResponse whole = metadata.getTableFiles(wholeRequest);
        List<FileEntry> allFiles = TableFiles.filesOf(whole);
        long wholeBytes = new TableFiles(table.getTableId(), table.getVersion(), allFiles).retainedSizeInBytes();
        long wholeSplits = planner.plan(allFiles, Optional.empty()).splits().size();
        double wholeMillis = medianMillis(rounds, () -> planner.plan(TableFiles.filesOf(metadata.getTableFiles(wholeRequest)), Optional.empty()).splits().size());

        // after: pages of one version, planned a batch at a time by the split source, nothing cached
        NscConfig config = new NscConfig()
                .setMetadataAddress(address)
                .setTableFilesBatchSize(batchSize)
                .setTableFilesCacheMaxSize(DataSize.ofBytes(0));
        NscMetadataClient client = new NscMetadataClient(config, TransportSecurity.insecure());
        StorageNodeLoad noLoad = new StorageNodeLoad(new StorageClients(TransportSecurity.insecure()));
        try {
            TableFilesCache cache = new TableFilesCache(client, config);
            long[] heldPeakBytes = new long[1];
            LongSupplier streamed = () -> {
                ScanPlanner scan = new ScanPlanner(handle, PushdownMode.RAW, Optional.of(StatsPredicates.toPruningPredicate(TupleDomain.all())), planner, noLoad, true);
                NscSplitSource source = new NscSplitSource(
                        // the cache is off: nothing is kept besides the batch, whose bytes are measured here
                        () -> TableFileBatches.of(Iterators.transform(cache.fileBatches(handle), batch -> {
                            heldPeakBytes[0] = Math.max(heldPeakBytes[0], batch.stream().mapToLong(FileEntry::retainedSizeInBytes).sum());
                            return batch;
                        })),
                        scan,
                        Optional.empty(),
                        DynamicFilter.EMPTY,
                        0);
                long splits = 0;
                while (!source.isFinished()) {
                    ConnectorSplitBatch batch = source.getNextBatch(1000).join();
                    splits += batch.getSplits().size();
                }
                if (((LongCount) source.getMetrics().getMetrics().get(RowGroupPlanner.FILES_LISTED)).getTotal() != whole.getFilesCount()) {
                    throw new IllegalStateException("the split source did not list every file");
                }
                return splits;
            };
            long streamedSplits = streamed.getAsLong();
            if (streamedSplits != wholeSplits) {
                throw new IllegalStateException("%s splits streamed, %s planned at once".formatted(streamedSplits, wholeSplits));
            }
            double streamedMillis = medianMillis(rounds, streamed);
            long largestPage = largestPage(metadata, table, batchSize);

            out.printf("before, without sketches (one message, planned at once): %,d splits in %.0f ms (median of %d); message %,d bytes; file entries held %,d bytes%n",
                    wholeSplits, wholeMillis, rounds, whole.getSerializedSize(), wholeBytes);
            out.printf("after (pages of %d files, planned per batch, table-files cache off): %,d splits in %.0f ms (median of %d); largest page %,d bytes; file entries held at most %,d bytes%n",
                    batchSize, streamedSplits, streamedMillis, rounds, largestPage, heldPeakBytes[0]);
            long summaryStart = System.nanoTime();
            cache.summary(handle);
            out.printf("statistics folded over the pages (with sketches): %.0f ms%n", (System.nanoTime() - summaryStart) / 1e6);
        }
        finally {
            client.close();
        }
    }

    private static long largestPage(MetadataServiceBlockingStub metadata, CommitFilesResponse table, int batchSize)
    {
        long largest = 0;
        ByteString token = ByteString.EMPTY;
        do {
            GetTableFilesResponse page = metadata.getTableFiles(GetTableFilesRequest.newBuilder()
                    .setTableId(table.getTableId())
                    .setVersion(table.getVersion())
                    .setPageSize(batchSize)
                    .setPageToken(token)
                    .setOmitColumnSketches(true)
                    .build());
            largest = Math.max(largest, page.getSerializedSize());
            token = page.getNextPageToken();
        }
        while (!token.isEmpty());
        return largest;
    }

    private static double medianMillis(int rounds, LongSupplier work)
    {
        // one warm-up round: class loading and JIT are not what is measured
        long _ = work.getAsLong();
        double[] millis = new double[rounds];
        for (int round = 0; round < rounds; round++) {
            long start = System.nanoTime();
            long _ = work.getAsLong();
            millis[round] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(millis);
        return millis[rounds / 2];
    }

    private static CommitFilesResponse createTable(MetadataServiceBlockingStub metadata, int fileCount, int columns)
    {
        for (int node = 0; node < NODES; node++) {
            metadata.registerNode(RegisterNodeRequest.newBuilder()
                    .setNodeId("node-" + node)
                    .setAddress("127.0.0.1:" + (17001 + node))
                    .setCapacityBytes(1L << 40)
                    .setFreeBytes(1L << 40)
                    .build());
        }
        metadata.createSchema(CreateSchemaRequest.newBuilder().setSchemaName("bench").build());
        List<Column> tableColumns = IntStream.range(0, columns).mapToObj(column -> Column.newBuilder().setName("c" + column).setType("bigint").build()).collect(toImmutableList());
        ByteString sketches = ByteString.copyFrom(sketches(columns));
        Random random = new Random(1);
        CommitFilesResponse last = null;
        int committed = 0;
        while (committed < fileCount) {
            int count = Math.min(1000, fileCount - committed);
            for (int node = 0; node < NODES; node++) {
                metadata.heartbeat(HeartbeatRequest.newBuilder().setNodeId("node-" + node).setFreeBytes(1L << 40).build());
            }
            List<DataFile> files = new ArrayList<>();
            for (FileAllocation allocation : metadata.allocateFiles(AllocateFilesRequest.newBuilder().setFileCount(count).setReplication(2).build()).getFilesList()) {
                long rows = 100_000 + random.nextInt(1000);
                files.add(DataFile.newBuilder()
                        .setFileId(allocation.getFileId())
                        .setSizeBytes(8_000_000)
                        .setRowCount(rows)
                        .addAllReplicaNodeIds(allocation.getReplicasList().stream().map(StorageNode::getNodeId).toList())
                        .setCompactStats(ByteString.copyFrom(stats(random, columns, rows).encoded()))
                        .setColumnSketches(sketches)
                        .build());
            }
            last = metadata.commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName("bench")
                    .setTableName("t")
                    .addAllColumns(tableColumns)
                    .setCreateTable(true)
                    .addAllFiles(files)
                    .build());
            committed += count;
        }
        return last;
    }

    private static CompactFileStats stats(Random random, int columns, long rows)
    {
        CompactFileStats.Builder stats = CompactFileStats.builder(Collections.nCopies(columns, KeyKind.EXACT));
        stats.addRowGroup(rows, 4);
        for (int column = 0; column < columns; column++) {
            long min = random.nextInt(1_000_000);
            stats.addColumnChunk(500_000, OptionalLong.of(min), OptionalLong.of(min + random.nextInt(1_000_000)), 0);
        }
        return stats.footer(8_000_000 - 20_000, 20_000).build();
    }

    /** Sketches of many distinct values per column, the size a large file's are. */
    private static byte[] sketches(int columns)
    {
        List<Type> types = Collections.nCopies(columns, BIGINT);
        ColumnSketches sketches = ColumnSketches.create(types);
        Random random = new Random(2);
        BlockBuilder[] blocks = new BlockBuilder[columns];
        for (int column = 0; column < columns; column++) {
            blocks[column] = BIGINT.createBlockBuilder(null, 100_000);
            for (int row = 0; row < 100_000; row++) {
                BIGINT.writeLong(blocks[column], random.nextLong());
            }
        }
        sketches.add(new Page(Arrays.stream(blocks).map(BlockBuilder::build).toArray(Block[]::new)));
        return sketches.serialize();
    }

    private static String option(String[] args, String name, String defaultValue)
    {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return defaultValue;
    }

    private static void deleteRecursively(Path path)
            throws IOException
    {
        try (Stream<Path> paths = Files.walk(path)) {
            for (Path each : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(each);
            }
        }
    }
}
