package io.nsc.parquet.expression;

import io.trino.spi.TrinoException;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Type;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import java.util.Random;

import static io.trino.spi.StandardErrorCode.DIVISION_BY_ZERO;
import static io.trino.spi.StandardErrorCode.INVALID_CAST_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.lang.Float.floatToRawIntBits;
import static java.lang.Float.intBitsToFloat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Arithmetic and casts against exact arithmetic: for random operands near each type's limits,
 * the result is the exact one when it fits and Trino's error when it does not. That Trino itself
 * gives these results and messages is checked through SQL in trino-nsc's
 * TestNscExpressionPushdown, against a real engine.
 */
final class TestNumericOperators
{
    private static final List<Type> INTEGERS = List.of(TINYINT, SMALLINT, INTEGER, BIGINT);
    private static final BigInteger MAX_DECIMAL = BigInteger.TEN.pow(38).subtract(BigInteger.ONE);

    @Test
    void testIntegerArithmeticIsExactOrFailsWithOverflow()
    {
        Random random = new Random(7);
        for (Type type : INTEGERS) {
            for (int i = 0; i < 20_000; i++) {
                long left = interesting(type, random);
                long right = interesting(type, random);
                for (ArithmeticOperator operator : ArithmeticOperator.values()) {
                    BigInteger exact = exact(operator, left, right);
                    Object result;
                    try {
                        result = NumericOperators.arithmetic(operator, type, left, type, right, type);
                    }
                    catch (TrinoException e) {
                        if (right == 0 && (operator == ArithmeticOperator.DIVIDE || operator == ArithmeticOperator.MODULUS)) {
                            assertThat(e.getErrorCode()).isEqualTo(DIVISION_BY_ZERO.toErrorCode());
                            assertThat(e).hasMessage("Division by zero");
                            continue;
                        }
                        assertThat(e.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode());
                        assertThat(fits(type, exact)).as("%s %s %s %s", type, left, operator, right).isFalse();
                        assertThat(e.getMessage()).startsWith(type.getDisplayName() + " ");
                        continue;
                    }
                    // a quotient is the one result Trino does not check (the smallest value / -1 of the narrow types)
                    if (operator != ArithmeticOperator.DIVIDE || type == BIGINT) {
                        assertThat(fits(type, exact)).as("%s %s %s %s", type, left, operator, right).isTrue();
                    }
                    assertThat(result).isEqualTo(exact.longValueExact());
                }
            }
        }
    }

    @Test
    void testNegationAndIntegerCasts()
    {
        assertThat(NumericOperators.negate(BIGINT, 5L)).isEqualTo(-5L);
        assertOutOfRange(() -> NumericOperators.negate(BIGINT, Long.MIN_VALUE), "bigint negation overflow: -9223372036854775808");
        assertOutOfRange(() -> NumericOperators.negate(TINYINT, -128L), "tinyint negation overflow: -128");
        assertThat(NumericOperators.negate(DOUBLE, 0.0)).isEqualTo(-0.0);
        assertThat(NumericOperators.negate(createDecimalType(38, 0), Decimals.MAX_UNSCALED_DECIMAL)).isEqualTo(Decimals.MIN_UNSCALED_DECIMAL);

        assertThat(NumericOperators.cast(SMALLINT, -32768L, BIGINT)).isEqualTo(-32768L);
        assertThat(NumericOperators.cast(BIGINT, 2147483647L, INTEGER)).isEqualTo(2147483647L);
        assertOutOfRange(() -> NumericOperators.cast(BIGINT, 2147483648L, INTEGER), "Out of range for integer: 2147483648");
        assertOutOfRange(() -> NumericOperators.cast(INTEGER, 128L, TINYINT), "Out of range for tinyint: 128");
        assertThat(NumericOperators.cast(BIGINT, Long.MAX_VALUE, DOUBLE)).isEqualTo((double) Long.MAX_VALUE);
        assertThat(NumericOperators.cast(BIGINT, 16777217L, REAL)).isEqualTo((long) floatToRawIntBits(16777216f));
        assertThat(NumericOperators.cast(REAL, (long) floatToRawIntBits(Float.NaN), DOUBLE)).isEqualTo(Double.NaN);
        assertThat(intBitsToFloat((int) (long) (Long) NumericOperators.cast(DOUBLE, 1e300, REAL))).isEqualTo(Float.POSITIVE_INFINITY);
    }

