package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.types.TrinoTypes;
import io.nsc.protocol.proto.ComparisonOperator;
import io.nsc.protocol.proto.ScanArithmetic;
import io.nsc.protocol.proto.ScanArithmeticOperator;
import io.nsc.protocol.proto.ScanComparison;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanExpressions;
import io.nsc.protocol.proto.ScanIn;
import io.nsc.protocol.proto.ScanLike;
import io.nsc.protocol.proto.ScanSubstring;
import io.nsc.protocol.proto.ScanValue;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.util.Objects.requireNonNull;

/**
 * Row expressions and the value expressions inside them as they cross the wire; constants travel
 * as blocks of their type in Trino's block encoding, like domain bounds. Value expressions share
 * the request's limits on nodes and nesting with the row expressions.
 */
public final class RowExpressionCodec
{
    private RowExpressionCodec() {}

    public static ScanExpression encode(RowExpression expression)
    {
        ScanExpression.Builder result = ScanExpression.newBuilder();
        switch (expression) {
            case RowExpression.And and -> result.setAnd(terms(and.terms()));
            case RowExpression.Or or -> result.setOr(terms(or.terms()));
            case RowExpression.Not not -> result.setNot(encode(not.term()));
            case RowExpression.IsNull isNull -> result.setIsNull(isNull.column());
            case RowExpression.Comparison comparison -> result.setComparison(comparison(comparison));
            case RowExpression.In in -> result.setIn(in(in));
            case RowExpression.Like like -> result.setLike(ScanLike.newBuilder()
                    .setColumn(like.column())
                    .setPattern(like.pattern())
                    .setEscape(like.escape().map(String::valueOf).orElse("")));
        }
        return result.build();
    }

    private static ScanIn in(RowExpression.In in)
    {
        ScanIn.Builder result = ScanIn.newBuilder().setValues(block(in.type(), in.values()));
        // a column in the form every release reads
        if (in.value() instanceof ValueExpression.Column column) {
            return result.setColumn(column.column()).build();
        }
        return result.setValue(encode(in.value())).build();
    }

    private static ScanComparison comparison(RowExpression.Comparison comparison)
    {
        ScanComparison.Builder result = ScanComparison.newBuilder()
                .setOperator(ComparisonOperator.valueOf("COMPARISON_OPERATOR_" + comparison.operator().name()));
        // a column and a constant in the form every release reads
        if (comparison.left() instanceof ValueExpression.Column column && comparison.right() instanceof ValueExpression.Constant constant) {
            return result.setColumn(column.column())
                    .setValue(block(column.type(), List.of(constant.value())))
                    .build();
        }
        return result.setLeft(encode(comparison.left()))
                .setRight(encode(comparison.right()))
                .build();
    }

    public static ScanValue encode(ValueExpression expression)
    {
        ScanValue.Builder result = ScanValue.newBuilder().setType(expression.type().getTypeSignature().toString());
        switch (expression) {
            case ValueExpression.Column column -> result.setColumn(column.column());
            case ValueExpression.Constant constant -> result.setConstant(block(constant.type(), List.of(constant.value())));
            case ValueExpression.Arithmetic arithmetic -> result.setArithmetic(ScanArithmetic.newBuilder()
                    .setOperator(arithmetic.operator().wire())
                    .setLeft(encode(arithmetic.left()))
                    .setRight(encode(arithmetic.right())));
            case ValueExpression.Negation negation -> result.setNegation(encode(negation.input()));
            case ValueExpression.Cast cast -> result.setCast(encode(cast.input()));
            case ValueExpression.Substring substring -> {
                ScanSubstring.Builder encoded = ScanSubstring.newBuilder()
                        .setInput(encode(substring.input()))
                        .setStart(encode(substring.start()));
                substring.length().ifPresent(length -> encoded.setLength(encode(length)));
                result.setSubstring(encoded);
            }
        }
        return result.build();
    }

    /**
     * Decodes one value expression with the default limits and no memory budget: for
     * expressions from a trusted place (the connector's own column handles).
     *
     * @throws IllegalArgumentException when the expression is malformed or names an unknown column
     */
    public static ValueExpression decode(ScanValue expression, IntFunction<Type> types)
    {
        return decoder(types, RequestLimits.DEFAULT, WireValues.unbounded()).decode(expression);
    }

