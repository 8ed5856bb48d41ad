package io.nsc.parquet.expression;

import io.trino.spi.TrinoException;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.DecimalConversions;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Decimals;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.Int128;
import io.trino.spi.type.Int128Math;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.RealType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;

import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

import static io.trino.spi.StandardErrorCode.DIVISION_BY_ZERO;
import static io.trino.spi.StandardErrorCode.INVALID_CAST_ARGUMENT;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.Decimals.MAX_PRECISION;
import static io.trino.spi.type.Decimals.longTenToNth;
import static java.lang.Float.floatToRawIntBits;
import static java.lang.Float.intBitsToFloat;
import static java.lang.Math.abs;
import static java.lang.Math.max;
import static java.lang.Math.min;
import static java.lang.Math.toIntExact;

/**
 * Arithmetic, negation and casts over numbers with the results and the errors of Trino's own
 * operators: the same result types, integer overflow and division by zero failing the query
 * with Trino's error codes and messages, decimals rounded half away from zero and checked
 * against 38 digits, floating point as IEEE 754 computes it. Values are Trino's native values:
 * {@code Long} for integers, real (its bits) and short decimals, {@code Double} for double,
 * {@link Int128} for long decimals. A combination not listed in {@link #arithmeticType} or
 * {@link #castSupported} is not computed here.
 */
public final class NumericOperators
{
    private NumericOperators() {}

    /**
     * The type of Trino's result for the operator over the operand types, if it is computed
     * here: integers and floating point of one type each side, or two decimals.
     */
    public static Optional<Type> arithmeticType(ArithmeticOperator operator, Type left, Type right)
    {
        if (left instanceof DecimalType leftDecimal && right instanceof DecimalType rightDecimal) {
            return decimalArithmeticType(operator, leftDecimal, rightDecimal);
        }
        if (!left.equals(right) || !isInteger(left) && !isFloatingPoint(left)) {
            return Optional.empty();
        }
        return Optional.of(left);
    }

    public static boolean negationSupported(Type type)
    {
        return isInteger(type) || isFloatingPoint(type) || type instanceof DecimalType;
    }

    /** Whether the cast between the two types is computed here. */
    public static boolean castSupported(Type from, Type to)
    {
        if (from.equals(to)) {
            return true;
        }
        if (isInteger(from)) {
            return isInteger(to) || isFloatingPoint(to) || to instanceof DecimalType;
        }
        if (from instanceof DecimalType) {
            return isInteger(to) || isFloatingPoint(to) || to instanceof DecimalType;
        }
        if (isFloatingPoint(from)) {
            return isFloatingPoint(to) || to instanceof DecimalType;
        }
        return false;
    }

    static boolean isInteger(Type type)
    {
        return type instanceof TinyintType || type instanceof SmallintType || type instanceof IntegerType || type instanceof BigintType;
    }

    static boolean isFloatingPoint(Type type)
    {
        return type instanceof DoubleType || type instanceof RealType;
    }

    private static Optional<Type> decimalArithmeticType(ArithmeticOperator operator, DecimalType left, DecimalType right)
    {
        int leftPrecision = left.getPrecision();
        int leftScale = left.getScale();
        int rightPrecision = right.getPrecision();
        int rightScale = right.getScale();
        int scale = max(leftScale, rightScale);
        int precision = switch (operator) {
            case ADD, SUBTRACT -> min(MAX_PRECISION, max(leftPrecision - leftScale, rightPrecision - rightScale) + scale + 1);
            case MULTIPLY -> min(MAX_PRECISION, leftPrecision + rightPrecision);
            case DIVIDE -> min(MAX_PRECISION, leftPrecision + rightScale + max(rightScale - leftScale, 0));
            case MODULUS -> min(rightPrecision - rightScale, leftPrecision - leftScale) + scale;
        };
        if (operator == ArithmeticOperator.MULTIPLY) {
            scale = leftScale + rightScale;
        }
        // Trino refuses such a query before it runs
        if (scale > MAX_PRECISION || precision < 1 || scale > precision) {
            return Optional.empty();
        }
        return Optional.of(createDecimalType(precision, scale));
    }

