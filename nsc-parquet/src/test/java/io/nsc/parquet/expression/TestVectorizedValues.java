package io.nsc.parquet.expression;

import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.block.DictionaryBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.IntFunction;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static java.lang.Float.floatToRawIntBits;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A column at a time gives what a row at a time gives: the same values, NULLs and failures,
 * over flat, run-length and dictionary blocks with NULLs, for random expression trees.
 */
final class TestVectorizedValues
{
    private static final int ROWS = 300;
    // channels: bigint, integer, tinyint, double, real, decimal(10, 2)
    private static final List<Type> TYPES = List.of(BIGINT, INTEGER, TINYINT, DOUBLE, REAL, createDecimalType(10, 2));

    @Test
    void testColumnAtATimeEqualsRowAtATime()
    {
        Random random = new Random(3);
        int compared = 0;
        int failed = 0;
        for (int round = 0; round < 1_000; round++) {
            Block[] blocks = new Block[TYPES.size()];
            // half the rounds without NULLs: the paths for operands that have none
            boolean nulls = round % 2 == 0;
            for (int channel = 0; channel < blocks.length; channel++) {
                blocks[channel] = randomBlock(TYPES.get(channel), random, nulls);
            }
            ValueExpression expression = randomExpression(random, 3);
            IntFunction<Block> channels = channel -> blocks[channel];

            Object[] expected = new Object[ROWS];
            Optional<String> expectedFailure = Optional.empty();
            try {
                BlockBuilder builder = expression.type().createBlockBuilder(null, ROWS);
                for (int position = 0; position < ROWS; position++) {
                    expression.evaluateInto(channels, position, builder);
                }
                Block rows = builder.build();
                for (int position = 0; position < ROWS; position++) {
                    expected[position] = readNativeValue(expression.type(), rows, position);
                }
            }
            catch (TrinoException e) {
                expectedFailure = Optional.of(e.getErrorCode().getName());
            }

            Optional<String> actualFailure = Optional.empty();
            Block columns = null;
            List<List<Object>> inputsBefore = values(blocks);
            try {
                columns = expression.evaluateBlock(channels, ROWS);
            }
            catch (TrinoException e) {
                actualFailure = Optional.of(e.getErrorCode().getName());
            }
            // results may be computed in place, but never over an input's values
            assertThat(values(blocks)).as("inputs after %s", expression).isEqualTo(inputsBefore);
            // a column at a time may meet another failing row first, with another error: the
            // query fails either way, as Trino's would (TestNscExpressionPushdown compares messages row by row)
            assertThat(actualFailure.isPresent()).as("%s fails: %s", expression, expectedFailure).isEqualTo(expectedFailure.isPresent());
            if (expectedFailure.isPresent()) {
                failed++;
                continue;
            }
            assertThat(columns.getPositionCount()).isEqualTo(ROWS);
            for (int position = 0; position < ROWS; position++) {
                Object actual = readNativeValue(expression.type(), columns, position);
                assertThat(actual).as("%s at %s", expression, position).isEqualTo(expected[position]);
            }
            compared++;
        }
        // the random trees exercise both outcomes
        assertThat(compared).isGreaterThan(250);
        assertThat(failed).isGreaterThan(25);
    }

    private static List<List<Object>> values(Block[] blocks)
    {
        List<List<Object>> values = new ArrayList<>();
        for (int channel = 0; channel < blocks.length; channel++) {
            List<Object> column = new ArrayList<>();
            for (int position = 0; position < ROWS; position++) {
                column.add(readNativeValue(TYPES.get(channel), blocks[channel], position));
            }
            values.add(column);
        }
        return values;
    }

    private static ValueExpression randomExpression(Random random, int depth)
    {
        Type type = List.of(BIGINT, INTEGER, TINYINT, DOUBLE, DOUBLE, REAL, createDecimalType(10, 2)).get(random.nextInt(7));
        return randomExpression(random, depth, type);
    }

    private static ValueExpression randomExpression(Random random, int depth, Type type)
    {
        int channel = TYPES.indexOf(type);
        if (depth == 0 || random.nextInt(4) == 0) {
            if (channel >= 0 && random.nextInt(3) > 0) {
                return ValueExpression.column(channel, type);
            }
            return new ValueExpression.Constant(type, randomValue(type, random));
        }
        return switch (random.nextInt(5)) {
            case 0 -> new ValueExpression.Negation(randomExpression(random, depth - 1, type));
            case 1 -> {
                // a cast into the type from another the evaluator casts from
                List<Type> sources = TYPES.stream().filter(source -> NumericOperators.castSupported(source, type)).toList();
                Type source = sources.get(random.nextInt(sources.size()));
                yield new ValueExpression.Cast(randomExpression(random, depth - 1, source), type);
            }
            default -> {
                ArithmeticOperator operator = ArithmeticOperator.values()[random.nextInt(ArithmeticOperator.values().length)];
                if (type.getTypeSignature().getBase().equals("decimal")) {
                    yield ValueExpression.arithmetic(operator, randomExpression(random, depth - 1, createDecimalType(10, 2)), new ValueExpression.Constant(createDecimalType(10, 2), 150L));
                }
                yield ValueExpression.arithmetic(operator, randomExpression(random, depth - 1, type), randomExpression(random, depth - 1, type));
            }
        };
    }

    private static Block randomBlock(Type type, Random random, boolean nulls)
    {
        return switch (random.nextInt(4)) {
            case 0 -> RunLengthEncodedBlock.create(type, nulls && random.nextInt(4) == 0 ? null : randomValue(type, random), ROWS);
            case 1 -> {
                Block dictionary = flat(type, random, 7, nulls);
                int[] ids = new int[ROWS];
                for (int i = 0; i < ROWS; i++) {
                    ids[i] = random.nextInt(7);
                }
                yield DictionaryBlock.create(ROWS, dictionary, ids);
            }
            default -> flat(type, random, ROWS, nulls);
        };
    }

    private static Block flat(Type type, Random random, int rows, boolean nulls)
    {
        BlockBuilder builder = type.createBlockBuilder(null, rows);
        for (int i = 0; i < rows; i++) {
            writeNativeValue(type, builder, nulls && random.nextInt(10) == 0 ? null : randomValue(type, random));
        }
        return builder.build();
    }

    private static Object randomValue(Type type, Random random)
    {
        List<Long> integers = new ArrayList<>(List.of(0L, 1L, -1L, 2L, 7L, -100L));
        switch (type.getTypeSignature().getBase()) {
            case "bigint" -> integers.addAll(List.of(Long.MAX_VALUE, Long.MIN_VALUE, 1L << 40));
            case "integer" -> integers.addAll(List.of((long) Integer.MAX_VALUE, (long) Integer.MIN_VALUE, 100_000L));
            case "tinyint" -> integers.addAll(List.of(127L, -128L, 100L));
            case "decimal" -> integers.addAll(List.of(9_999_999_999L, -9_999_999_999L, 12_345L));
            case "double" -> {
                double[] doubles = {0.0, -0.0, 1.5, -2.25, Double.NaN, Double.POSITIVE_INFINITY, 1e308, 3.0};
                return doubles[random.nextInt(doubles.length)];
            }
            case "real" -> {
                float[] floats = {0.0f, -0.0f, 1.5f, Float.NaN, Float.NEGATIVE_INFINITY, 3e38f};
                return (long) floatToRawIntBits(floats[random.nextInt(floats.length)]);
            }
            default -> throw new IllegalArgumentException(type.toString());
        }
        return integers.get(random.nextInt(integers.size()));
    }
}