    @Test
    void testDecimalArithmeticIsExactHalfUpOrFailsWithOverflow()
    {
        Random random = new Random(11);
        List<DecimalType> types = List.of(createDecimalType(5, 2), createDecimalType(18, 4), createDecimalType(19, 0), createDecimalType(38, 10), createDecimalType(38, 0), createDecimalType(20, 19));
        for (int i = 0; i < 30_000; i++) {
            DecimalType leftType = types.get(random.nextInt(types.size()));
            DecimalType rightType = types.get(random.nextInt(types.size()));
            BigInteger left = randomUnscaled(leftType, random);
            BigInteger right = randomUnscaled(rightType, random);
            for (ArithmeticOperator operator : ArithmeticOperator.values()) {
                DecimalType resultType = (DecimalType) NumericOperators.arithmeticType(operator, leftType, rightType).orElse(null);
                if (resultType == null) {
                    continue;
                }
                BigDecimal leftValue = new BigDecimal(left, leftType.getScale());
                BigDecimal rightValue = new BigDecimal(right, rightType.getScale());
                Object result;
                try {
                    result = NumericOperators.arithmetic(operator, leftType, nativeValue(leftType, left), rightType, nativeValue(rightType, right), resultType);
                }
                catch (TrinoException e) {
                    if (right.signum() == 0 && (operator == ArithmeticOperator.DIVIDE || operator == ArithmeticOperator.MODULUS)) {
                        assertThat(e.getErrorCode()).isEqualTo(DIVISION_BY_ZERO.toErrorCode());
                        continue;
                    }
                    assertThat(e).hasMessage("Decimal overflow");
                    // Trino's quotient cannot scale the dividend by 38 digits or more, whatever the result
                    if (operator == ArithmeticOperator.DIVIDE && resultType.getScale() - leftType.getScale() + rightType.getScale() >= 38) {
                        continue;
                    }
                    // nor a remainder whose quotient takes more than 128 bits
                    if (operator == ArithmeticOperator.MODULUS && leftValue.divideToIntegralValue(rightValue).abs().toBigInteger().bitLength() >= 127) {
                        continue;
                    }
                    BigDecimal exact = exact(operator, leftValue, rightValue, resultType.getScale());
                    assertThat(exact.unscaledValue().abs()).as("%s %s %s %s %s", leftType, leftValue, operator, rightType, rightValue).isGreaterThan(MAX_DECIMAL);
                    continue;
                }
                BigDecimal exact = exact(operator, leftValue, rightValue, resultType.getScale());
                if (operator == ArithmeticOperator.DIVIDE && exact.unscaledValue().bitLength() >= 127) {
                    // Trino's 128-bit quotient wraps past 2^127 before its overflow check: nsc
                    // gives what Trino gives (TestNscExpressionPushdown compares the two), not the exact value
                    continue;
                }
                BigInteger unscaled = result instanceof Long value ? BigInteger.valueOf(value) : ((Int128) result).toBigInteger();
                assertThat(unscaled).as("%s %s %s %s %s = %s", leftType, leftValue, operator, rightType, rightValue, resultType).isEqualTo(exact.unscaledValue());
                assertThat(result instanceof Long).isEqualTo(resultType.isShort());
            }
        }
    }

