package io.nsc.parquet.wire;

import com.google.protobuf.ByteString;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.nsc.parquet.expression.ArithmeticOperator;
import io.nsc.parquet.expression.ValueExpression;
import io.nsc.parquet.filter.RowExpression;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.protocol.proto.ComparisonOperator;
import io.nsc.protocol.proto.ScanArithmetic;
import io.nsc.protocol.proto.ScanArithmeticOperator;
import io.nsc.protocol.proto.ScanComparison;
import io.nsc.protocol.proto.ScanExpression;
import io.nsc.protocol.proto.ScanSubstring;
import io.nsc.protocol.proto.ScanValue;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TypeUtils.writeNativeValue;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Computed values and comparisons of them on the wire, and what a node refuses to decode. */
final class TestValueExpressionCodec
{
    // columns: bigint, varchar, double, decimal(12, 2), integer
    private static final List<Type> TYPES = List.of(BIGINT, VARCHAR, DOUBLE, createDecimalType(12, 2), INTEGER);
    private static final RequestLimits LIMITS = new RequestLimits(100, 10, 10_000);

    @Test
    void testExpressionsRoundTripAndEvaluate()
    {
        // price * (1 - discount) as TPC-H Q1 has it, over decimals
        ValueExpression one = new ValueExpression.Constant(createDecimalType(10, 0), 1L);
        ValueExpression discounted = ValueExpression.arithmetic(ArithmeticOperator.MULTIPLY,
                ValueExpression.column(3, createDecimalType(12, 2)),
                ValueExpression.arithmetic(ArithmeticOperator.SUBTRACT, one, ValueExpression.column(3, createDecimalType(12, 2))));
        assertThat(discounted.type()).isEqualTo(createDecimalType(25, 4));
        ValueExpression cast = new ValueExpression.Cast(new ValueExpression.Negation(ValueExpression.column(4, INTEGER)), BIGINT);
        for (ValueExpression expression : List.of(discounted, cast)) {
            assertThat(decode(RowExpressionCodec.encode(expression))).isEqualTo(expression);
        }

        Block[] row = row(7L, "x", 2.5, 5L /* 0.05 */, -3L);
        // 0.05 * (1 - 0.05) = 0.0475, at scale 4
        assertThat(discounted.evaluate(channel -> row[channel], 0)).isEqualTo(Int128.valueOf(475));
        assertThat(cast.evaluate(channel -> row[channel], 0)).isEqualTo(3L);
        assertThat(discounted.format(channel -> "c" + channel)).isEqualTo("(c3 * (decimal(10,0) '1' - c3))");

        // a comparison of a computed value travels as both sides; a column and a constant as before
        RowExpression computed = new RowExpression.Comparison(cast, RowExpression.Operator.GREATER_THAN, ValueExpression.column(0, BIGINT));
        assertThat(RowExpressionCodec.encode(computed).getComparison().hasLeft()).isTrue();
        assertThat(RowExpressionCodec.decode(RowExpressionCodec.encode(computed), TYPES::get)).isEqualTo(computed);
        assertThat(computed.evaluate(channel -> row[channel], 0)).isFalse();
        RowExpression simple = RowExpression.Comparison.of(1, VARCHAR, RowExpression.Operator.EQUAL, utf8Slice("x"));
        assertThat(RowExpressionCodec.encode(simple).getComparison().hasLeft()).isFalse();
        assertThat(RowExpressionCodec.decode(RowExpressionCodec.encode(simple), TYPES::get)).isEqualTo(simple);
        // NULL in, NULL out: UNKNOWN
        Block[] nulls = row(null, null, null, null, null);
        assertThat(discounted.evaluate(channel -> nulls[channel], 0)).isNull();
        assertThat(computed.evaluate(channel -> nulls[channel], 0)).isNull();
    }

    @Test
    void testSubstringsAndInListsOverThemRoundTrip()
    {
        // TPC-H Q22: substring(c_phone, 1, 2) IN ('13', '31')
        ValueExpression code = new ValueExpression.Substring(ValueExpression.column(1, VARCHAR), new ValueExpression.Constant(BIGINT, 1L), Optional.of(new ValueExpression.Constant(BIGINT, 2L)));
        ValueExpression rest = new ValueExpression.Substring(ValueExpression.column(1, VARCHAR), ValueExpression.column(0, BIGINT), Optional.empty());
        for (ValueExpression expression : List.of(code, rest)) {
            assertThat(decode(RowExpressionCodec.encode(expression))).isEqualTo(expression);
        }
        RowExpression in = new RowExpression.In(code, List.of(utf8Slice("13"), utf8Slice("31")));
        assertThat(RowExpressionCodec.encode(in).getIn().hasValue()).isTrue();
        assertThat(RowExpressionCodec.decode(RowExpressionCodec.encode(in), TYPES::get)).isEqualTo(in);
        // IN over a column travels in the form every release reads
        RowExpression columnIn = new RowExpression.In(1, VARCHAR, List.of(utf8Slice("x")));
        assertThat(RowExpressionCodec.encode(columnIn).getIn().hasValue()).isFalse();
        assertThat(RowExpressionCodec.decode(RowExpressionCodec.encode(columnIn), TYPES::get)).isEqualTo(columnIn);

        Block[] row = row(2L, "31-555-0101", 2.5, 5L, -3L);
        assertThat(((Slice) code.evaluate(channel -> row[channel], 0)).toStringUtf8()).isEqualTo("31");
        assertThat(((Slice) rest.evaluate(channel -> row[channel], 0)).toStringUtf8()).isEqualTo("1-555-0101");
        assertThat(in.evaluate(channel -> row[channel], 0)).isTrue();
        assertThat(code.format(channel -> "c" + channel)).isEqualTo("substring(c1, bigint '1', bigint '2')");
        // NULL in, NULL out: UNKNOWN
        Block[] nulls = row(null, null, null, null, null);
        assertThat(code.evaluate(channel -> nulls[channel], 0)).isNull();
        Block[] noStart = row(null, "31-555-0101", 2.5, 5L, -3L);
        assertThat(rest.evaluate(channel -> noStart[channel], 0)).isNull();
        assertThat(in.evaluate(channel -> nulls[channel], 0)).isNull();
        assertThat(code.canFail()).isFalse();

        // only varchar, with bigint positions
        ScanValue substringOfBigint = ScanValue.newBuilder().setType("bigint")
                .setSubstring(ScanSubstring.newBuilder()
                        .setInput(RowExpressionCodec.encode(ValueExpression.column(0, BIGINT)))
                        .setStart(RowExpressionCodec.encode(new ValueExpression.Constant(BIGINT, 1L))))
                .build();
        assertRefused(substringOfBigint, "substring of bigint is not computed near storage");
        ScanValue withoutStart = ScanValue.newBuilder().setType("varchar")
                .setSubstring(ScanSubstring.newBuilder().setInput(RowExpressionCodec.encode(ValueExpression.column(1, VARCHAR))))
                .build();
        assertRefused(withoutStart, "substring without input or start");
    }

