package io.nsc.storage.scan;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.nsc.parquet.aggregate.GroupedAggregation;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.filter.RowFilter;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.scan.FileColumn;
import io.nsc.parquet.topn.SortKey;
import io.nsc.parquet.topn.TopNRows;
import io.nsc.parquet.types.TrinoTypes;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.parquet.wire.TupleDomainCodec;
import io.nsc.parquet.wire.WireValues;
import io.nsc.protocol.proto.PageCompression;
import io.nsc.protocol.proto.ScanAggregate;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanValue;
import io.nsc.storage.store.FileId;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * What a Scan request asks for, checked and decoded before any byte of the file is read: the
 * columns, the values computed from them, the predicate and filters, the channels sent, and the
 * aggregation or top-N its rows fold into. Nothing in the request is trusted: its size, row groups
 * and the sizes of its expressions and values are checked before they are decoded
 * (INVALID_ARGUMENT), and the decoded values are reserved in the scan's memory budget.
 */
final class ScanPlan
{
    // the most rows a top-N scan keeps: what the connector pushes is bounded the same way
    private static final long MAX_TOP_N = 100_000;

    /** Group keys and aggregate inputs are output columns: positions in the scan's output pages. */
    record Aggregation(GroupedAggregation groups, int[] groupChannels, int[] inputChannels) {}

    private final ScanRequest request;
    private final FileId file;
    private final List<FileColumn> columns;
    private final List<ValueExpression> computed;
    private final TupleDomain<Integer> predicate;
    private final RowFilter filter;
    private final int[] outputChannels;
    private final Optional<Aggregation> aggregation;
    private final Optional<TopNRows> topN;

    /**
     * @param memory the scan's budget: decoded values, and the share the groups or top-N rows may hold
     * @param foldLimitBytes the most an aggregation's groups or a top-N's rows hold before they are sent
     */
    ScanPlan(ScanRequest request, FileId file, ScanLimits limits, MemoryBudget memory, long foldLimitBytes)
    {
        this.request = requireNonNull(request, "request is null");
        this.file = requireNonNull(file, "file is null");
        if (request.getSerializedSize() > limits.maxRequestBytes()) {
            throw invalid("Scan of file %s: a request of %s bytes, more than the %s allowed".formatted(file, request.getSerializedSize(), limits.maxRequestBytes()));
        }
        checkRowGroups(limits);
        if (request.getCompression() == PageCompression.UNRECOGNIZED) {
            throw invalid("Scan of file %s asks for an unknown page compression".formatted(file));
        }
        this.columns = request.getColumnsList().stream()
                .map(this::fileColumn)
                .collect(toImmutableList());
        List<Type> columnTypes = columns.stream().map(FileColumn::type).collect(toImmutableList());
        // the scan's channels: the columns, then the values computed from them
        List<Type> types = new ArrayList<>(columnTypes);
        List<ValueExpression> computed = new ArrayList<>();
        List<RowExpression> expressions = new ArrayList<>();
        try {
            // values of the predicate, the filters and the computed values count against one limit and one budget
            WireValues values = new WireValues(limits.request().maxValueBytes(), memory);
            RowExpressionCodec.Decoder columnsOnly = RowExpressionCodec.decoder(columnTypes::get, limits.request(), values);
            for (ScanValue value : request.getComputedList()) {
                computed.add(columnsOnly.decode(value));
                types.add(computed.getLast().type());
            }
            this.predicate = TupleDomainCodec.decode(request.getPredicate(), types, values);
            RowExpressionCodec.Decoder decoder = RowExpressionCodec.decoder(types::get, limits.request(), values);
            for (ScanExpression filter : request.getFiltersList()) {
                expressions.add(decoder.decode(filter));
            }
        }
        catch (MemoryLimitExceededException e) {
            throw e;
        }
        catch (RuntimeException e) {
            // the decoders refuse what is malformed or over a limit with IllegalArgumentException
            throw invalid("Scan of file %s has a bad predicate: %s".formatted(file, e.getMessage()));
        }
        this.computed = List.copyOf(computed);
        if (request.getLimit() < 0) {
            throw invalid("Scan of file %s has a negative limit".formatted(file));
        }
        this.outputChannels = outputChannels(types.size());
        this.aggregation = request.getAggregate() ? Optional.of(aggregation(types, memory, foldLimitBytes)) : Optional.empty();
        this.topN = !request.getAggregate() && request.getTopN() > 0 ? Optional.of(topN(types, memory, foldLimitBytes)) : Optional.empty();
        this.filter = RowFilter.create(predicate, expressions, types);
    }

    List<FileColumn> columns()
    {
        return columns;
    }

    List<ValueExpression> computed()
    {
        return computed;
    }

    /** The predicate over the scan's channels: the filter's domains, and what the reader's page index skips by. */
    TupleDomain<Integer> predicate()
    {
        return predicate;
    }

    RowFilter filter()
    {
        return filter;
    }

    int[] outputChannels()
    {
        return outputChannels.clone();
    }

    Optional<Aggregation> aggregation()
    {
        return aggregation;
    }

    Optional<TopNRows> topN()
    {
        return topN;
    }

