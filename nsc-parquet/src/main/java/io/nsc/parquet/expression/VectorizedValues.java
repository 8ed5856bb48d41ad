package io.nsc.parquet.expression;

import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.IntFunction;

import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static java.lang.Double.doubleToLongBits;
import static java.lang.Double.longBitsToDouble;
import static java.lang.Float.intBitsToFloat;
import static java.lang.Math.toIntExact;

/**
 * Values computed a column at a time: the operand blocks first, then one loop over primitive
 * values with {@link NumericOperators}' own operators, so results and failures are those of the
 * row-at-a-time evaluation, without boxing a value per row. A NULL operand gives NULL and is
 * never passed to the operator. Only the common types take this path (integers and double; real
 * widened to double); the others, and any node whose second operand could fail where its first is
 * NULL, are evaluated a row at a time.
 */
final class VectorizedValues
{
    private VectorizedValues() {}

    static Block rowByRow(ValueExpression expression, IntFunction<Block> blocks, int positionCount)
    {
        BlockBuilder builder = expression.type().createBlockBuilder(null, positionCount);
        for (int position = 0; position < positionCount; position++) {
            expression.evaluateInto(blocks, position, builder);
        }
        return builder.build();
    }

    static Block arithmetic(ValueExpression.Arithmetic node, IntFunction<Block> blocks, int positionCount)
    {
        Type type = node.type();
        boolean floating = type instanceof DoubleType;
        // Trino computes the second operand only where the first is not NULL: one that could fail
        // must not be computed for every row
        if (!floating && !NumericOperators.isInteger(type) || node.right().canFail()) {
            return rowByRow(node, blocks, positionCount);
        }
        if (floating) {
            Doubles computed = doubles(node, blocks, positionCount);
            if (computed != null && computed.values() != null) {
                return computed.values();
            }
        }
        Block left = node.left().evaluateBlock(blocks, positionCount);
        Block right = node.right().evaluateBlock(blocks, positionCount);
        ArithmeticOperator operator = node.operator();
        if (floating) {
            double[] leftValues = doubles(left, positionCount);
            double[] rightValues = doubles(right, positionCount);
            long[] values = new long[positionCount];
            // one loop per operator: the operator is not decided again for every row
            switch (operator) {
                case ADD -> {
                    for (int position = 0; position < positionCount; position++) {
                        values[position] = doubleToLongBits(leftValues[position] + rightValues[position]);
                    }
                }
                case SUBTRACT -> {
                    for (int position = 0; position < positionCount; position++) {
                        values[position] = doubleToLongBits(leftValues[position] - rightValues[position]);
                    }
                }
                case MULTIPLY -> {
                    for (int position = 0; position < positionCount; position++) {
                        values[position] = doubleToLongBits(leftValues[position] * rightValues[position]);
                    }
                }
                case DIVIDE, MODULUS -> {
                    for (int position = 0; position < positionCount; position++) {
                        values[position] = doubleToLongBits(NumericOperators.doubleArithmetic(operator, leftValues[position], rightValues[position]));
                    }
                }
            }
            return new LongArrayBlock(positionCount, nulls(left, right, positionCount), values);
        }
        BlockBuilder builder = type.createBlockBuilder(null, positionCount);
        for (int position = 0; position < positionCount; position++) {
            if (left.isNull(position) || right.isNull(position)) {
                builder.appendNull();
                continue;
            }
            // written through the type, which refuses a value outside it as Trino's own writes do
            type.writeLong(builder, NumericOperators.integerArithmetic(operator, type, type.getLong(left, position), type.getLong(right, position)));
        }
        return builder.build();
    }