    /**
     * Decodes one expression with the default limits and no memory budget: for expressions that
     * come from a trusted place (the connector's own table handle).
     *
     * @param types the type of each column an expression may name
     * @throws IllegalArgumentException when the expression is malformed or names an unknown column
     */
    public static RowExpression decode(ScanExpression expression, IntFunction<Type> types)
    {
        return decoder(types, RequestLimits.DEFAULT, WireValues.unbounded()).decode(expression);
    }

    /**
     * A decoder for the expressions of one request: their nodes together count against
     * {@link RequestLimits#maxExpressionNodes()}, their values against {@code values}.
     */
    public static Decoder decoder(IntFunction<Type> types, RequestLimits limits, WireValues values)
    {
        return new Decoder(types, limits, values);
    }

    public static final class Decoder
    {
        private final IntFunction<Type> types;
        private final RequestLimits limits;
        private final WireValues values;
        private int nodes;

        private Decoder(IntFunction<Type> types, RequestLimits limits, WireValues values)
        {
            this.types = requireNonNull(types, "types is null");
            this.limits = requireNonNull(limits, "limits is null");
            this.values = requireNonNull(values, "values is null");
        }

        /**
         * @throws IllegalArgumentException when the expression is malformed, names an unknown column or is over a limit
         * @throws io.nsc.parquet.memory.MemoryLimitExceededException when its values decode to more than the budget allows
         */
        public RowExpression decode(ScanExpression expression)
        {
            return decode(expression, 1);
        }

        private RowExpression decode(ScanExpression expression, int depth)
        {
            // checked on the way down, so that recursion never goes deeper than the limit
            checkArgument(depth <= limits.maxExpressionDepth(), "expression nested deeper than %s", limits.maxExpressionDepth());
            nodes++;
            checkArgument(nodes <= limits.maxExpressionNodes(), "expressions of more than %s nodes", limits.maxExpressionNodes());
            return switch (expression.getNodeCase()) {
                case AND -> new RowExpression.And(decodeTerms(expression.getAnd(), depth));
                case OR -> new RowExpression.Or(decodeTerms(expression.getOr(), depth));
                case NOT -> new RowExpression.Not(decode(expression.getNot(), depth + 1));
                case IS_NULL -> new RowExpression.IsNull(checkColumn(expression.getIsNull(), types));
                case COMPARISON -> comparison(expression.getComparison(), depth);
                case IN -> in(expression.getIn(), depth);
                case LIKE -> like(expression.getLike());
                case NODE_NOT_SET -> throw new IllegalArgumentException("empty expression");
            };
        }

        private RowExpression in(ScanIn in, int depth)
        {
            ValueExpression value = in.hasValue()
                    ? decode(in.getValue(), depth + 1)
                    : ValueExpression.column(checkColumn(in.getColumn(), types), types.apply(in.getColumn()));
            checkArgument(RowExpression.supports(value.type()), "IN on a value of type %s", value.type());
            return new RowExpression.In(value, values.read(value.type(), in.getValues()));
        }

        private RowExpression comparison(ScanComparison comparison, int depth)
        {
            checkArgument(comparison.getOperator() != ComparisonOperator.COMPARISON_OPERATOR_UNSPECIFIED && comparison.getOperator() != ComparisonOperator.UNRECOGNIZED, "comparison without operator");
            RowExpression.Operator operator = RowExpression.Operator.valueOf(comparison.getOperator().name().substring("COMPARISON_OPERATOR_".length()));
            if (comparison.hasLeft() || comparison.hasRight()) {
                checkArgument(comparison.hasLeft() && comparison.hasRight(), "comparison with one side");
                return new RowExpression.Comparison(decode(comparison.getLeft(), depth + 1), operator, decode(comparison.getRight(), depth + 1));
            }
            Type type = types.apply(checkColumn(comparison.getColumn(), types));
            checkArgument(RowExpression.supportsComparison(type), "comparison on a column of type %s", type);
            return RowExpression.Comparison.of(comparison.getColumn(), type, operator, constant(type, comparison.getValue()));
        }

        /**
         * @throws IllegalArgumentException when the expression is malformed, names an unknown
         * column, is over a limit, or is not computed exactly as Trino would
         */
        public ValueExpression decode(ScanValue expression)
        {
            return decode(expression, 1);
        }

