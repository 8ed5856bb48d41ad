package io.nsc.parquet.expression;

import com.google.common.primitives.Primitives;
import io.airlift.slice.Slice;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.Int128;
import io.trino.spi.type.RealType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.lang.Float.intBitsToFloat;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * A value computed from the columns of a row: a column, a constant, arithmetic, negation, a
 * cast or a substring, with Trino's semantics (see {@link NumericOperators}, {@link Substrings}). NULL in, NULL out: an operator
 * with a NULL operand is NULL and never fails. Its type is the type Trino gives the same
 * expression; the factories refuse what is not computed exactly as Trino would.
 */
public sealed interface ValueExpression
{
    Type type();

    /** The value for one row, as Trino's native value, or null. */
    Object evaluate(IntFunction<Block> blocks, int position);

    /** The same expression over renumbered columns. */
    ValueExpression remap(IntUnaryOperator columns);

    /** The expression in SQL, naming each column as {@code names} says. */
    String format(IntFunction<String> names);

    /** The columns it reads. */
    default Set<Integer> columns()
    {
        Set<Integer> columns = new TreeSet<>();
        remap(column -> {
            columns.add(column);
            return column;
        });
        return columns;
    }

    /**
     * Appends the value for one row. Writing goes through the type as Trino's does, so a value
     * outside its type (the smallest integer divided by -1) fails here as it fails in Trino.
     */
    default void evaluateInto(IntFunction<Block> blocks, int position, BlockBuilder builder)
    {
        writeNativeValue(type(), builder, evaluate(blocks, position));
    }

    /**
     * The values for the first {@code positionCount} rows, as a block. Columns are the blocks
     * themselves and constants run-length blocks; arithmetic, negation and casts over integers and
     * floating point run a column at a time on primitive values with the same operators, the other
     * types a row at a time.
     */
    default Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
    {
        return VectorizedValues.rowByRow(this, blocks, positionCount);
    }

    /**
     * Whether evaluating it can fail for some row (an overflow, a division by zero, a cast that
     * does not fit). Trino does not evaluate an operand after a NULL one, so only an operand that
     * cannot fail may be computed for every row ahead of the operator.
     */
    boolean canFail();

    static Column column(int column, Type type)
    {
        return new Column(column, type);
    }

    /**
     * @throws IllegalArgumentException when Trino's operator over these types is not computed here
     */
    static Arithmetic arithmetic(ArithmeticOperator operator, ValueExpression left, ValueExpression right)
    {
        Type type = NumericOperators.arithmeticType(operator, left.type(), right.type())
                .orElseThrow(() -> new IllegalArgumentException("%s %s %s is not computed near storage".formatted(left.type(), operator.symbol(), right.type())));
        return new Arithmetic(operator, left, right, type);
    }

    record Column(int column, Type type)
            implements ValueExpression
    {
        public Column
        {
            checkArgument(column >= 0, "column is negative");
            requireNonNull(type, "type is null");
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            return readNativeValue(type, blocks.apply(column), position);
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return new Column(columns.applyAsInt(column), type);
        }

        @Override
        public String format(IntFunction<String> names)
        {
            return names.apply(column);
        }

        @Override
        public Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
        {
            return blocks.apply(column);
        }

        @Override
        public boolean canFail()
        {
            return false;
        }
    }

    /** A constant other than NULL (Trino folds operators over NULL before they get here). */
    record Constant(Type type, Object value)
            implements ValueExpression
    {
        public Constant
        {
            requireNonNull(type, "type is null");
            requireNonNull(value, "value is null");
            checkArgument(Primitives.wrap(type.getJavaType()).isInstance(value), "value %s is not a %s", value, type);
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            return value;
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return this;
        }

        @Override
        public String format(IntFunction<String> names)
        {
            String text = switch (value) {
                case Long unscaled when type instanceof DecimalType decimal -> Decimals.toString(unscaled, decimal.getScale());
                case Int128 unscaled when type instanceof DecimalType decimal -> Decimals.toString(unscaled, decimal.getScale());
                case Long bits when type instanceof RealType -> String.valueOf(intBitsToFloat(toIntExact(bits)));
                case Slice slice -> slice.toStringUtf8();
                default -> String.valueOf(value);
            };
            return type.getDisplayName() + " '" + text + "'";
        }

        @Override
        public Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
        {
            return RunLengthEncodedBlock.create(type, value, positionCount);
        }

        @Override
        public boolean canFail()
        {
            return false;
        }
    }

