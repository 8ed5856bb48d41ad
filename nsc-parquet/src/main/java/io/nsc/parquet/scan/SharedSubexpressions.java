package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.expression.ValueExpression.Arithmetic;
import io.nsc.parquet.expression.ValueExpression.Cast;
import io.nsc.parquet.expression.ValueExpression.Column;
import io.nsc.parquet.expression.ValueExpression.Constant;
import io.nsc.parquet.expression.ValueExpression.Negation;
import io.nsc.parquet.expression.ValueExpression.Substring;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A page's computed values, each made to read any other computed value it contains instead of
 * computing it again. Trino hands a connector each projection whole: TPC-H Q1 asks for
 * {@code price * (1 - discount)} and for {@code price * (1 - discount) * (1 + tax)}, so the second
 * would repeat the first's work on every row.
 * <p>
 * Only values that cannot fail are shared: one that can must fail for exactly the rows the query
 * evaluates it on, and a shared value is computed over the rows its own channel is asked for.
 */
final class SharedSubexpressions
{
    private SharedSubexpressions() {}

    /**
     * @param computed the values, in the channels after {@code decodedChannels}
     * @return the same values, each reading the channel of any other one it contains
     */
    static List<ValueExpression> share(List<ValueExpression> computed, int decodedChannels)
    {
        Map<ValueExpression, Integer> channels = new HashMap<>();
        for (int index = 0; index < computed.size(); index++) {
            ValueExpression expression = computed.get(index);
            if (shareable(expression)) {
                channels.putIfAbsent(expression, decodedChannels + index);
            }
        }
        ImmutableList.Builder<ValueExpression> shared = ImmutableList.builder();
        for (int index = 0; index < computed.size(); index++) {
            ValueExpression expression = computed.get(index);
            Integer first = channels.get(expression);
            if (first != null && first != decodedChannels + index) {
                // the same value asked for twice: the second reads the first
                shared.add(new Column(first, expression.type()));
            }
            else {
                shared.add(readShared(expression, channels, true));
            }
        }
        return shared.build();
    }

    private static boolean shareable(ValueExpression expression)
    {
        return !(expression instanceof Column) && !(expression instanceof Constant) && !expression.canFail();
    }

    private static ValueExpression readShared(ValueExpression expression, Map<ValueExpression, Integer> channels, boolean whole)
    {
        if (!whole) {
            Integer channel = channels.get(expression);
            if (channel != null) {
                return new Column(channel, expression.type());
            }
        }
        return switch (expression) {
            case Arithmetic arithmetic -> new Arithmetic(
                    arithmetic.operator(),
                    readShared(arithmetic.left(), channels, false),
                    readShared(arithmetic.right(), channels, false),
                    arithmetic.type());
            case Negation negation -> new Negation(readShared(negation.input(), channels, false));
            case Cast cast -> new Cast(readShared(cast.input(), channels, false), cast.type());
            case Substring substring -> new Substring(
                    readShared(substring.input(), channels, false),
                    readShared(substring.start(), channels, false),
                    substring.length().map(length -> readShared(length, channels, false)));
            case Column _, Constant _ -> expression;
        };
    }
}
