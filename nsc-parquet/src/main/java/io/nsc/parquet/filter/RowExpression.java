package io.nsc.parquet.filter;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.types.NativeValues;
import io.trino.spi.block.Block;
import io.trino.spi.block.VariableWidthBlock;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.VarcharType;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Float.intBitsToFloat;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;

/**
 * A boolean expression over the columns of decoded pages that no domain expresses: LIKE, OR
 * across columns, NOT, comparisons (of columns, constants and values computed from columns), IN
 * and IS NULL, evaluated row by row in SQL's three-valued
 * logic (a {@code null} result is UNKNOWN). Only types whose values compare as Trino compares
 * them appear (see {@link NativeValues}); {@link #supports} says which.
 */
public sealed interface RowExpression
{
    /** The value of the expression for one row: TRUE, FALSE or null (UNKNOWN). */
    Boolean evaluate(IntFunction<Block> blocks, int position);

    /**
     * Keeps, in order and in place, the positions where the expression is TRUE (FALSE and
     * UNKNOWN drop a row, as in a WHERE clause) and returns how many there are.
     */
    default int filter(IntFunction<Block> blocks, int[] positions, int count)
    {
        return keepTrue(this, blocks, positions, count);
    }

    /** {@link #filter} by evaluating the expression row by row. */
    private static int keepTrue(RowExpression expression, IntFunction<Block> blocks, int[] positions, int count)
    {
        int passed = 0;
        for (int i = 0; i < count; i++) {
            if (Boolean.TRUE.equals(expression.evaluate(blocks, positions[i]))) {
                positions[passed++] = positions[i];
            }
        }
        return passed;
    }

    /** The same expression over renumbered columns. */
    RowExpression remap(IntUnaryOperator columns);

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

    /** Whether IN over a column of the type can be evaluated exactly. */
    static boolean supports(Type type)
    {
        return NativeValues.isOrderable(type);
    }

    /**
     * Whether comparisons with a column of the type can be evaluated exactly: the types IN takes,
     * and double and real, compared as Trino compares them (IEEE 754: NaN is neither less, equal
     * nor greater, so only {@code <>} holds for it; -0.0 equals 0.0).
     */
    static boolean supportsComparison(Type type)
    {
        return supports(type) || type == DOUBLE || type == REAL;
    }

    /**
     * AND (decisive FALSE) or OR (decisive TRUE): the decisive value wins, else UNKNOWN if any
     * term is, else the other value.
     */
    private static Boolean junction(List<RowExpression> terms, boolean decisive, IntFunction<Block> blocks, int position)
    {
        boolean unknown = false;
        for (RowExpression term : terms) {
            Boolean value = term.evaluate(blocks, position);
            if (value == null) {
                unknown = true;
            }
            else if (value == decisive) {
                return decisive;
            }
        }
        return unknown ? null : !decisive;
    }

    record And(List<RowExpression> terms)
            implements RowExpression
    {
        public And
        {
            terms = ImmutableList.copyOf(terms);
            checkArgument(!terms.isEmpty(), "AND of nothing");
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            return junction(terms, false, blocks, position);
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new And(terms.stream().map(term -> term.remap(columns)).toList());
        }
    }

    record Or(List<RowExpression> terms)
            implements RowExpression
    {
        public Or
        {
            terms = ImmutableList.copyOf(terms);
            checkArgument(!terms.isEmpty(), "OR of nothing");
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            return junction(terms, true, blocks, position);
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new Or(terms.stream().map(term -> term.remap(columns)).toList());
        }
    }

    record Not(RowExpression term)
            implements RowExpression
    {
        public Not
        {
            requireNonNull(term, "term is null");
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            Boolean value = term.evaluate(blocks, position);
            return value == null ? null : !value;
        }

        @Override
        public int filter(IntFunction<Block> blocks, int[] positions, int count)
        {
            // NOT LIKE (TPC-H Q13's) keeps the rows LIKE finds FALSE: the same pass over the bytes
            if (term instanceof Like like) {
                return like.filter(blocks, positions, count, false);
            }
            return RowExpression.super.filter(blocks, positions, count);
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new Not(term.remap(columns));
        }
    }

