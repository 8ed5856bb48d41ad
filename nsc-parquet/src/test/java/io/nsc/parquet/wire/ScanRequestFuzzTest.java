package io.nsc.parquet.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.filter.RowFilter;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.types.TrinoTypes;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.protocol.proto.ScanValue;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;

/**
 * Coverage-guided fuzzing of what a storage node decodes from a scan request: the predicate
 * (TupleDomainCodec) and the filters (RowExpressionCodec), with the limits and memory budget a
 * node uses, then the row filter they make evaluated on a small page. Every input must end in a
 * filter or in IllegalArgumentException / MemoryLimitExceededException (or, while computed values
 * are evaluated, in the query errors Trino's own operators raise); anything else (an
 * OutOfMemoryError on the fork's small heap, a StackOverflowError, any other exception) is a finding.
 * <p>
 * {@code ./nsc test} fuzzes for a few seconds; {@code ./nsc fuzz scan-request --duration 10m} for longer.
 */
class ScanRequestFuzzTest
{
    private static final RequestLimits LIMITS = new RequestLimits(10_000, 64, 16L * 1024 * 1024);
    private static final long MEMORY_LIMIT = 64L * 1024 * 1024;

    @FuzzTest(maxDuration = "15s")
    void fuzz(byte[] data)
    {
        ScanRequest request;
        try {
            request = ScanRequest.parseFrom(data);
        }
        catch (InvalidProtocolBufferException e) {
            return;
        }
        List<Type> types = new ArrayList<>();
        for (ScanColumn column : request.getColumnsList()) {
            Optional<Type> type = TrinoTypes.fromSignature(column.getType());
            if (type.isEmpty()) {
                // the node refuses unknown types before it looks at the predicate
                return;
            }
            types.add(type.get());
        }
        RowFilter filter;
        List<Type> columnTypes = List.copyOf(types);
        List<ValueExpression> computed = new ArrayList<>();
        try {
            WireValues values = new WireValues(LIMITS.maxValueBytes(), new MemoryBudget("fuzzed scan", MEMORY_LIMIT));
            RowExpressionCodec.Decoder columnsOnly = RowExpressionCodec.decoder(columnTypes::get, LIMITS, values);
            for (ScanValue value : request.getComputedList()) {
                computed.add(columnsOnly.decode(value));
                types.add(computed.getLast().type());
            }
            TupleDomain<Integer> predicate = TupleDomainCodec.decode(request.getPredicate(), types, values);
            RowExpressionCodec.Decoder decoder = RowExpressionCodec.decoder(types::get, LIMITS, values);
            List<RowExpression> expressions = new ArrayList<>();
            for (ScanExpression expression : request.getFiltersList()) {
                expressions.add(decoder.decode(expression));
            }
            filter = RowFilter.create(predicate, expressions, types);
        }
        catch (IllegalArgumentException | MemoryLimitExceededException expected) {
            return;
        }
        Page columns = samplePage(columnTypes);
        Block[] blocks = new Block[types.size()];
        for (int channel = 0; channel < columns.getChannelCount(); channel++) {
            blocks[channel] = columns.getBlock(channel);
        }
        try {
            for (int i = 0; i < computed.size(); i++) {
                BlockBuilder builder = computed.get(i).type().createBlockBuilder(null, 2);
                for (int position = 0; position < 2; position++) {
                    computed.get(i).evaluateInto(columns::getBlock, position, builder);
                }
                blocks[columnTypes.size() + i] = builder.build();
            }
            if (!types.isEmpty() && !filter.isNone() && !filter.isAll()) {
                filter.select(SourcePage.create(new Page(2, blocks)), new int[2]);
            }
        }
        catch (TrinoException e) {
            // an overflow, a division by zero, a cast that does not fit: the query's own error, which the node passes on
            if (!QueryFailures.isQueryFailure(e)) {
                throw e;
            }
        }
    }

    /** Two rows: one of nulls, one of a value per column (a long string for varchar, for LIKE). */
    private static Page samplePage(List<Type> types)
    {
        Block[] blocks = new Block[types.size()];
        for (int channel = 0; channel < blocks.length; channel++) {
            Type type = types.get(channel);
            BlockBuilder builder = type.createBlockBuilder(null, 2);
            builder.appendNull();
            if (type instanceof VarcharType) {
                type.writeSlice(builder, utf8Slice("ab".repeat(500) + "c"));
            }
            else if (type.getJavaType() == long.class) {
                type.writeLong(builder, 42);
            }
            else {
                builder.appendNull();
            }
            blocks[channel] = builder.build();
        }
        return new Page(2, blocks);
    }
}