        private ValueExpression decode(ScanValue expression, int depth)
        {
            checkArgument(depth <= limits.maxExpressionDepth(), "expression nested deeper than %s", limits.maxExpressionDepth());
            nodes++;
            checkArgument(nodes <= limits.maxExpressionNodes(), "expressions of more than %s nodes", limits.maxExpressionNodes());
            values.count(expression.getType().length(), "a value type");
            Type type = TrinoTypes.fromSignature(expression.getType())
                    .orElseThrow(() -> new IllegalArgumentException("unknown value type '%s'".formatted(expression.getType())));
            ValueExpression decoded = switch (expression.getNodeCase()) {
                case COLUMN -> ValueExpression.column(checkColumn(expression.getColumn(), types), types.apply(expression.getColumn()));
                case CONSTANT -> new ValueExpression.Constant(type, constant(type, expression.getConstant()));
                case ARITHMETIC -> {
                    ScanArithmetic arithmetic = expression.getArithmetic();
                    checkArgument(arithmetic.getOperator() != ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_UNSPECIFIED && arithmetic.getOperator() != ScanArithmeticOperator.UNRECOGNIZED, "arithmetic without operator");
                    checkArgument(arithmetic.hasLeft() && arithmetic.hasRight(), "arithmetic without two operands");
                    yield ValueExpression.arithmetic(ArithmeticOperator.fromWire(arithmetic.getOperator()), decode(arithmetic.getLeft(), depth + 1), decode(arithmetic.getRight(), depth + 1));
                }
                case NEGATION -> new ValueExpression.Negation(decode(expression.getNegation(), depth + 1));
                case CAST -> new ValueExpression.Cast(decode(expression.getCast(), depth + 1), type);
                case SUBSTRING -> substring(expression.getSubstring(), depth);
                case NODE_NOT_SET -> throw new IllegalArgumentException("empty value expression");
            };
            // the sender's type must be the one Trino gives the expression: a mismatch is a sender that disagrees on semantics
            checkArgument(decoded.type().equals(type), "value of type %s declared as %s", decoded.type(), type);
            return decoded;
        }

        private ValueExpression substring(ScanSubstring substring, int depth)
        {
            checkArgument(substring.hasInput() && substring.hasStart(), "substring without input or start");
            return new ValueExpression.Substring(
                    decode(substring.getInput(), depth + 1),
                    decode(substring.getStart(), depth + 1),
                    substring.hasLength() ? Optional.of(decode(substring.getLength(), depth + 1)) : Optional.empty());
        }

        private Object constant(Type type, ByteString encoded)
        {
            List<Object> value = values.read(type, encoded);
            checkArgument(value.size() == 1, "a constant of %s values", value.size());
            checkArgument(value.getFirst() != null, "a NULL constant");
            return value.getFirst();
        }

        private RowExpression like(ScanLike like)
        {
            Type type = types.apply(checkColumn(like.getColumn(), types));
            checkArgument(RowExpression.Like.supports(type), "LIKE on a column of type %s", type);
            checkArgument(like.getEscape().length() <= 1, "escape must be one character");
            values.count(like.getPattern().length() + (long) like.getEscape().length(), "a LIKE pattern");
            return RowExpression.Like.create(like.getColumn(), like.getPattern(), like.getEscape().isEmpty() ? Optional.empty() : Optional.of(like.getEscape().charAt(0)));
        }

        private List<RowExpression> decodeTerms(ScanExpressions terms, int depth)
        {
            checkArgument(terms.getTermsCount() > 0, "AND/OR without terms");
            checkArgument(terms.getTermsCount() <= limits.maxExpressionNodes() - nodes, "expressions of more than %s nodes", limits.maxExpressionNodes());
            List<RowExpression> result = new ArrayList<>(terms.getTermsCount());
            for (ScanExpression term : terms.getTermsList()) {
                result.add(decode(term, depth + 1));
            }
            return result;
        }
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

    private static ByteString block(Type type, List<Object> values)
    {
        BlockBuilder builder = type.createBlockBuilder(null, values.size());
        values.forEach(value -> writeNativeValue(type, builder, value));
        DynamicSliceOutput output = new DynamicSliceOutput(64);
        new NscBlockEncodingSerde().writeBlock(output, builder.build());
        return ByteString.copyFrom(output.slice().getBytes());
    }
}
