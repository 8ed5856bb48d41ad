package io.nsc.trino.metadata;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.InvalidProtocolBufferException;
import io.airlift.slice.Slice;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.wire.RowExpressionCodec;
import io.nsc.protocol.proto.ScanExpression;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.expression.Call;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Constant;
import io.trino.spi.expression.FunctionName;
import io.trino.spi.expression.Variable;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.trino.plugin.base.expression.ConnectorExpressions.and;
import static io.trino.plugin.base.expression.ConnectorExpressions.extractConjuncts;
import static io.trino.spi.expression.StandardFunctions.AND_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.ARRAY_CONSTRUCTOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.GREATER_THAN_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.GREATER_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.IN_PREDICATE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.IS_NULL_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LESS_THAN_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LESS_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.LIKE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NOT_EQUAL_OPERATOR_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NOT_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.OR_FUNCTION_NAME;

/**
 * The part of a query's filter that Trino hands over as a {@link ConnectorExpression} (what no
 * domain expresses: LIKE with a constant pattern, OR across columns, NOT, comparisons of columns
 * with each other or of values computed from them, IN lists over computed values, and the
 * comparisons, IN lists and IS NULL inside them), translated conjunct by conjunct into row expressions that
 * storage nodes and workers evaluate exactly as Trino would. A conjunct with anything else stays
 * in Trino's plan. In the table handle an expression is kept as its wire form over column
 * ordinals, base64.
 */
public final class FilterExpressions
{
    public record Split(List<RowExpression> pushed, ConnectorExpression remaining) {}

    private FilterExpressions() {}

    public static Split split(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        ImmutableList.Builder<RowExpression> pushed = ImmutableList.builder();
        List<ConnectorExpression> remaining = new ArrayList<>();
        for (ConnectorExpression conjunct : extractConjuncts(expression)) {
            if (conjunct.equals(Constant.TRUE)) {
                continue;
            }
            Optional<RowExpression> translated = translate(conjunct, assignments);
            if (translated.isPresent()) {
                pushed.add(translated.get());
            }
            else {
                remaining.add(conjunct);
            }
        }
        return new Split(pushed.build(), and(remaining));
    }

    public static String serialize(RowExpression expression)
    {
        return Base64.getEncoder().encodeToString(RowExpressionCodec.encode(expression).toByteArray());
    }