    @Test
    void testDecimalTypesFollowTrinosRules()
    {
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.ADD, createDecimalType(12, 2), createDecimalType(10, 0))).contains(createDecimalType(13, 2));
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.MULTIPLY, createDecimalType(12, 2), createDecimalType(13, 2))).contains(createDecimalType(25, 4));
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.MULTIPLY, createDecimalType(25, 4), createDecimalType(20, 2))).contains(createDecimalType(38, 6));
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.DIVIDE, createDecimalType(10, 2), createDecimalType(5, 3))).contains(createDecimalType(14, 3));
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.MODULUS, createDecimalType(10, 2), createDecimalType(5, 3))).contains(createDecimalType(5, 3));
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.ADD, BIGINT, INTEGER)).isEmpty();
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.ADD, VARCHAR, VARCHAR)).isEmpty();
        assertThat(NumericOperators.arithmeticType(ArithmeticOperator.ADD, DOUBLE, DOUBLE)).contains(DOUBLE);
        assertThat(NumericOperators.castSupported(DOUBLE, BIGINT)).isFalse();
        assertThat(NumericOperators.castSupported(VARCHAR, BIGINT)).isFalse();
        assertThat(NumericOperators.castSupported(TINYINT, createDecimalType(3, 0))).isTrue();
    }

    @Test
    void testDecimalCastsRoundHalfAwayFromZeroOrFail()
    {
        DecimalType money = createDecimalType(5, 2);
        assertThat(NumericOperators.cast(money, 12345L, createDecimalType(4, 1))).isEqualTo(1235L);
        assertThat(NumericOperators.cast(money, -12345L, createDecimalType(4, 1))).isEqualTo(-1235L);
        assertThat(NumericOperators.cast(money, -12345L, BIGINT)).isEqualTo(-123L);
        assertThat(NumericOperators.cast(money, 12350L, BIGINT)).isEqualTo(124L);
        assertThat(NumericOperators.cast(money, 12345L, createDecimalType(38, 10))).isEqualTo(Int128.valueOf(1234500000000L));
        assertThat(NumericOperators.cast(createDecimalType(38, 10), Int128.valueOf(1234550000000L), money)).isEqualTo(12346L);
        assertThat(NumericOperators.cast(money, 12345L, DOUBLE)).isEqualTo(123.45);
        assertThat(NumericOperators.cast(DOUBLE, 0.125, money)).isEqualTo(13L);
        assertCastFails(() -> NumericOperators.cast(money, 99999L, createDecimalType(3, 1)), "Cannot cast DECIMAL(5, 2) '999.99' to DECIMAL(3, 1)");
        assertCastFails(() -> NumericOperators.cast(BIGINT, 1000L, money), "Cannot cast BIGINT '1000' to DECIMAL(5, 2)");
        assertCastFails(() -> NumericOperators.cast(TINYINT, -100L, createDecimalType(2, 0)), "Cannot cast TINYINT '-100' to DECIMAL(2, 0)");
        assertCastFails(() -> NumericOperators.cast(money, 99999L, TINYINT), "Cannot cast '1000' to TINYINT");
        assertCastFails(() -> NumericOperators.cast(DOUBLE, Double.NaN, money), "Cannot cast DOUBLE 'NaN' to DECIMAL(5, 2)");
        assertCastFails(() -> NumericOperators.cast(createDecimalType(38, 0), Decimals.MAX_UNSCALED_DECIMAL, BIGINT), "Cannot cast '99999999999999999999999999999999999999' to BIGINT");
    }

    private static long interesting(Type type, Random random)
    {
        long min = switch (type.getDisplayName()) {
            case "tinyint" -> Byte.MIN_VALUE;
            case "smallint" -> Short.MIN_VALUE;
            case "integer" -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
        long max = -(min + 1);
        return switch (random.nextInt(6)) {
            case 0 -> min + random.nextInt(3);
            case 1 -> max - random.nextInt(3);
            case 2 -> random.nextInt(5) - 2;
            case 3 -> (long) (Math.sqrt(max) * (random.nextDouble() * 2 - 1) * 1.5);
            default -> min + (long) (random.nextDouble() * ((double) max - min));
        };
    }

    private static BigInteger exact(ArithmeticOperator operator, long left, long right)
    {
        BigInteger l = BigInteger.valueOf(left);
        BigInteger r = BigInteger.valueOf(right);
        return switch (operator) {
            case ADD -> l.add(r);
            case SUBTRACT -> l.subtract(r);
            case MULTIPLY -> l.multiply(r);
            // Java's truncated division and remainder, as Trino's operators use
            case DIVIDE -> right == 0 ? BigInteger.ZERO : l.divide(r);
            case MODULUS -> right == 0 ? BigInteger.ZERO : l.remainder(r);
        };
    }

    private static boolean fits(Type type, BigInteger value)
    {
        return switch (type.getDisplayName()) {
            case "tinyint" -> value.bitLength() < 8;
            case "smallint" -> value.bitLength() < 16;
            case "integer" -> value.bitLength() < 32;
            default -> value.bitLength() < 64;
        };
    }

    private static BigDecimal exact(ArithmeticOperator operator, BigDecimal left, BigDecimal right, int scale)
    {
        return switch (operator) {
            case ADD -> left.add(right).setScale(scale, RoundingMode.UNNECESSARY);
            case SUBTRACT -> left.subtract(right).setScale(scale, RoundingMode.UNNECESSARY);
            case MULTIPLY -> left.multiply(right).setScale(scale, RoundingMode.UNNECESSARY);
            case DIVIDE -> left.divide(right, scale, RoundingMode.HALF_UP);
            case MODULUS -> left.remainder(right).setScale(scale, RoundingMode.UNNECESSARY);
        };
    }

    private static BigInteger randomUnscaled(DecimalType type, Random random)
    {
        BigInteger limit = BigInteger.TEN.pow(type.getPrecision());
        BigInteger value = switch (random.nextInt(5)) {
            case 0 -> limit.subtract(BigInteger.valueOf(1 + random.nextInt(3)));
            case 1 -> BigInteger.valueOf(random.nextInt(21) - 10);
            case 2 -> BigInteger.TEN.pow(random.nextInt(type.getPrecision())).multiply(BigInteger.valueOf(random.nextInt(9) + 1)).min(limit.subtract(BigInteger.ONE));
            default -> new BigInteger(limit.bitLength() + 8, random).mod(limit);
        };
        return random.nextBoolean() ? value.negate() : value;
    }

    private static Object nativeValue(DecimalType type, BigInteger unscaled)
    {
        return type.isShort() ? (Object) unscaled.longValueExact() : Int128.valueOf(unscaled);
    }

    private static void assertOutOfRange(Runnable operation, String message)
    {
        assertThatThrownBy(operation::run).isInstanceOfSatisfying(TrinoException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode());
            assertThat(e).hasMessage(message);
        });
    }

    private static void assertCastFails(Runnable operation, String message)
    {
        assertThatThrownBy(operation::run).isInstanceOfSatisfying(TrinoException.class, e -> {
            assertThat(e.getErrorCode()).isEqualTo(INVALID_CAST_ARGUMENT.toErrorCode());
            assertThat(e).hasMessage(message);
        });
    }
}
