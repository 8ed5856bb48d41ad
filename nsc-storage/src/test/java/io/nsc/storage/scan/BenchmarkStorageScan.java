package io.nsc.storage.scan;

import com.google.common.collect.ImmutableMap;
import io.grpc.ManagedChannel;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanAggregate;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanResponse;
import io.nsc.protocol.proto.ScanSummary;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.storage.server.StorageServer;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.Type;
import org.apache.parquet.format.CompressionCodec;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.IntStream;

import static io.airlift.slice.Slices.utf8Slice;
import static io.nsc.storage.server.StorageTesting.channel;
import static io.nsc.storage.server.StorageTesting.properties;
import static io.nsc.storage.server.StorageTesting.randomFileId;
import static io.nsc.storage.server.StorageTesting.upload;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static java.lang.Double.doubleToLongBits;
import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The storage node's scan rate: rows and Parquet bytes a node decodes, filters and aggregates per
 * CPU second of its scan, for scans the connector sends. One in-process storage node holds a TPC-H
 * lineitem file (as {@code nsc-node tool tpch} writes it: ZSTD, row groups of 100,000 rows) and a
 * generated wide table (about 90 numeric columns, the first sorted); each scan runs once to warm
 * up, then {@code --rounds} times; the CPU is what the node's summary reports for the scan
 * (its threads' CPU time), so the figure holds whatever else the machine runs. {@code --only TEXT}
 * runs the scans whose name contains it (for a profile).
 *
 * <pre>
 *   benchmarks/scan-rate/run.sh --lineitem var/tpch/sf1/lineitem/lineitem-000.parquet
 * </pre>
 */
public final class BenchmarkStorageScan
{
    // lineitem's columns in file order, as the generator writes them
    private static final List<Type> LINEITEM = List.of(BIGINT, BIGINT, BIGINT, INTEGER, DOUBLE, DOUBLE, DOUBLE, DOUBLE,
            createVarcharType(1), createVarcharType(1), DATE, DATE, DATE, createVarcharType(25), createVarcharType(10), createVarcharType(44));
    private static final int L_ORDERKEY = 0;
    private static final int L_PARTKEY = 1;
    private static final int L_SUPPKEY = 2;
    private static final int L_QUANTITY = 4;
    private static final int L_EXTENDEDPRICE = 5;
    private static final int L_DISCOUNT = 6;
    private static final int L_TAX = 7;
    private static final int L_RETURNFLAG = 8;
    private static final int L_LINESTATUS = 9;
    private static final int L_SHIPDATE = 10;
    private static final int L_SHIPINSTRUCT = 13;
    private static final int L_SHIPMODE = 14;
    private static final int L_COMMENT = 15;
    private static final int WIDE_BIGINTS = 45;
    private static final int WIDE_DOUBLES = 45;
    private static final int WIDE_ROWS_PER_ROW_GROUP = 100_000;

    private BenchmarkStorageScan() {}

    public static void main(String[] args)
            throws Exception
    {
        // the node's logging takes System.out over: results go to the process's own standard output
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, UTF_8);
        Map<String, String> options = options(args);
        Path lineitem = Path.of(options.getOrDefault("lineitem", "")).toAbsolutePath();
        if (!Files.isRegularFile(lineitem)) {
            throw new IllegalArgumentException("--lineitem names no file: " + lineitem);
        }
        int wideRows = Integer.parseInt(options.getOrDefault("wide-rows", "1000000"));
        int rounds = Integer.parseInt(options.getOrDefault("rounds", "5"));

        Path directory = Files.createTempDirectory("nsc-scan-benchmark");
        Path wide = directory.resolve("wide.parquet");
        writeWideTable(wide, wideRows);
        StorageServer server = StorageServer.start(properties("benchmark", List.of(directory.resolve("disk")), ImmutableMap.of(
                "storage.scrub-rate", "0B")));
        ManagedChannel channel = channel(server);
        try (TrinoScanPath trino = new TrinoScanPath(lineitem)) {
            StorageServiceBlockingStub storage = StorageServiceGrpc.newBlockingStub(channel);
            String lineitemId = store(channel, lineitem);
            String wideId = store(channel, wide);
            int lineitemRowGroups = Integer.parseInt(options.getOrDefault("lineitem-row-groups", "20"));
            int wideRowGroups = (wideRows + WIDE_ROWS_PER_ROW_GROUP - 1) / WIDE_ROWS_PER_ROW_GROUP;

            out.printf("lineitem: %s (%,d bytes); wide: %,d rows x %d columns (%,d bytes); %d rounds after a warm-up%n",
                    lineitem, Files.size(lineitem), wideRows, 1 + WIDE_BIGINTS + WIDE_DOUBLES, Files.size(wide), rounds);
            // MB/round: the column chunks' stored (compressed) bytes, what a raw-mode read sends over the link
            out.printf("%-34s %14s %14s %16s %12s %12s %10s %16s %14s %7s%n", "scan", "rows scanned", "rows sent", "rows/CPU s", "MB/CPU s", "CPU s/round", "MB/round",
                    "Trino rows/CPU s", "Trino rows out", "ratio");
            Map<String, Scan> scans = new LinkedHashMap<>();
            scans.put("lineitem 1% unsorted, sum", new Scan(lineitemFilterSum(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.filterSum())));
            scans.put("lineitem 1% unsorted, rows", new Scan(lineitemFilterRows(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.filterRows())));
            scans.put("lineitem full, sum", new Scan(lineitemFullSum(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.fullSum())));
            scans.put("lineitem Q1", new Scan(lineitemQ1(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.q1())));
            scans.put("lineitem Q6 (all row groups)", new Scan(lineitemQ6(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.q6())));
            scans.put("lineitem Q8 partkey IN 1,333", new Scan(lineitemQ8(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.q8())));
            scans.put("lineitem Q19 lineitem side", new Scan(lineitemQ19(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.q19())));
            scans.put("lineitem comment NOT LIKE, sum", new Scan(lineitemCommentNotLikeSum(lineitemId, lineitemRowGroups), Optional.of(TrinoPlans.commentNotLikeSum())));
            scans.put("wide 1% unsorted, sum", new Scan(wideFilterSum(wideId, wideRowGroups, wideRows), Optional.empty()));
            scans.put("wide 1% sorted, sum", new Scan(wideSortedSum(wideId, wideRowGroups, wideRows), Optional.empty()));
            scans.put("wide full, sum of 10 columns", new Scan(wideSumOfTen(wideId, wideRowGroups), Optional.empty()));
            String only = options.getOrDefault("only", "");
            boolean withTrino = !options.getOrDefault("trino", "true").equals("false");
            // a scan's whole name picks it alone ("lineitem Q1", not Q19 too); otherwise every scan whose name contains the text
            boolean exact = scans.containsKey(only);
            for (Map.Entry<String, Scan> entry : scans.entrySet()) {
                if (exact ? !entry.getKey().equals(only) : !entry.getKey().contains(only)) {
                    continue;
                }
                Scan scan = entry.getValue();
                Optional<TrinoScanPath.Plan> trinoPlan = scan.trino().filter(plan -> withTrino);
                run(storage, scan.request());
                if (trinoPlan.isPresent()) {
                    trino.run(trinoPlan.get(), lineitemRowGroups);
                }
                long cpu = 0;
                long rowsScanned = 0;
                long rowsSent = 0;
                long bytesRead = 0;
                long trinoCpu = 0;
                long trinoRowsScanned = 0;
                long trinoRowsOut = 0;
                // the two paths in turn, round by round: whatever else the machine does falls on both
                for (int round = 0; round < rounds; round++) {
                    ScanSummary summary = run(storage, scan.request());
                    cpu += summary.getCpuNanos();
                    rowsScanned += summary.getRowsScanned();
                    rowsSent += summary.getRowsReturned();
                    bytesRead += summary.getBytesReadFromDisk();
                    if (trinoPlan.isPresent()) {
                        TrinoScanPath.Result result = trino.run(trinoPlan.get(), lineitemRowGroups);
                        trinoCpu += result.cpuNanos();
                        trinoRowsScanned += result.rowsScanned();
                        trinoRowsOut += result.rowsOut();
                    }
                }
                double seconds = cpu / 1e9;
                double nscRate = rowsScanned / seconds;
                String trinoRate = "-";
                String trinoOut = "-";
                String ratio = "-";
                if (trinoPlan.isPresent()) {
                    double trinoRateValue = trinoRowsScanned / (trinoCpu / 1e9);
                    trinoRate = "%,.0f".formatted(trinoRateValue);
                    trinoOut = "%,d".formatted(trinoRowsOut / rounds);
                    ratio = "%.2f".formatted(nscRate / trinoRateValue);
                }
                out.printf("%-34s %,14d %,14d %,16.0f %12.1f %12.3f %10.1f %16s %14s %7s%n",
                        entry.getKey(), rowsScanned / rounds, rowsSent / rounds, nscRate, bytesRead / seconds / 1e6, seconds / rounds, bytesRead / 1e6 / rounds, trinoRate, trinoOut, ratio);
            }
            out.println("Trino rows/CPU s: trino-parquet's ParquetReader (the columns needed, the page index by the same predicate) feeding the");
            out.println("PageProcessor Trino's ExpressionCompiler compiles for the filter and projections, then Trino's partial aggregation operator;");
            out.println("in this JVM, on the benchmark's thread, rounds interleaved with the storage scan's. ratio = nsc / Trino (>= 1.0: nsc is cheaper).");
            out.println("Trino rows out: its projected rows, or its partial aggregation's rows (rows sent is nsc's, also partial states).");
        }
        finally {
            GrpcChannels.close(channel);
            server.close();
            try (var files = Files.walk(directory)) {
                files.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
    }

    private record Scan(ScanRequest request, Optional<TrinoScanPath.Plan> trino) {}

    private static ScanSummary run(StorageServiceBlockingStub storage, ScanRequest request)
    {
        Iterator<ScanResponse> responses = storage.scan(request);
        ScanSummary summary = null;
        while (responses.hasNext()) {
            ScanResponse response = responses.next();
            if (response.hasSummary()) {
                summary = response.getSummary();
            }
        }
        if (summary == null) {
            throw new IllegalStateException("scan ended without a summary");
        }
        return summary;
    }

    private static String store(ManagedChannel channel, Path file)
            throws Exception
    {
        String id = randomFileId();
        byte[] data = Files.readAllBytes(file);
        upload(channel, id, file.getFileName().toString(), data, data.length, 1 << 20);
        return id;
    }

    // SELECT sum(l_extendedprice) WHERE l_partkey <= 2000: 1% of the keys of sf1, spread over every row group
    private static ScanRequest lineitemFilterSum(String fileId, int rowGroups)
    {
        return scan(fileId, rowGroups, List.of(column(L_PARTKEY, LINEITEM), column(L_EXTENDEDPRICE, LINEITEM)))
                .setPredicate(predicate(Map.of(0, Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(BIGINT, 2000L)), false)), types(L_PARTKEY, L_EXTENDEDPRICE)))
                .addOutputChannels(1)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    // SELECT l_orderkey, l_extendedprice WHERE l_partkey <= 2000
    private static ScanRequest lineitemFilterRows(String fileId, int rowGroups)
    {
        return scan(fileId, rowGroups, List.of(column(L_PARTKEY, LINEITEM), column(L_ORDERKEY, LINEITEM), column(L_EXTENDEDPRICE, LINEITEM)))
                .setPredicate(predicate(Map.of(0, Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(BIGINT, 2000L)), false)), types(L_PARTKEY, L_ORDERKEY, L_EXTENDEDPRICE)))
                .addOutputChannels(1)
                .addOutputChannels(2)
                .build();
    }

    private static ScanRequest lineitemFullSum(String fileId, int rowGroups)
    {
        return scan(fileId, rowGroups, List.of(column(L_EXTENDEDPRICE, LINEITEM)))
                .addOutputChannels(0)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    // TPC-H Q1: group by return flag and line status, eight aggregates, two over computed values
    private static ScanRequest lineitemQ1(String fileId, int rowGroups)
    {
        // channels: 0 returnflag, 1 linestatus, 2 quantity, 3 extendedprice, 4 discount, 5 tax, 6 shipdate; 7, 8 computed
        ValueExpression price = ValueExpression.column(3, DOUBLE);
        ValueExpression discounted = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, price,
                ValueExpression.arithmetic(ArithmeticOperator.SUBTRACT, new ValueExpression.Constant(DOUBLE, 1.0), ValueExpression.column(4, DOUBLE)));
        ValueExpression charged = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, discounted,
                ValueExpression.arithmetic(ArithmeticOperator.ADD, new ValueExpression.Constant(DOUBLE, 1.0), ValueExpression.column(5, DOUBLE)));
        long shipdate = LocalDate.parse("1998-09-02").toEpochDay();
        return scan(fileId, rowGroups, List.of(column(L_RETURNFLAG, LINEITEM), column(L_LINESTATUS, LINEITEM), column(L_QUANTITY, LINEITEM),
                column(L_EXTENDEDPRICE, LINEITEM), column(L_DISCOUNT, LINEITEM), column(L_TAX, LINEITEM), column(L_SHIPDATE, LINEITEM)))
                .setPredicate(predicate(Map.of(6, Domain.create(ValueSet.ofRanges(Range.lessThanOrEqual(DATE, shipdate)), false)),
                        types(L_RETURNFLAG, L_LINESTATUS, L_QUANTITY, L_EXTENDEDPRICE, L_DISCOUNT, L_TAX, L_SHIPDATE)))
                .addComputed(RowExpressionCodec.encode(discounted))
                .addComputed(RowExpressionCodec.encode(charged))
                // outputs: 0 returnflag, 1 linestatus, 2 quantity, 3 extendedprice, 4 discounted, 5 charged, 6 discount
                .addAllOutputChannels(List.of(0, 1, 2, 3, 7, 8, 4))
                .setAggregate(true)
                .addGroupBy(0)
                .addGroupBy(1)
                .addAggregates(aggregate(AggregateKind.SUM, 2))
                .addAggregates(aggregate(AggregateKind.SUM, 3))
                .addAggregates(aggregate(AggregateKind.SUM, 4))
                .addAggregates(aggregate(AggregateKind.SUM, 5))
                .addAggregates(aggregate(AggregateKind.AVG, 2))
                .addAggregates(aggregate(AggregateKind.AVG, 3))
                .addAggregates(aggregate(AggregateKind.AVG, 6))
                .addAggregates(aggregate(AggregateKind.COUNT_ALL, 0))
                .build();
    }

    // TPC-H Q6 over every row group (the coordinator would prune most of them by ship date)
    private static ScanRequest lineitemQ6(String fileId, int rowGroups)
    {
        // channels: 0 shipdate, 1 discount, 2 quantity, 3 extendedprice; 4 computed
        long from = LocalDate.parse("1994-01-01").toEpochDay();
        long to = LocalDate.parse("1995-01-01").toEpochDay();
        ValueExpression revenue = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, ValueExpression.column(3, DOUBLE), ValueExpression.column(1, DOUBLE));
        return scan(fileId, rowGroups, List.of(column(L_SHIPDATE, LINEITEM), column(L_DISCOUNT, LINEITEM), column(L_QUANTITY, LINEITEM), column(L_EXTENDEDPRICE, LINEITEM)))
                .setPredicate(predicate(Map.of(
                                0, Domain.create(ValueSet.ofRanges(Range.range(DATE, from, true, to, false)), false),
                                1, Domain.create(ValueSet.ofRanges(Range.range(DOUBLE, 0.05, true, 0.07, true)), false),
                                2, Domain.create(ValueSet.ofRanges(Range.lessThan(DOUBLE, 24.0)), false)),
                        types(L_SHIPDATE, L_DISCOUNT, L_QUANTITY, L_EXTENDEDPRICE)))
                .addComputed(RowExpressionCodec.encode(revenue))
                .addOutputChannels(4)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    // TPC-H Q8's lineitem side: the ~1,333 part keys of 'ECONOMY ANODIZED STEEL' as the dynamic filter from the part join gives them
    private static ScanRequest lineitemQ8(String fileId, int rowGroups)
    {
        // channels: 0 partkey, 1 orderkey, 2 suppkey, 3 extendedprice, 4 discount; 5 computed volume
        ValueExpression volume = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, ValueExpression.column(3, DOUBLE),
                ValueExpression.arithmetic(ArithmeticOperator.SUBTRACT, new ValueExpression.Constant(DOUBLE, 1.0), ValueExpression.column(4, DOUBLE)));
        return scan(fileId, rowGroups, List.of(column(L_PARTKEY, LINEITEM), column(L_ORDERKEY, LINEITEM), column(L_SUPPKEY, LINEITEM),
                column(L_EXTENDEDPRICE, LINEITEM), column(L_DISCOUNT, LINEITEM)))
                .setPredicate(predicate(Map.of(0, Domain.create(ValueSet.copyOf(BIGINT, TrinoPlans.Q8_PART_KEYS), false)),
                        types(L_PARTKEY, L_ORDERKEY, L_SUPPKEY, L_EXTENDEDPRICE, L_DISCOUNT)))
                .addComputed(RowExpressionCodec.encode(volume))
                .addAllOutputChannels(List.of(1, 2, 5))
                .build();
    }

    // TPC-H Q19's lineitem side: what the three OR-ed conjunctions have in common on lineitem
    private static ScanRequest lineitemQ19(String fileId, int rowGroups)
    {
        // channels: 0 quantity, 1 shipinstruct, 2 shipmode, 3 partkey, 4 extendedprice, 5 discount; 6 computed revenue
        ValueExpression revenue = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY, ValueExpression.column(4, DOUBLE),
                ValueExpression.arithmetic(ArithmeticOperator.SUBTRACT, new ValueExpression.Constant(DOUBLE, 1.0), ValueExpression.column(5, DOUBLE)));
        return scan(fileId, rowGroups, List.of(column(L_QUANTITY, LINEITEM), column(L_SHIPINSTRUCT, LINEITEM), column(L_SHIPMODE, LINEITEM),
                column(L_PARTKEY, LINEITEM), column(L_EXTENDEDPRICE, LINEITEM), column(L_DISCOUNT, LINEITEM)))
                .setPredicate(predicate(Map.of(
                                0, Domain.create(ValueSet.ofRanges(Range.range(DOUBLE, 1.0, true, 30.0, true)), false),
                                1, Domain.singleValue(LINEITEM.get(L_SHIPINSTRUCT), utf8Slice("DELIVER IN PERSON")),
                                2, Domain.multipleValues(LINEITEM.get(L_SHIPMODE), List.of(utf8Slice("AIR"), utf8Slice("AIR REG")))),
                        types(L_QUANTITY, L_SHIPINSTRUCT, L_SHIPMODE, L_PARTKEY, L_EXTENDEDPRICE, L_DISCOUNT)))
                .addComputed(RowExpressionCodec.encode(revenue))
                .addAllOutputChannels(List.of(3, 0, 6))
                .build();
    }

    // SELECT sum(l_extendedprice) WHERE l_comment NOT LIKE '%special%requests%': Q13's predicate over a text column every row decodes
    private static ScanRequest lineitemCommentNotLikeSum(String fileId, int rowGroups)
    {
        RowExpression notLike = new RowExpression.Not(RowExpression.Like.create(0, TrinoPlans.SPECIAL_REQUESTS, Optional.empty()));
        return scan(fileId, rowGroups, List.of(column(L_COMMENT, LINEITEM), column(L_EXTENDEDPRICE, LINEITEM)))
                .addFilters(RowExpressionCodec.encode(notLike))
                .addOutputChannels(1)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    // c1 is uniform over [0, rows): c1 < rows / 100 keeps 1%, spread over every row group
    private static ScanRequest wideFilterSum(String fileId, int rowGroups, int rows)
    {
        return scan(fileId, rowGroups, List.of(ScanColumn.newBuilder().setOrdinal(1).setType("bigint").build(), ScanColumn.newBuilder().setOrdinal(1 + WIDE_BIGINTS).setType("double").build()))
                .setPredicate(predicate(Map.of(0, Domain.create(ValueSet.ofRanges(Range.lessThan(BIGINT, rows / 100L)), false)), List.of(BIGINT, DOUBLE)))
                .addOutputChannels(1)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    // c0 is the row number: the 1% in the middle, within one row group (the coordinator scans no other)
    private static ScanRequest wideSortedSum(String fileId, int rowGroups, int rows)
    {
        long from = rows / 2;
        return scan(fileId, rowGroups, List.of(ScanColumn.newBuilder().setOrdinal(0).setType("bigint").build(), ScanColumn.newBuilder().setOrdinal(1 + WIDE_BIGINTS).setType("double").build()))
                .setPredicate(predicate(Map.of(0, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, from, true, from + rows / 100, false)), false)), List.of(BIGINT, DOUBLE)))
                .addOutputChannels(1)
                .setAggregate(true)
                .addAggregates(aggregate(AggregateKind.SUM, 0))
                .build();
    }

    private static ScanRequest wideSumOfTen(String fileId, int rowGroups)
    {
        List<ScanColumn> columns = IntStream.range(0, 10)
                .mapToObj(i -> ScanColumn.newBuilder().setOrdinal(i % 2 == 0 ? 2 + i : 1 + WIDE_BIGINTS + i).setType(i % 2 == 0 ? "bigint" : "double").build())
                .toList();
        ScanRequest.Builder request = scan(fileId, rowGroups, columns);
        for (int i = 0; i < 10; i++) {
            request.addOutputChannels(i).addAggregates(aggregate(AggregateKind.SUM, i));
        }
        return request.setAggregate(true).build();
    }

    private static ScanRequest.Builder scan(String fileId, int rowGroups, List<ScanColumn> columns)
    {
        return ScanRequest.newBuilder()
                .setFileId(fileId)
                .addAllRowGroups(IntStream.range(0, rowGroups).boxed().toList())
                .addAllColumns(columns)
                .setCompression(PageCompression.PAGE_COMPRESSION_LZ4);
    }

    private static ScanColumn column(int ordinal, List<Type> table)
    {
        return ScanColumn.newBuilder().setOrdinal(ordinal).setType(table.get(ordinal).getTypeSignature().toString()).build();
    }

    private static List<Type> types(int... ordinals)
    {
        return IntStream.of(ordinals).mapToObj(LINEITEM::get).toList();
    }

    private static io.nsc.protocol.proto.ScanPredicate predicate(Map<Integer, Domain> domains, List<Type> types)
    {
        return TupleDomainCodec.encode(TupleDomain.withColumnDomains(domains), types);
    }

    private static ScanAggregate aggregate(AggregateKind kind, int input)
    {
        return ScanAggregate.newBuilder().setFunction(kind.wire()).setInput(input).build();
    }

    /** c0 the row number (sorted), c1 uniform over the rows, then random bigints, then random doubles. */
    private static void writeWideTable(Path path, int rows)
            throws Exception
    {
        List<String> names = new ArrayList<>();
        List<Type> types = new ArrayList<>();
        for (int column = 0; column < 1 + WIDE_BIGINTS + WIDE_DOUBLES; column++) {
            names.add("c" + column);
            types.add(column <= WIDE_BIGINTS ? BIGINT : DOUBLE);
        }
        Random random = new Random(42);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, names, types, CompressionCodec.ZSTD)) {
            for (int start = 0; start < rows; start += WIDE_ROWS_PER_ROW_GROUP) {
                int count = Math.min(WIDE_ROWS_PER_ROW_GROUP, rows - start);
                Block[] blocks = new Block[types.size()];
                for (int column = 0; column < blocks.length; column++) {
                    long[] values = new long[count];
                    for (int row = 0; row < count; row++) {
                        values[row] = switch (column) {
                            case 0 -> start + row;
                            case 1 -> random.nextInt(rows);
                            default -> column <= WIDE_BIGINTS ? random.nextInt(1_000_000) : doubleToLongBits(random.nextInt(100_000_000) / 100.0);
                        };
                    }
                    blocks[column] = new LongArrayBlock(count, Optional.empty(), values);
                }
                writer.writeRowGroup(new Page(count, blocks));
            }
        }
    }

    private static Map<String, String> options(String[] args)
    {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: --lineitem FILE [--lineitem-row-groups N] [--wide-rows N] [--rounds N] [--only TEXT] [--trino false]");
            }
            options.put(args[i].substring(2), args[++i]);
        }
        return options;
    }
}
