package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slices;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.protocol.proto.ComparisonOperator;
import io.nsc.protocol.proto.ScanComparison;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanExpressions;
import io.nsc.protocol.proto.ScanIn;
import io.nsc.protocol.proto.ScanLike;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;

/**
 * Row expressions as they cross the wire; constants travel as blocks of their column's type in
 * Trino's block encoding, like domain bounds.
 */
public final class RowExpressionCodec
{
    // nesting deeper than this is not an expression anyone wrote
    private static final int MAX_DEPTH = 64;

    private RowExpressionCodec() {}

    public static ScanExpression encode(RowExpression expression)
    {
        ScanExpression.Builder result = ScanExpression.newBuilder();
        switch (expression) {
            case RowExpression.And and -> result.setAnd(terms(and.terms()));
            case RowExpression.Or or -> result.setOr(terms(or.terms()));
            case RowExpression.Not not -> result.setNot(encode(not.term()));
            case RowExpression.IsNull isNull -> result.setIsNull(isNull.column());
            case RowExpression.Comparison comparison -> result.setComparison(ScanComparison.newBuilder()
                    .setColumn(comparison.column())
                    .setOperator(ComparisonOperator.valueOf("COMPARISON_OPERATOR_" + comparison.operator().name()))
                    .setValue(block(comparison.type(), List.of(comparison.value()))));
            case RowExpression.In in -> result.setIn(ScanIn.newBuilder()
                    .setColumn(in.column())
                    .setValues(block(in.type(), in.values())));
            case RowExpression.Like like -> result.setLike(ScanLike.newBuilder()
                    .setColumn(like.column())
                    .setPattern(like.pattern())
                    .setEscape(like.escape().map(String::valueOf).orElse("")));
        }
        return result.build();
    }

    /**
     * @param types the type of each column an expression may name
     * @throws IllegalArgumentException when the expression is malformed or names an unknown column
     */
    public static RowExpression decode(ScanExpression expression, IntFunction<Type> types)
    {
        return decode(expression, types, 0);
    }

    private static RowExpression decode(ScanExpression expression, IntFunction<Type> types, int depth)
    {
        checkArgument(depth < MAX_DEPTH, "expression nested deeper than %s", MAX_DEPTH);
        return switch (expression.getNodeCase()) {
            case AND -> new RowExpression.And(decodeTerms(expression.getAnd(), types, depth));
            case OR -> new RowExpression.Or(decodeTerms(expression.getOr(), types, depth));
            case NOT -> new RowExpression.Not(decode(expression.getNot(), types, depth + 1));
            case IS_NULL -> new RowExpression.IsNull(checkColumn(expression.getIsNull(), types));
            case COMPARISON -> {
                ScanComparison comparison = expression.getComparison();
                Type type = types.apply(checkColumn(comparison.getColumn(), types));
                checkArgument(comparison.getOperator() != ComparisonOperator.COMPARISON_OPERATOR_UNSPECIFIED && comparison.getOperator() != ComparisonOperator.UNRECOGNIZED, "comparison without operator");
                List<Object> value = values(type, comparison.getValue());
                checkArgument(value.size() == 1, "comparison with %s values", value.size());
                RowExpression.Operator operator = RowExpression.Operator.valueOf(comparison.getOperator().name().substring("COMPARISON_OPERATOR_".length()));
                yield new RowExpression.Comparison(comparison.getColumn(), type, operator, value.getFirst());
            }
            case IN -> {
                ScanIn in = expression.getIn();
                Type type = types.apply(checkColumn(in.getColumn(), types));
                yield new RowExpression.In(in.getColumn(), type, values(type, in.getValues()));
            }
            case LIKE -> {
                ScanLike like = expression.getLike();
                checkArgument(RowExpression.Like.supports(types.apply(checkColumn(like.getColumn(), types))), "LIKE on a column of type %s", types.apply(like.getColumn()));
                checkArgument(like.getEscape().codePointCount(0, like.getEscape().length()) <= 1 && like.getEscape().length() <= 1, "escape must be one character");
                yield RowExpression.Like.create(like.getColumn(), like.getPattern(), like.getEscape().isEmpty() ? Optional.empty() : Optional.of(like.getEscape().charAt(0)));
            }
            case NODE_NOT_SET -> throw new IllegalArgumentException("empty expression");
        };
    }

    private static int checkColumn(int column, IntFunction<Type> types)
    {
        checkArgument(column >= 0, "negative column");
        try {
            checkArgument(types.apply(column) != null, "unknown column %s", column);
        }
        catch (IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("unknown column " + column, e);
        }
        return column;
    }

    private static ScanExpressions terms(List<RowExpression> terms)
    {
        ScanExpressions.Builder result = ScanExpressions.newBuilder();
        terms.forEach(term -> result.addTerms(encode(term)));
        return result.build();
    }

    private static List<RowExpression> decodeTerms(ScanExpressions terms, IntFunction<Type> types, int depth)
    {
        checkArgument(terms.getTermsCount() > 0, "AND/OR without terms");
        List<RowExpression> result = new ArrayList<>();
        for (ScanExpression term : terms.getTermsList()) {
            result.add(decode(term, types, depth + 1));
        }
        return result;
    }

    private static ByteString block(Type type, List<Object> values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.size());
        values.forEach(value -> writeNativeValue(type, builder, value));
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        new NscBlockEncodingSerde().writeBlock(output, builder.build());
        return ByteString.copyFrom(output.slice().getBytes());
    }

    private static List<Object> values(Type type, ByteString bytes)
    {
        Block block = new NscBlockEncodingSerde().readBlock(Slices.wrappedBuffer(bytes.toByteArray()).getInput());
        List<Object> values = new ArrayList<>(block.getPositionCount());
        for (int position = 0; position < block.getPositionCount(); position++) {
            values.add(readNativeValue(type, block, position));
        }
        return values;
    }
}