    /**
     * @throws TrinoException as Trino's operator fails: NUMERIC_VALUE_OUT_OF_RANGE, DIVISION_BY_ZERO
     */
    public static Object arithmetic(ArithmeticOperator operator, Type leftType, Object left, Type rightType, Object right, Type resultType)
    {
        if (resultType instanceof DecimalType result) {
            return decimalArithmetic(operator, (DecimalType) leftType, left, (DecimalType) rightType, right, result);
        }
        return switch (resultType) {
            case DoubleType _ -> doubleArithmetic(operator, (Double) left, (Double) right);
            case RealType _ -> (long) floatToRawIntBits(realArithmetic(operator, intBitsToFloat(toIntExact((Long) left)), intBitsToFloat(toIntExact((Long) right))));
            default -> integerArithmetic(operator, resultType, (Long) left, (Long) right);
        };
    }

    private static double doubleArithmetic(ArithmeticOperator operator, double left, double right)
    {
        return switch (operator) {
            case ADD -> left + right;
            case SUBTRACT -> left - right;
            case MULTIPLY -> left * right;
            case DIVIDE -> left / right;
            case MODULUS -> left % right;
        };
    }

    private static float realArithmetic(ArithmeticOperator operator, float left, float right)
    {
        return switch (operator) {
            case ADD -> left + right;
            case SUBTRACT -> left - right;
            case MULTIPLY -> left * right;
            case DIVIDE -> left / right;
            case MODULUS -> left % right;
        };
    }