    @Test
    void testWhatANodeRefuses()
    {
        ScanValue bigint = RowExpressionCodec.encode(ValueExpression.column(0, BIGINT));
        ScanValue varchar = RowExpressionCodec.encode(ValueExpression.column(1, VARCHAR));
        assertRefused(arithmetic(ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_ADD, varchar, varchar, "varchar"), "is not computed near storage");
        assertRefused(arithmetic(ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_ADD, bigint, bigint, "integer"), "declared as integer");
        assertRefused(arithmetic(ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_UNSPECIFIED, bigint, bigint, "bigint"), "without operator");
        assertRefused(ScanValue.newBuilder().setType("bigint").setArithmetic(ScanArithmetic.newBuilder()
                .setOperator(ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_ADD).setLeft(bigint)).build(), "two operands");
        assertRefused(ScanValue.newBuilder().setType("bigint").setColumn(9).build(), "unknown column");
        assertRefused(ScanValue.newBuilder().setType("bigint").setColumn(-1).build(), "negative column");
        assertRefused(ScanValue.newBuilder().setType("no_such_type").setColumn(0).build(), "unknown value type");
        assertRefused(ScanValue.newBuilder().setType("bigint").build(), "empty value expression");
        assertRefused(ScanValue.newBuilder().setType("varchar").setCast(bigint).build(), "is not computed near storage");
        assertRefused(ScanValue.newBuilder().setType("bigint").setConstant(nullBlock(BIGINT)).build(), "NULL constant");
        // nesting is checked on the way down, so a deep expression cannot exhaust the stack
        ScanValue deep = bigint;
        for (int i = 0; i < 10_000; i++) {
            deep = ScanValue.newBuilder().setType("bigint").setNegation(deep).build();
        }
        assertRefused(deep, "nested deeper than 10");
        // and a comparison's sides count against the same limit on nodes: 63 each
        ScanValue wide = balanced(6, bigint);
        decode(wide);
        assertThatThrownBy(() -> RowExpressionCodec.decoder(TYPES::get, LIMITS, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited()))
                .decode(ScanExpression.newBuilder().setComparison(ScanComparison.newBuilder()
                        .setOperator(ComparisonOperator.COMPARISON_OPERATOR_EQUAL)
                        .setLeft(wide)
                        .setRight(wide)).build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than 100 nodes");
    }

    private static ScanValue balanced(int depth, ScanValue leaf)
    {
        if (depth == 1) {
            return leaf;
        }
        ScanValue half = balanced(depth - 1, leaf);
        return arithmetic(ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_ADD, half, half, "bigint");
    }

    private static ScanValue arithmetic(ScanArithmeticOperator operator, ScanValue left, ScanValue right, String type)
    {
        return ScanValue.newBuilder()
                .setType(type)
                .setArithmetic(ScanArithmetic.newBuilder().setOperator(operator).setLeft(left).setRight(right))
                .build();
    }

    private static ValueExpression decode(ScanValue value)
    {
        return RowExpressionCodec.decoder(TYPES::get, LIMITS, new WireValues(LIMITS.maxValueBytes(), MemoryBudget.unlimited())).decode(value);
    }

    private static void assertRefused(ScanValue value, String message)
    {
        assertThatThrownBy(() -> decode(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    private static Block[] row(Object... values)
    {
        Block[] blocks = new Block[values.length];
        for (int i = 0; i < values.length; i++) {
            Type type = TYPES.get(i);
            BlockBuilder builder = type.createBlockBuilder(null, 1);
            writeNativeValue(type, builder, values[i] instanceof String text ? utf8Slice(text) : values[i]);
            blocks[i] = builder.build();
        }
        return blocks;
    }

    private static ByteString nullBlock(Type type)
    {
        BlockBuilder builder = type.createBlockBuilder(null, 1);
        builder.appendNull();
        DynamicSliceOutput output = new DynamicSliceOutput(16);
        new NscBlockEncodingSerde().writeBlock(output, builder.build());
        return ByteString.copyFrom(output.slice().getBytes());
    }
}
