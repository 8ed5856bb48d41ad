package io.nsc.parquet.scan;

import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.expression.ValueExpression.Arithmetic;
import io.nsc.parquet.expression.ValueExpression.Column;
import io.nsc.parquet.expression.ValueExpression.Constant;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static io.nsc.parquet.expression.ArithmeticOperator.ADD;
import static io.nsc.parquet.expression.ArithmeticOperator.MULTIPLY;
import static io.nsc.parquet.expression.ArithmeticOperator.SUBTRACT;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.TypeUtils.readNativeValue;
import static org.assertj.core.api.Assertions.assertThat;

final class TestSharedSubexpressions
{
    // decoded channels: price, discount, tax (double), quantity (bigint)
    private static final int DECODED = 4;
    private static final Column PRICE = new Column(0, DOUBLE);
    private static final Column DISCOUNT = new Column(1, DOUBLE);
    private static final Column TAX = new Column(2, DOUBLE);
    private static final Column QUANTITY = new Column(3, BIGINT);
    // TPC-H Q1's two computed values, as Trino hands them over: the second contains the first
    private static final ValueExpression DISCOUNTED = doubles(MULTIPLY, PRICE, doubles(SUBTRACT, constant(1), DISCOUNT));
    private static final ValueExpression CHARGED = doubles(MULTIPLY, DISCOUNTED, doubles(ADD, constant(1), TAX));

    @Test
    void testAValueContainingAnotherReadsItsChannel()
    {
        List<ValueExpression> shared = SharedSubexpressions.share(List.of(DISCOUNTED, CHARGED), DECODED);
        assertThat(shared.get(0)).isEqualTo(DISCOUNTED);
        assertThat(shared.get(1)).isEqualTo(doubles(MULTIPLY, new Column(DECODED, DOUBLE), doubles(ADD, constant(1), TAX)));
        // in either order
        assertThat(SharedSubexpressions.share(List.of(CHARGED, DISCOUNTED), DECODED).get(0))
                .isEqualTo(doubles(MULTIPLY, new Column(DECODED + 1, DOUBLE), doubles(ADD, constant(1), TAX)));
    }

    @Test
    void testTheSameValueTwiceIsComputedOnce()
    {
        assertThat(SharedSubexpressions.share(List.of(CHARGED, DISCOUNTED, CHARGED), DECODED))
                .containsExactly(doubles(MULTIPLY, new Column(DECODED + 1, DOUBLE), doubles(ADD, constant(1), TAX)), DISCOUNTED, new Column(DECODED, DOUBLE));
    }

    @Test
    void testValuesThatCanFailAreNotShared()
    {
        // bigint arithmetic can overflow: each value fails for exactly the rows it is evaluated on
        ValueExpression doubled = ValueExpression.arithmetic(MULTIPLY, QUANTITY, new Constant(BIGINT, 2L));
        ValueExpression plusOne = ValueExpression.arithmetic(ADD, doubled, new Constant(BIGINT, 1L));
        assertThat(SharedSubexpressions.share(List.of(doubled, plusOne), DECODED)).containsExactly(doubled, plusOne);
        // nor are plain columns and constants, which cost nothing to read
        assertThat(SharedSubexpressions.share(List.of(PRICE, CHARGED), DECODED)).containsExactly(PRICE, CHARGED);
    }

    @Test
    void testSharedValuesEqualValuesComputedAlone()
    {
        Random random = new Random(7);
        List<ValueExpression> computed = List.of(CHARGED, DISCOUNTED, doubles(SUBTRACT, DISCOUNTED, TAX), CHARGED);
        List<ValueExpression> shared = SharedSubexpressions.share(computed, DECODED);
        for (int round = 0; round < 50; round++) {
            Page decoded = randomPage(random, 200);
            int[] kept = random.ints(0, 200).distinct().limit(37).sorted().toArray();
            // asked for in every order, before and after the filter dropped rows, as scans do
            int first = random.nextInt(computed.size());
            Block[] alone = evaluate(decoded, computed, first, kept);
            Block[] together = evaluate(decoded, shared, first, kept);
            for (int index = 0; index < computed.size(); index++) {
                assertThat(together[index].getPositionCount()).isEqualTo(kept.length);
                for (int position = 0; position < kept.length; position++) {
                    assertThat(readNativeValue(DOUBLE, together[index], position)).as("%s at %s", computed.get(index), position)
                            .isEqualTo(readNativeValue(DOUBLE, alone[index], position));
                }
            }
        }
    }

    /** Computes value {@code first} over every row, keeps the rows {@code kept}, then computes the others. */
    private static Block[] evaluate(Page decoded, List<ValueExpression> computed, int first, int[] kept)
    {
        ComputedColumnsSourcePage page = new ComputedColumnsSourcePage(SourcePage.create(decoded), computed);
        page.getBlock(DECODED + first);
        page.selectPositions(kept, 0, kept.length);
        Block[] blocks = new Block[computed.size()];
        for (int index = 0; index < computed.size(); index++) {
            blocks[index] = page.getBlock(DECODED + index);
        }
        return blocks;
    }

    private static Page randomPage(Random random, int rows)
    {
        List<Type> types = List.of(DOUBLE, DOUBLE, DOUBLE, BIGINT);
        Block[] blocks = new Block[types.size()];
        for (int channel = 0; channel < blocks.length; channel++) {
            BlockBuilder builder = types.get(channel).createBlockBuilder(null, rows);
            for (int row = 0; row < rows; row++) {
                if (types.get(channel) == DOUBLE) {
                    DOUBLE.writeDouble(builder, random.nextInt(10) == 0 ? Double.NaN : random.nextDouble() * 1000);
                }
                else {
                    BIGINT.writeLong(builder, random.nextInt(50));
                }
            }
            blocks[channel] = builder.build();
        }
        return new Page(rows, blocks);
    }

    private static ValueExpression doubles(ArithmeticOperator operator, ValueExpression left, ValueExpression right)
    {
        return new Arithmetic(operator, left, right, DOUBLE);
    }

    private static Constant constant(double value)
    {
        return new Constant(DOUBLE, value);
    }
}