    static Block negation(ValueExpression.Negation node, IntFunction<Block> blocks, int positionCount)
    {
        Type type = node.type();
        if (!(type instanceof DoubleType) && !NumericOperators.isInteger(type)) {
            return rowByRow(node, blocks, positionCount);
        }
        Block input = node.input().evaluateBlock(blocks, positionCount);
        if (type instanceof DoubleType) {
            long[] values = new long[positionCount];
            boolean[] nulls = null;
            for (int position = 0; position < positionCount; position++) {
                if (input.isNull(position)) {
                    nulls = markNull(nulls, positionCount, position);
                    continue;
                }
                values[position] = doubleToLongBits(-DOUBLE.getDouble(input, position));
            }
            return new LongArrayBlock(positionCount, Optional.ofNullable(nulls), values);
        }
        BlockBuilder builder = type.createBlockBuilder(null, positionCount);
        for (int position = 0; position < positionCount; position++) {
            if (input.isNull(position)) {
                builder.appendNull();
                continue;
            }
            type.writeLong(builder, NumericOperators.negateInteger(type, type.getLong(input, position)));
        }
        return builder.build();
    }

    static Block cast(ValueExpression.Cast node, IntFunction<Block> blocks, int positionCount)
    {
        Type from = node.input().type();
        Type to = node.type();
        boolean toDouble = to instanceof DoubleType && (NumericOperators.isInteger(from) || from instanceof RealType);
        boolean toInteger = NumericOperators.isInteger(to) && NumericOperators.isInteger(from);
        if (!toDouble && !toInteger) {
            return rowByRow(node, blocks, positionCount);
        }
        Block input = node.input().evaluateBlock(blocks, positionCount);
        if (toDouble) {
            long[] values = new long[positionCount];
            boolean[] nulls = null;
            for (int position = 0; position < positionCount; position++) {
                if (input.isNull(position)) {
                    nulls = markNull(nulls, positionCount, position);
                    continue;
                }
                double value = from instanceof RealType
                        ? intBitsToFloat(toIntExact(REAL.getLong(input, position)))
                        : (double) from.getLong(input, position);
                values[position] = doubleToLongBits(value);
            }
            return new LongArrayBlock(positionCount, Optional.ofNullable(nulls), values);
        }
        BlockBuilder builder = to.createBlockBuilder(null, positionCount);
        for (int position = 0; position < positionCount; position++) {
            if (input.isNull(position)) {
                builder.appendNull();
                continue;
            }
            to.writeLong(builder, NumericOperators.castIntegerToInteger(from.getLong(input, position), to));
        }
        return builder.build();
    }

    /**
     * Double values of an operand without NULLs, for arithmetic over a tree of them with no block
     * in between: a constant stays one value, a column is read where its decoder put it (or
     * gathered once when a filter left it as ids), and each operator writes its result over an
     * operand's array made within this tree (a new array only where both are someone else's:
     * a column or another computed value). Null when
     * some row is NULL or the operand is not a double: then the block at a time path decides.
     * Computes what that path computes, in the same order (left operand first, each operand over
     * every row), with the same operators.
     */
    private static Doubles doubles(ValueExpression node, IntFunction<Block> blocks, int positionCount)
    {
        if (!(node.type() instanceof DoubleType)) {
            return null;
        }
        if (node instanceof ValueExpression.Constant constant) {
            return new Doubles(null, (double) constant.value(), null);
        }
        if (node instanceof ValueExpression.Arithmetic arithmetic && !arithmetic.right().canFail()) {
            Doubles left = doubles(arithmetic.left(), blocks, positionCount);
            Doubles right = left == null ? null : doubles(arithmetic.right(), blocks, positionCount);
            if (right == null) {
                return null;
            }
            // each row's result depends on that row's operands alone: it may overwrite them in place
            long[] result = left.owned() != null ? left.owned() : right.owned() != null ? right.owned() : new long[positionCount];
            apply(arithmetic.operator(), left, right, result, positionCount);
            return Doubles.owned(result, positionCount);
        }
        return switch (node.evaluateBlock(blocks, positionCount)) {
            case LongArrayBlock values when !values.mayHaveNull() -> new Doubles(values, 0, null);
            case DictionaryBlock ids when ids.getDictionary() instanceof LongArrayBlock values && !values.mayHaveNull() -> {
                long[] gathered = new long[positionCount];
                for (int position = 0; position < positionCount; position++) {
                    gathered[position] = values.getLong(ids.getId(position));
                }
                yield Doubles.owned(gathered, positionCount);
            }
            case RunLengthEncodedBlock constant when !constant.isNull(0) -> new Doubles(null, DOUBLE.getDouble(constant, 0), null);
            default -> null;
        };
    }