    /** The most rows to send: a limit counts rows in file order, so it applies to plain scans only. */
    long limit()
    {
        return request.getLimit() == 0 || aggregation.isPresent() || topN.isPresent() ? Long.MAX_VALUE : request.getLimit();
    }

    /** Row groups past the file's last (the request was checked against itself, not the file). */
    void checkRowGroupsInFile(ParquetMetadata footer)
            throws IOException
    {
        int rowGroups = footer.getBlocks().size();
        for (int rowGroup : request.getRowGroupsList()) {
            if (rowGroup < 0 || rowGroup >= rowGroups) {
                throw Status.OUT_OF_RANGE.withDescription("File %s has %s row groups, scan asks for row group %s".formatted(file, rowGroups, rowGroup)).asRuntimeException();
            }
        }
        // no check of the columns: one past the file's last is one the table gained since the
        // file was written, which the reader makes NULL (ParquetScanReader)
    }

    /** The channels sent, in order: as the request lists them, or the columns it marks as output. */
    private int[] outputChannels(int channelCount)
    {
        if (request.getOutputChannelsCount() > 0) {
            int[] outputChannels = request.getOutputChannelsList().stream().mapToInt(Integer::intValue).toArray();
            for (int channel : outputChannels) {
                if (channel < 0 || channel >= channelCount) {
                    throw invalid("Scan of file %s outputs channel %s of %s".formatted(file, channel, channelCount));
                }
            }
            return outputChannels;
        }
        return IntStream.range(0, request.getColumnsCount())
                .filter(channel -> request.getColumns(channel).getOutput())
                .toArray();
    }

    /**
     * Row groups in file order, as the protocol says, each named once: a repeated row group would
     * be read (and its rows sent) again. Indexes past the file's end are checked against the
     * footer later (OUT_OF_RANGE).
     */
    private void checkRowGroups(ScanLimits limits)
    {
        if (request.getRowGroupsCount() == 0) {
            throw invalid("Scan of file %s names no row group".formatted(file));
        }
        if (request.getRowGroupsCount() > limits.maxRowGroups()) {
            throw invalid("Scan of file %s names %s row groups, more than the %s allowed".formatted(file, request.getRowGroupsCount(), limits.maxRowGroups()));
        }
        int previous = -1;
        for (int rowGroup : request.getRowGroupsList()) {
            if (rowGroup < 0) {
                throw invalid("Scan of file %s names the negative row group %s".formatted(file, rowGroup));
            }
            if (rowGroup <= previous) {
                throw invalid("Scan of file %s names row group %s after row group %s: row groups must be named once each, in ascending order".formatted(file, rowGroup, previous));
            }
            previous = rowGroup;
        }
    }

    private TopNRows topN(List<Type> types, MemoryBudget memory, long foldLimitBytes)
    {
        if (request.getTopN() > MAX_TOP_N) {
            throw invalid("Scan of file %s asks for the top %s rows, more than %s".formatted(file, request.getTopN(), MAX_TOP_N));
        }
        try {
            List<Type> outputTypes = Arrays.stream(outputChannels).mapToObj(types::get).collect(toImmutableList());
            List<SortKey> keys = request.getOrderList().stream()
                    .map(key -> new SortKey(key.getColumn(), key.getAscending(), key.getNullsFirst()))
                    .collect(toImmutableList());
            return new TopNRows(outputTypes, keys, (int) request.getTopN(), memory, foldLimitBytes);
        }
        catch (IllegalArgumentException e) {
            throw invalid("Scan of file %s has a bad top-N order: %s".formatted(file, e.getMessage()));
        }
    }

    private Aggregation aggregation(List<Type> types, MemoryBudget memory, long foldLimitBytes)
    {
        try {
            int[] groupChannels = request.getGroupByList().stream().mapToInt(Integer::intValue).toArray();
            List<Type> groupTypes = new ArrayList<>();
            for (int channel : groupChannels) {
                groupTypes.add(types.get(outputChannels[channel]));
            }
            List<AggregateSpec> specs = new ArrayList<>();
            int[] inputChannels = new int[request.getAggregatesCount()];
            for (int i = 0; i < inputChannels.length; i++) {
                ScanAggregate aggregate = request.getAggregates(i);
                AggregateKind kind = AggregateKind.fromWire(aggregate.getFunction());
                inputChannels[i] = aggregate.getInput();
                specs.add(new AggregateSpec(kind, kind == AggregateKind.COUNT_ALL ? Optional.empty() : Optional.of(types.get(outputChannels[aggregate.getInput()]))));
            }
            return new Aggregation(new GroupedAggregation(groupTypes, specs, memory, foldLimitBytes), groupChannels, inputChannels);
        }
        catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw invalid("Scan of file %s has a bad aggregation: %s".formatted(file, e.getMessage()));
        }
    }

    private FileColumn fileColumn(ScanColumn column)
    {
        Optional<Type> type = TrinoTypes.fromSignature(column.getType());
        if (type.isEmpty()) {
            throw invalid("Scan of file %s: unknown column type '%s'".formatted(file, column.getType()));
        }
        if (column.getOrdinal() < 0) {
            throw invalid("Scan of file %s: negative column ordinal".formatted(file));
        }
        return new FileColumn(column.getOrdinal(), type.get());
    }

    static StatusRuntimeException invalid(String message)
    {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }
}