    record Arithmetic(ArithmeticOperator operator, ValueExpression left, ValueExpression right, Type type)
            implements ValueExpression
    {
        public Arithmetic
        {
            requireNonNull(operator, "operator is null");
            requireNonNull(left, "left is null");
            requireNonNull(right, "right is null");
            requireNonNull(type, "type is null");
            checkArgument(NumericOperators.arithmeticType(operator, left.type(), right.type()).filter(type::equals).isPresent(),
                    "%s %s %s is not a %s near storage", left.type(), operator.symbol(), right.type(), type);
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            Object leftValue = left.evaluate(blocks, position);
            if (leftValue == null) {
                return null;
            }
            Object rightValue = right.evaluate(blocks, position);
            if (rightValue == null) {
                return null;
            }
            return NumericOperators.arithmetic(operator, left.type(), leftValue, right.type(), rightValue, type);
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return new Arithmetic(operator, left.remap(columns), right.remap(columns), type);
        }

        @Override
        public String format(IntFunction<String> names)
        {
            return "(%s %s %s)".formatted(left.format(names), operator.symbol(), right.format(names));
        }

        @Override
        public Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
        {
            return VectorizedValues.arithmetic(this, blocks, positionCount);
        }

        @Override
        public boolean canFail()
        {
            return NumericOperators.arithmeticCanFail(type) || left.canFail() || right.canFail();
        }
    }

    record Negation(ValueExpression input)
            implements ValueExpression
    {
        public Negation
        {
            requireNonNull(input, "input is null");
            checkArgument(NumericOperators.negationSupported(input.type()), "negation of %s is not computed near storage", input.type());
        }

        @Override
        public Type type()
        {
            return input.type();
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            Object value = input.evaluate(blocks, position);
            return value == null ? null : NumericOperators.negate(input.type(), value);
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return new Negation(input.remap(columns));
        }

        @Override
        public String format(IntFunction<String> names)
        {
            return "(-%s)".formatted(input.format(names));
        }

        @Override
        public Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
        {
            return VectorizedValues.negation(this, blocks, positionCount);
        }

        @Override
        public boolean canFail()
        {
            return NumericOperators.negationCanFail(input.type()) || input.canFail();
        }
    }

    record Cast(ValueExpression input, Type type)
            implements ValueExpression
    {
        public Cast
        {
            requireNonNull(input, "input is null");
            requireNonNull(type, "type is null");
            checkArgument(NumericOperators.castSupported(input.type(), type), "CAST(%s AS %s) is not computed near storage", input.type(), type);
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            Object value = input.evaluate(blocks, position);
            return value == null ? null : NumericOperators.cast(input.type(), value, type);
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return new Cast(input.remap(columns), type);
        }

        @Override
        public String format(IntFunction<String> names)
        {
            return "CAST(%s AS %s)".formatted(input.format(names), type.getDisplayName());
        }

        @Override
        public Block evaluateBlock(IntFunction<Block> blocks, int positionCount)
        {
            return VectorizedValues.cast(this, blocks, positionCount);
        }

        @Override
        public boolean canFail()
        {
            return NumericOperators.castCanFail(input.type(), type) || input.canFail();
        }
    }

    /**
     * {@code substring(input, start [, length])} over varchar, in code points as Trino counts
     * them (TPC-H Q22 filters and groups on {@code substring(c_phone, 1, 2)}). Its type is the
     * input's, as Trino types it; it never fails.
     */
    record Substring(ValueExpression input, ValueExpression start, Optional<ValueExpression> length)
            implements ValueExpression
    {
        public Substring
        {
            requireNonNull(input, "input is null");
            requireNonNull(start, "start is null");
            requireNonNull(length, "length is null");
            checkArgument(input.type() instanceof VarcharType, "substring of %s is not computed near storage", input.type());
            checkArgument(start.type() == BIGINT, "substring start of type %s", start.type());
            checkArgument(length.map(ValueExpression::type).orElse(BIGINT) == BIGINT, "substring length of type %s", length.map(ValueExpression::type).orElse(BIGINT));
        }

        @Override
        public Type type()
        {
            return input.type();
        }

        @Override
        public Object evaluate(IntFunction<Block> blocks, int position)
        {
            Slice value = (Slice) input.evaluate(blocks, position);
            if (value == null) {
                return null;
            }
            Long from = (Long) start.evaluate(blocks, position);
            if (from == null) {
                return null;
            }
            if (length.isEmpty()) {
                return Substrings.substring(value, from);
            }
            Long codePoints = (Long) length.get().evaluate(blocks, position);
            return codePoints == null ? null : Substrings.substring(value, from, codePoints);
        }

        @Override
        public ValueExpression remap(IntUnaryOperator columns)
        {
            return new Substring(input.remap(columns), start.remap(columns), length.map(value -> value.remap(columns)));
        }

        @Override
        public String format(IntFunction<String> names)
        {
            return "substring(%s, %s%s)".formatted(input.format(names), start.format(names), length.map(value -> ", " + value.format(names)).orElse(""));
        }

        @Override
        public boolean canFail()
        {
            return input.canFail() || start.canFail() || length.map(ValueExpression::canFail).orElse(false);
        }
    }
}