    /**
     * One double a row, without NULLs, or, when {@code values} is null, {@code scalar} for every
     * row; {@code owned} is the array behind {@code values} when this tree made it, so that no
     * one else sees it written again, else null.
     */
    private record Doubles(LongArrayBlock values, double scalar, long[] owned)
    {
        static Doubles owned(long[] values, int positionCount)
        {
            return new Doubles(new LongArrayBlock(positionCount, Optional.empty(), values), 0, values);
        }
    }

    // one loop per operator and operand shape: nothing is decided again for every row
    private static void apply(ArithmeticOperator operator, Doubles left, Doubles right, long[] result, int positionCount)
    {
        LongArrayBlock a = left.values();
        LongArrayBlock b = right.values();
        if (a != null && b != null) {
            switch (operator) {
                case ADD -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) + longBitsToDouble(b.getLong(p)));
                    }
                }
                case SUBTRACT -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) - longBitsToDouble(b.getLong(p)));
                    }
                }
                case MULTIPLY -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) * longBitsToDouble(b.getLong(p)));
                    }
                }
                default -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(NumericOperators.doubleArithmetic(operator, longBitsToDouble(a.getLong(p)), longBitsToDouble(b.getLong(p))));
                    }
                }
            }
        }
        else if (a == null && b != null) {
            double x = left.scalar();
            switch (operator) {
                case ADD -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(x + longBitsToDouble(b.getLong(p)));
                    }
                }
                case SUBTRACT -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(x - longBitsToDouble(b.getLong(p)));
                    }
                }
                case MULTIPLY -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(x * longBitsToDouble(b.getLong(p)));
                    }
                }
                default -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(NumericOperators.doubleArithmetic(operator, x, longBitsToDouble(b.getLong(p))));
                    }
                }
            }
        }
        else if (a != null) {
            double y = right.scalar();
            switch (operator) {
                case ADD -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) + y);
                    }
                }
                case SUBTRACT -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) - y);
                    }
                }
                case MULTIPLY -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(longBitsToDouble(a.getLong(p)) * y);
                    }
                }
                default -> {
                    for (int p = 0; p < positionCount; p++) {
                        result[p] = doubleToLongBits(NumericOperators.doubleArithmetic(operator, longBitsToDouble(a.getLong(p)), y));
                    }
                }
            }
        }
        else {
            Arrays.fill(result, 0, positionCount, doubleToLongBits(NumericOperators.doubleArithmetic(operator, left.scalar(), right.scalar())));
        }
    }

    /** The block's values as doubles; a NULL row's value is left 0 (its result is NULL anyway). */
    private static double[] doubles(Block block, int positionCount)
    {
        double[] values = new double[positionCount];
        switch (block) {
            case LongArrayBlock longs -> {
                for (int position = 0; position < positionCount; position++) {
                    values[position] = longBitsToDouble(longs.getLong(position));
                }
            }
            case RunLengthEncodedBlock constant -> {
                if (!constant.isNull(0)) {
                    Arrays.fill(values, DOUBLE.getDouble(constant, 0));
                }
            }
            default -> {
                for (int position = 0; position < positionCount; position++) {
                    if (!block.isNull(position)) {
                        values[position] = DOUBLE.getDouble(block, position);
                    }
                }
            }
        }
        return values;
    }

    /** NULL where either operand is. */
    private static Optional<boolean[]> nulls(Block left, Block right, int positionCount)
    {
        if (!left.mayHaveNull() && !right.mayHaveNull()) {
            return Optional.empty();
        }
        boolean[] nulls = null;
        for (int position = 0; position < positionCount; position++) {
            if (left.isNull(position) || right.isNull(position)) {
                nulls = markNull(nulls, positionCount, position);
            }
        }
        return Optional.ofNullable(nulls);
    }

    private static boolean[] markNull(boolean[] nulls, int positionCount, int position)
    {
        boolean[] marked = nulls == null ? new boolean[positionCount] : nulls;
        marked[position] = true;
        return marked;
    }
}