    record IsNull(int column)
            implements RowExpression
    {
        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            return blocks.apply(column).isNull(position);
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new IsNull(columns.applyAsInt(column));
        }
    }

    enum Operator
    {
        EQUAL, NOT_EQUAL, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL;

        boolean test(int comparison)
        {
            return switch (this) {
                case EQUAL -> comparison == 0;
                case NOT_EQUAL -> comparison != 0;
                case LESS_THAN -> comparison < 0;
                case LESS_THAN_OR_EQUAL -> comparison <= 0;
                case GREATER_THAN -> comparison > 0;
                case GREATER_THAN_OR_EQUAL -> comparison >= 0;
            };
        }
    }

    /**
     * {@code left <operator> right}, two values of one type: a column and a constant, two
     * columns, or values computed from columns (see {@link ValueExpression}). A NULL on either
     * side is UNKNOWN.
     */
    record Comparison(ValueExpression left, Operator operator, ValueExpression right)
            implements RowExpression
    {
        public Comparison
        {
            requireNonNull(left, "left is null");
            requireNonNull(operator, "operator is null");
            requireNonNull(right, "right is null");
            checkArgument(sameType(left.type(), right.type()), "cannot compare %s with %s", left.type(), right.type());
            checkArgument(supportsComparison(left.type()), "cannot compare %s", left.type());
        }

        /** {@code column <operator> value}. */
        public static Comparison of(int column, Type type, Operator operator, Object value)
        {
            return new Comparison(ValueExpression.column(column, type), operator, new ValueExpression.Constant(type, value));
        }

        private static boolean sameType(Type left, Type right)
        {
            // varchar values compare the same whatever their length
            return left.equals(right) || (left instanceof VarcharType && right instanceof VarcharType);
        }

        public Type type()
        {
            return left.type();
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            Object leftValue = left.evaluate(blocks, position);
            if (leftValue == null) {
                return null;
            }
            Object rightValue = right.evaluate(blocks, position);
            if (rightValue == null) {
                return null;
            }
            Type type = left.type();
            if (type == DOUBLE) {
                return floating((Double) leftValue, (Double) rightValue);
            }
            if (type == REAL) {
                return floating(intBitsToFloat(toIntExact((Long) leftValue)), intBitsToFloat(toIntExact((Long) rightValue)));
            }
            // Trino compares these as their own width: a quotient past the type's range (the
            // smallest value divided by -1) wraps, as it does in Trino
            return switch (type) {
                case TinyintType _ -> operator.test(Byte.compare((byte) (long) leftValue, (byte) (long) rightValue));
                case SmallintType _ -> operator.test(Short.compare((short) (long) leftValue, (short) (long) rightValue));
                case IntegerType _ -> operator.test(Integer.compare((int) (long) leftValue, (int) (long) rightValue));
                default -> operator.test(NativeValues.compare(leftValue, rightValue));
            };
        }

        private boolean floating(double left, double right)
        {
            return switch (operator) {
                case EQUAL -> left == right;
                case NOT_EQUAL -> left != right;
                case LESS_THAN -> left < right;
                case LESS_THAN_OR_EQUAL -> left <= right;
                case GREATER_THAN -> left > right;
                case GREATER_THAN_OR_EQUAL -> left >= right;
            };
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new Comparison(left.remap(columns), operator, right.remap(columns));
        }
    }

    /**
     * {@code value IN (values)}, where the value is a column or computed from columns: TRUE on a
     * match, else UNKNOWN if a NULL is listed, else FALSE.
     */
    record In(ValueExpression value, List<Object> values)
            implements RowExpression
    {
        public In
        {
            requireNonNull(value, "value is null");
            values = Collections.unmodifiableList(new ArrayList<>(values));
            checkArgument(supports(value.type()), "cannot compare %s", value.type());
        }

        /** {@code column IN (values)}. */
        public In(int column, Type type, List<Object> values)
        {
            this(ValueExpression.column(column, type), values);
        }

        public Type type()
        {
            return value.type();
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            Object candidate = value.evaluate(blocks, position);
            if (candidate == null) {
                return null;
            }
            boolean listsNull = false;
            for (Object listed : values) {
                if (listed == null) {
                    listsNull = true;
                }
                else if (NativeValues.compare(candidate, listed) == 0) {
                    return true;
                }
            }
            return listsNull ? null : false;
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new In(value.remap(columns), values);
        }
    }

    /**
     * {@code column LIKE pattern [ESCAPE escape]} over varchar: {@code %} is any run of
     * characters, {@code _} one character (a code point), the escape character makes the next
     * one literal.
     */
    record Like(int column, String pattern, Optional<Character> escape, LikeMatcher matcher)
            implements RowExpression
    {
        // how many distinct values per row to test a dictionary may hold and still be matched value by value
        private static final int REMEMBERED_VALUES_PER_ROW = 4;
        private static final byte UNKNOWN = 0;
        private static final byte MATCHES = 1;
        private static final byte DIFFERS = 2;

        public Like
        {
            requireNonNull(pattern, "pattern is null");
            requireNonNull(escape, "escape is null");
            requireNonNull(matcher, "matcher is null");
        }

        /**
         * @throws IllegalArgumentException when the pattern misuses the escape character
         */
        public static Like create(int column, String pattern, Optional<Character> escape)
        {
            return new Like(column, pattern, escape, LikeMatcher.compile(pattern, escape));
        }

        public static boolean supports(Type type)
        {
            return type instanceof VarcharType;
        }

        @Override
        public Boolean evaluate(IntFunction<Block> blocks, int position)
        {
            Block block = blocks.apply(column);
            if (block.isNull(position)) {
                return null;
            }
            if (block.getUnderlyingValueBlock() instanceof VariableWidthBlock values) {
                return matches(values, block.getUnderlyingValuePosition(position));
            }
            return matcher.matches(VARCHAR.getSlice(block, position));
        }

        /**
         * Matches each row's bytes where the block holds them, and each distinct value of a
         * dictionary or run-length block once, where the dictionary is not much larger than the
         * rows to test (a scan reads low-cardinality strings as dictionaries).
         */
        @Override
        public int filter(IntFunction<Block> blocks, int[] positions, int count)
        {
            return filter(blocks, positions, count, true);
        }

        /** Keeps the rows whose value matches ({@code keepMatches}) or does not (NOT LIKE); null values never stay. */
        int filter(IntFunction<Block> blocks, int[] positions, int count, boolean keepMatches)
        {
            Block block = blocks.apply(column);
            if (!(block.getUnderlyingValueBlock() instanceof VariableWidthBlock values)) {
                return keepTrue(keepMatches ? this : new Not(this), blocks, positions, count);
            }
            boolean remembers = block != values && values.getPositionCount() <= REMEMBERED_VALUES_PER_ROW * count;
            byte[] remembered = remembers ? new byte[values.getPositionCount()] : null;
            Slice raw = values.getRawSlice();
            byte[] bytes = raw.byteArray();
            int base = raw.byteArrayOffset();
            int passed = 0;
            for (int i = 0; i < count; i++) {
                int position = positions[i];
                if (block.isNull(position)) {
                    continue;
                }
                int valuePosition = block.getUnderlyingValuePosition(position);
                boolean matches;
                if (remembered == null) {
                    matches = matcher.matches(bytes, base + values.getRawSliceOffset(valuePosition), values.getSliceLength(valuePosition));
                }
                else {
                    if (remembered[valuePosition] == UNKNOWN) {
                        remembered[valuePosition] = matches(values, valuePosition) ? MATCHES : DIFFERS;
                    }
                    matches = remembered[valuePosition] == MATCHES;
                }
                if (matches == keepMatches) {
                    positions[passed++] = position;
                }
            }
            return passed;
        }

        private boolean matches(VariableWidthBlock values, int valuePosition)
        {
            Slice raw = values.getRawSlice();
            return matcher.matches(raw.byteArray(), raw.byteArrayOffset() + values.getRawSliceOffset(valuePosition), values.getSliceLength(valuePosition));
        }

        @Override
        public RowExpression remap(IntUnaryOperator columns)
        {
            return new Like(columns.applyAsInt(column), pattern, escape, matcher);
        }
    }
}