    /**
     * Integers of one type: the exact result must fit the type. A quotient is the one exception
     * Trino does not check here: the smallest value divided by -1 leaves the type's range, and
     * writing it into a block fails (see {@link ValueExpression}).
     */
    private static long integerArithmetic(ArithmeticOperator operator, Type type, long left, long right)
    {
        String name = typeName(type);
        try {
            return switch (operator) {
                case ADD -> checkRange(type, Math.addExact(left, right), () -> "%s addition overflow: %s + %s".formatted(name, left, right));
                case SUBTRACT -> checkRange(type, Math.subtractExact(left, right), () -> "%s subtraction overflow: %s - %s".formatted(name, left, right));
                case MULTIPLY -> checkRange(type, Math.multiplyExact(left, right), () -> "%s multiplication overflow: %s * %s".formatted(name, left, right));
                case DIVIDE -> {
                    checkDivisor(right != 0);
                    if (type instanceof BigintType && left == Long.MIN_VALUE && right == -1) {
                        throw outOfRange("bigint division overflow: %s / %s".formatted(left, right));
                    }
                    yield left / right;
                }
                case MODULUS -> {
                    checkDivisor(right != 0);
                    yield left % right;
                }
            };
        }
        catch (ArithmeticException e) {
            // only bigint can overflow a long; the smaller types are checked above
            String symbol = switch (operator) {
                case ADD -> "addition overflow: %s + %s";
                case SUBTRACT -> "subtraction overflow: %s - %s";
                default -> "multiplication overflow: %s * %s";
            };
            throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, (name + " " + symbol).formatted(left, right), e);
        }
    }

    private static long checkRange(Type type, long value, Supplier<String> message)
    {
        if (value < minValue(type) || value > maxValue(type)) {
            throw outOfRange(message.get());
        }
        return value;
    }

    private static Object decimalArithmetic(ArithmeticOperator operator, DecimalType leftType, Object left, DecimalType rightType, Object right, DecimalType resultType)
    {
        Int128 leftValue = toInt128(left);
        Int128 rightValue = toInt128(right);
        Int128 result;
        try {
            result = switch (operator) {
                case ADD, SUBTRACT -> {
                    int scale = resultType.getScale();
                    Int128 leftRescaled = Int128Math.rescale(leftValue, scale - leftType.getScale());
                    Int128 rightRescaled = Int128Math.rescale(rightValue, scale - rightType.getScale());
                    yield operator == ArithmeticOperator.ADD ? add(leftRescaled, rightRescaled) : Int128Math.subtract(leftRescaled, rightRescaled);
                }
                case MULTIPLY -> Int128Math.multiply(leftValue, rightValue);
                case DIVIDE -> {
                    checkDivisor(!rightValue.isZero());
                    int rescaleFactor = resultType.getScale() - leftType.getScale() + rightType.getScale();
                    yield Int128Math.divideRoundUp(leftValue.getHigh(), leftValue.getLow(), rescaleFactor, rightValue.getHigh(), rightValue.getLow(), 0);
                }
                case MODULUS -> {
                    checkDivisor(!rightValue.isZero());
                    int scale = max(leftType.getScale(), rightType.getScale());
                    yield Int128Math.remainder(
                            leftValue.getHigh(), leftValue.getLow(), scale - leftType.getScale(),
                            rightValue.getHigh(), rightValue.getLow(), scale - rightType.getScale());
                }
            };
        }
        catch (ArithmeticException e) {
            throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow", e);
        }
        return toDecimal(resultType, result);
    }

    /** A short decimal result must fit a long, a long decimal 38 digits: Trino's checks. */
    private static Object toDecimal(DecimalType type, Int128 value)
    {
        if (type.isShort()) {
            try {
                return value.toLongExact();
            }
            catch (ArithmeticException e) {
                throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow", e);
            }
        }
        if (Decimals.overflows(value)) {
            throw new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "Decimal overflow");
        }
        return value;
    }

    public static Object negate(Type type, Object value)
    {
        return switch (type) {
            case DoubleType _ -> -(Double) value;
            case RealType _ -> (long) floatToRawIntBits(-intBitsToFloat(toIntExact((Long) value)));
            case DecimalType decimal -> decimal.isShort() ? -(Long) value : Int128Math.negate((Int128) value);
            default -> {
                long input = (Long) value;
                String message = "%s negation overflow: %s".formatted(typeName(type), input);
                if (input == Long.MIN_VALUE) {
                    throw outOfRange(message);
                }
                yield checkRange(type, -input, () -> message);
            }
        };
    }

    /**
     * @throws TrinoException as Trino's cast fails: NUMERIC_VALUE_OUT_OF_RANGE for integers that
     * do not fit, INVALID_CAST_ARGUMENT for decimals and floating point that do not
     */
    public static Object cast(Type from, Object value, Type to)
    {
        if (from.equals(to)) {
            return value;
        }
        if (isInteger(from)) {
            return castInteger(from, (Long) value, to);
        }
        if (from instanceof DecimalType decimal) {
            return castDecimal(decimal, value, to);
        }
        double number = from instanceof DoubleType ? (Double) value : intBitsToFloat(toIntExact((Long) value));
        return switch (to) {
            case DoubleType _ -> number;
            case RealType _ -> (long) floatToRawIntBits((float) number);
            case DecimalType decimal when from instanceof DoubleType -> decimal.isShort()
                    ? DecimalConversions.doubleToShortDecimal(number, decimal.getPrecision(), decimal.getScale())
                    : DecimalConversions.doubleToLongDecimal(number, decimal.getPrecision(), decimal.getScale());
            case DecimalType decimal -> decimal.isShort()
                    ? DecimalConversions.realToShortDecimal((float) number, decimal.getPrecision(), decimal.getScale())
                    : DecimalConversions.realToLongDecimal((float) number, decimal.getPrecision(), decimal.getScale());
            default -> throw new IllegalArgumentException("cannot cast %s to %s".formatted(from, to));
        };
    }

    private static Object castInteger(Type from, long value, Type to)
    {
        return switch (to) {
            case DoubleType _ -> (double) value;
            case RealType _ -> (long) floatToRawIntBits((float) value);
            case DecimalType decimal -> integerToDecimal(from, value, decimal);
            default -> checkRange(to, value, () -> "Out of range for %s: %s".formatted(typeName(to), value));
        };
    }

    private static Object integerToDecimal(Type from, long value, DecimalType to)
    {
        Int128 result;
        try {
            result = Int128Math.multiply(Int128Math.powerOfTen(to.getScale()), value);
        }
        catch (ArithmeticException e) {
            throw integerCastFailure(from, value, to, e);
        }
        if (Decimals.overflows(result, to.getPrecision())) {
            throw integerCastFailure(from, value, to, null);
        }
        return to.isShort() ? result.toLong() : result;
    }

    private static TrinoException integerCastFailure(Type from, long value, DecimalType to, Throwable cause)
    {
        return new TrinoException(INVALID_CAST_ARGUMENT, "Cannot cast %s '%s' to DECIMAL(%s, %s)".formatted(typeName(from).toUpperCase(Locale.ENGLISH), value, to.getPrecision(), to.getScale()), cause);
    }

    private static Object castDecimal(DecimalType from, Object value, Type to)
    {
        return switch (to) {
            case DoubleType _ -> from.isShort()
                    ? ((double) (Long) value) / longTenToNth(from.getScale())
                    : DecimalConversions.longDecimalToDouble((Int128) value, from.getScale());
            case RealType _ -> from.isShort()
                    ? DecimalConversions.shortDecimalToReal((Long) value, longTenToNth(from.getScale()))
                    : DecimalConversions.longDecimalToReal((Int128) value, from.getScale());
            case DecimalType decimal -> decimalToDecimal(from, value, decimal);
            default -> decimalToInteger(from, value, to);
        };
    }

    private static Object decimalToDecimal(DecimalType from, Object value, DecimalType to)
    {
        if (from.isShort() && to.isShort()) {
            long scalingFactor = longTenToNth(abs(to.getScale() - from.getScale()));
            return DecimalConversions.shortToShortCast((Long) value, from.getPrecision(), from.getScale(), to.getPrecision(), to.getScale(), scalingFactor, scalingFactor / 2);
        }
        Int128 result = DecimalConversions.longToLongCast(toInt128(value), from.getPrecision(), from.getScale(), to.getPrecision(), to.getScale());
        return to.isShort() ? result.toLong() : result;
    }

    /** Rounded half away from zero to an integer, which must fit the type. */
    private static long decimalToInteger(DecimalType from, Object value, Type to)
    {
        String name = typeName(to).toUpperCase(Locale.ENGLISH);
        if (from.isShort()) {
            long decimal = (Long) value;
            long tenToScale = longTenToNth(from.getScale());
            long rounded = decimal >= 0
                    ? (decimal + tenToScale / 2) / tenToScale
                    : -((-decimal + tenToScale / 2) / tenToScale);
            if (rounded < minValue(to) || rounded > maxValue(to)) {
                throw new TrinoException(INVALID_CAST_ARGUMENT, "Cannot cast '%s' to %s".formatted(rounded, name));
            }
            return rounded;
        }
        Int128 decimal = (Int128) value;
        try {
            long rounded = Int128Math.rescale(decimal, -from.getScale()).toLongExact();
            if (rounded < minValue(to) || rounded > maxValue(to)) {
                throw new ArithmeticException("out of range");
            }
            return rounded;
        }
        catch (ArithmeticException e) {
            throw new TrinoException(INVALID_CAST_ARGUMENT, "Cannot cast '%s' to %s".formatted(Decimals.toString(decimal, from.getScale()), name), e);
        }
    }

    private static Int128 add(Int128 left, Int128 right)
    {
        long[] result = new long[2];
        Int128Math.add(left.getHigh(), left.getLow(), right.getHigh(), right.getLow(), result, 0);
        return Int128.valueOf(result);
    }

    private static Int128 toInt128(Object decimal)
    {
        return decimal instanceof Long value ? Int128.valueOf(value) : (Int128) decimal;
    }

    private static void checkDivisor(boolean nonZero)
    {
        if (!nonZero) {
            throw new TrinoException(DIVISION_BY_ZERO, "Division by zero");
        }
    }

    private static TrinoException outOfRange(String message)
    {
        return new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, message);
    }

    private static String typeName(Type type)
    {
        return type.getTypeSignature().getBase();
    }

    private static long minValue(Type type)
    {
        return switch (type) {
            case TinyintType _ -> Byte.MIN_VALUE;
            case SmallintType _ -> Short.MIN_VALUE;
            case IntegerType _ -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
    }

    private static long maxValue(Type type)
    {
        return switch (type) {
            case TinyintType _ -> Byte.MAX_VALUE;
            case SmallintType _ -> Short.MAX_VALUE;
            case IntegerType _ -> Integer.MAX_VALUE;
            default -> Long.MAX_VALUE;
        };
    }
}
