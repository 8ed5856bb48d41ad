package io.nsc.trino.metadata;

import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.expression.Call;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.expression.Constant;
import io.trino.spi.expression.FunctionName;
import io.trino.spi.expression.Variable;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static io.trino.spi.expression.StandardFunctions.ADD_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.CAST_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.DIVIDE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.MODULUS_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.MULTIPLY_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.NEGATE_FUNCTION_NAME;
import static io.trino.spi.expression.StandardFunctions.SUBTRACT_FUNCTION_NAME;

/**
 * The values of a query's expressions that nsc computes exactly as Trino would: columns,
 * constants, arithmetic, negation and casts over numbers (see
 * {@link io.nsc.parquet.expression.NumericOperators}) and {@code substring} over varchar, translated from Trino's
 * {@link ConnectorExpression} into {@link ValueExpression}s over table column ordinals. Anything
 * else, or a result type other than the one Trino derived, stays Trino's to compute.
 */
public final class ValueExpressions
{
    private static final Map<FunctionName, ArithmeticOperator> ARITHMETIC = Map.of(
            ADD_FUNCTION_NAME, ArithmeticOperator.ADD,
            SUBTRACT_FUNCTION_NAME, ArithmeticOperator.SUBTRACT,
            MULTIPLY_FUNCTION_NAME, ArithmeticOperator.MULTIPLY,
            DIVIDE_FUNCTION_NAME, ArithmeticOperator.DIVIDE,
            MODULUS_FUNCTION_NAME, ArithmeticOperator.MODULUS);

    // Trino's two names for one function
    private static final Set<FunctionName> SUBSTRING = Set.of(new FunctionName("substring"), new FunctionName("substr"));

    private ValueExpressions() {}

    /**
     * @param assignments the scan's variables: table columns, or values already computed by the scan
     */
    public static Optional<ValueExpression> translate(ConnectorExpression expression, Map<String, ColumnHandle> assignments)
    {
        return switch (expression) {
            case Variable variable -> switch (assignments.get(variable.getName())) {
                case NscColumnHandle column -> Optional.of(ValueExpression.column(column.ordinal(), column.type()));
                case NscComputedColumnHandle computed -> Optional.of(computed.value());
                case null, default -> Optional.empty();
            };
            // NULL makes every operator NULL: Trino folds such expressions itself
            case Constant constant -> constant.getValue() == null
                    ? Optional.empty()
                    : Optional.of(new ValueExpression.Constant(constant.getType(), constant.getValue()));
            case Call call -> call(call, assignments);
            default -> Optional.empty();
        };
    }

    /** Whether the expression computes something: more than a column or a constant. */
    public static boolean computes(ValueExpression expression)
    {
        return !(expression instanceof ValueExpression.Column) && !(expression instanceof ValueExpression.Constant);
    }

    private static Optional<ValueExpression> substring(List<ConnectorExpression> arguments, Map<String, ColumnHandle> assignments)
    {
        List<Optional<ValueExpression>> values = arguments.stream()
                .map(argument -> translate(argument, assignments))
                .toList();
        if (values.stream().anyMatch(Optional::isEmpty)) {
            return Optional.empty();
        }
        Optional<ValueExpression> length = values.size() == 3 ? values.get(2) : Optional.empty();
        return Optional.of(new ValueExpression.Substring(values.get(0).get(), values.get(1).get(), length));
    }

    private static Optional<ValueExpression> call(Call call, Map<String, ColumnHandle> assignments)
    {
        List<ConnectorExpression> arguments = call.getArguments();
        ArithmeticOperator operator = ARITHMETIC.get(call.getFunctionName());
        try {
            if (operator != null && arguments.size() == 2) {
                Optional<ValueExpression> left = translate(arguments.get(0), assignments);
                Optional<ValueExpression> right = left.isEmpty() ? Optional.empty() : translate(arguments.get(1), assignments);
                return right.<ValueExpression>map(value -> ValueExpression.arithmetic(operator, left.get(), value))
                        .filter(value -> value.type().equals(call.getType()));
            }
            if (call.getFunctionName().equals(NEGATE_FUNCTION_NAME) && arguments.size() == 1) {
                return translate(arguments.getFirst(), assignments)
                        .<ValueExpression>map(ValueExpression.Negation::new)
                        .filter(value -> value.type().equals(call.getType()));
            }
            if (call.getFunctionName().equals(CAST_FUNCTION_NAME) && arguments.size() == 1) {
                return translate(arguments.getFirst(), assignments)
                        .<ValueExpression>map(input -> new ValueExpression.Cast(input, call.getType()))
                        .filter(value -> value.type().equals(call.getType()));
            }
            if (SUBSTRING.contains(call.getFunctionName()) && (arguments.size() == 2 || arguments.size() == 3)) {
                return substring(arguments, assignments).filter(value -> value.type().equals(call.getType()));
            }
        }
        catch (IllegalArgumentException e) {
            // types nsc does not compute this operator for: Trino's to evaluate
            return Optional.empty();
        }
        return Optional.empty();
    }
}