    /** An expression of a table handle, over the table's column ordinals. */
    public static RowExpression deserialize(String serialized, List<NscColumnHandle> tableColumns)
    {
        try {
            return RowExpressionCodec.decode(ScanExpression.parseFrom(Base64.getDecoder().decode(serialized)), ordinal -> NscColumnHandle.byOrdinal(tableColumns, ordinal).type());
        }
        catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("malformed filter expression", e);
        }
    }

    private static Optional<RowExpression> translate(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        if (!(expression instanceof Call call)) {
            return Optional.empty();
        }
        FunctionName function = call.getFunctionName();
        List<? extends ConnectorExpression> arguments = call.getArguments();
        if (function.equals(AND_FUNCTION_NAME) || function.equals(OR_FUNCTION_NAME)) {
            List<RowExpression> terms = new ArrayList<>();
            for (ConnectorExpression argument : arguments) {
                Optional<RowExpression> term = translate(argument, assignments);
                if (term.isEmpty()) {
                    return Optional.empty();
                }
                terms.add(term.get());
            }
            return Optional.of(function.equals(AND_FUNCTION_NAME) ? new RowExpression.And(terms) : new RowExpression.Or(terms));
        }
        if (function.equals(NOT_FUNCTION_NAME) && arguments.size() == 1) {
            return translate(arguments.getFirst(), assignments).map(RowExpression.Not::new);
        }
        if (function.equals(IS_NULL_FUNCTION_NAME) && arguments.size() == 1) {
            return column(arguments.getFirst(), assignments).map(column -> new RowExpression.IsNull(column.ordinal()));
        }
        if (function.equals(LIKE_FUNCTION_NAME) && (arguments.size() == 2 || arguments.size() == 3)) {
            return like(arguments, assignments);
        }
        if (function.equals(IN_PREDICATE_FUNCTION_NAME) && arguments.size() == 2) {
            return in(arguments.get(0), arguments.get(1), assignments);
        }
        Optional<RowExpression.Operator> operator = operator(function);
        if (operator.isPresent() && arguments.size() == 2) {
            return comparison(operator.get(), arguments.get(0), arguments.get(1), assignments);
        }
        return Optional.empty();
    }

    private static Optional<RowExpression> like(List<? extends ConnectorExpression> arguments, Map<String, ColumnHandle> assignments)
    {
        Optional<NscColumnHandle> column = column(arguments.get(0), assignments).filter(handle -> RowExpression.Like.supports(handle.type()));
        if (column.isEmpty() || !(arguments.get(1) instanceof Constant pattern) || !(pattern.getValue() instanceof Slice patternText)) {
            return Optional.empty();
        }
        Optional<Character> escape = Optional.empty();
        if (arguments.size() == 3) {
            if (!(arguments.get(2) instanceof Constant escapeConstant) || !(escapeConstant.getValue() instanceof Slice escapeText) || escapeText.toStringUtf8().length() != 1) {
                return Optional.empty();
            }
            escape = Optional.of(escapeText.toStringUtf8().charAt(0));
        }
        try {
            return Optional.of(RowExpression.Like.create(column.get().ordinal(), patternText.toStringUtf8(), escape));
        }
        catch (IllegalArgumentException e) {
            // a pattern Trino would reject at run time: leave the error to Trino
            return Optional.empty();
        }
    }

    /** An IN list of constants over a column or over a value computed from columns ({@code substring(c_phone, 1, 2) IN (...)}). */
    private static Optional<RowExpression> in(ConnectorExpression value, ConnectorExpression list, Map<String, ColumnHandle> assignments)
    {
        Optional<ValueExpression> tested = ValueExpressions.translate(value, assignments)
                .filter(expression -> !(expression instanceof ValueExpression.Constant))
                .filter(expression -> RowExpression.supports(expression.type()));
        if (tested.isEmpty() || !(list instanceof Call array) || !array.getFunctionName().equals(ARRAY_CONSTRUCTOR_FUNCTION_NAME)) {
            return Optional.empty();
        }
        List<Object> values = new ArrayList<>();
        for (ConnectorExpression element : array.getArguments()) {
            if (!(element instanceof Constant constant) || !sameType(constant.getType(), tested.get().type())) {
                return Optional.empty();
            }
            values.add(constant.getValue());
        }
        return Optional.of(new RowExpression.In(tested.get(), values));
    }

    /**
     * Two values of one type: columns, constants, or values computed from columns
     * ({@link ValueExpressions}), such as {@code l_commitdate < l_receiptdate} or
     * {@code l_extendedprice * l_discount > 1000}.
     */
    private static Optional<RowExpression> comparison(RowExpression.Operator operator, ConnectorExpression left, ConnectorExpression right, Map<String, ColumnHandle> assignments)
    {
        Optional<ValueExpression> leftValue = ValueExpressions.translate(left, assignments);
        Optional<ValueExpression> rightValue = ValueExpressions.translate(right, assignments);
        // a comparison of constants, or with NULL, Trino folds; if not, it is Trino's to do
        if (leftValue.isEmpty() || rightValue.isEmpty() || (leftValue.get() instanceof ValueExpression.Constant && rightValue.get() instanceof ValueExpression.Constant)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RowExpression.Comparison(leftValue.get(), operator, rightValue.get()));
        }
        catch (IllegalArgumentException e) {
            // types nsc does not compare exactly as Trino does
            return Optional.empty();
        }
    }

    private static boolean sameType(Type constant, Type column)
    {
        // varchar constants carry their length; the values compare the same whatever it is
        return constant.equals(column) || (constant instanceof VarcharType && column instanceof VarcharType);
    }

    private static Optional<NscColumnHandle> column(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        if (expression instanceof Variable variable && assignments.get(variable.getName()) instanceof NscColumnHandle column) {
            return Optional.of(column);
        }
        return Optional.empty();
    }

    private static Optional<RowExpression.Operator> operator(FunctionName function)
    {
        if (function.equals(EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.EQUAL);
        }
        if (function.equals(NOT_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.NOT_EQUAL);
        }
        if (function.equals(LESS_THAN_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.LESS_THAN);
        }
        if (function.equals(LESS_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.LESS_THAN_OR_EQUAL);
        }
        if (function.equals(GREATER_THAN_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.GREATER_THAN);
        }
        if (function.equals(GREATER_THAN_OR_EQUAL_OPERATOR_FUNCTION_NAME)) {
            return Optional.of(RowExpression.Operator.GREATER_THAN_OR_EQUAL);
        }
        return Optional.empty();
    }
}
