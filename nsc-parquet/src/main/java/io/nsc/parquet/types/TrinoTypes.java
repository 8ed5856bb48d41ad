package io.nsc.parquet.types;

import io.trino.spi.TrinoException;
import io.trino.spi.type.Type;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.BooleanType.BOOLEAN;
import static io.trino.spi.type.CharType.createCharType;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.SmallintType.SMALLINT;
import static io.trino.spi.type.TimeType.createTimeType;
import static io.trino.spi.type.TimeWithTimeZoneType.createTimeWithTimeZoneType;
import static io.trino.spi.type.TimestampType.createTimestampType;
import static io.trino.spi.type.TimestampWithTimeZoneType.createTimestampWithTimeZoneType;
import static io.trino.spi.type.TinyintType.TINYINT;
import static io.trino.spi.type.UuidType.UUID;
import static io.trino.spi.type.VarbinaryType.VARBINARY;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.spi.type.VarcharType.createVarcharType;
import static java.lang.Integer.parseInt;
import static java.util.Objects.requireNonNull;

/**
 * Turns the type signatures nsc stores for a column ("bigint", "decimal(12,2)",
 * "timestamp(6) with time zone", ...) back into Trino types. The type parser proper lives in
 * trino-main, which a command-line tool should not drag in; nsc columns are flat, so the
 * handful of primitive signatures below is all there is.
 */
public final class TrinoTypes
{
    private static final Pattern PARAMETRIC = Pattern.compile("([a-z]+)\\((\\d+)(?:,\\s*(\\d+))?\\)( with time zone)?");

    private TrinoTypes() {}

    public static Optional<Type> fromSignature(String signature)
    {
        String text = requireNonNull(signature, "signature is null").trim().toLowerCase(Locale.ENGLISH);
        Optional<Type> simple = simpleType(text);
        if (simple.isPresent()) {
            return simple;
        }
        Matcher matcher = PARAMETRIC.matcher(text);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        String base = matcher.group(1);
        int first = parseInt(matcher.group(2));
        Optional<Integer> second = Optional.ofNullable(matcher.group(3)).map(Integer::parseInt);
        boolean withTimeZone = matcher.group(4) != null;
        try {
            return parametricType(base, first, second, withTimeZone);
        }
        catch (IllegalArgumentException | TrinoException e) {
            // precision out of range and the like: not a type nsc can hold
            return Optional.empty();
        }
    }

    private static Optional<Type> simpleType(String text)
    {
        return Optional.ofNullable(switch (text) {
            case "boolean" -> BOOLEAN;
            case "tinyint" -> TINYINT;
            case "smallint" -> SMALLINT;
            case "integer", "int" -> INTEGER;
            case "bigint" -> BIGINT;
            case "real" -> REAL;
            case "double" -> DOUBLE;
            case "date" -> DATE;
            case "varchar" -> VARCHAR;
            case "varbinary" -> VARBINARY;
            case "uuid" -> UUID;
            case "time" -> createTimeType(3);
            case "timestamp" -> createTimestampType(3);
            default -> null;
        });
    }

    private static Optional<Type> parametricType(String base, int first, Optional<Integer> second, boolean withTimeZone)
    {
        if (withTimeZone) {
            return switch (base) {
                case "timestamp" -> second.isEmpty() ? Optional.of(createTimestampWithTimeZoneType(first)) : Optional.empty();
                case "time" -> second.isEmpty() ? Optional.of(createTimeWithTimeZoneType(first)) : Optional.empty();
                default -> Optional.empty();
            };
        }
        if (base.equals("decimal")) {
            return Optional.of(createDecimalType(first, second.orElse(0)));
        }
        if (second.isPresent()) {
            return Optional.empty();
        }
        return switch (base) {
            case "varchar" -> Optional.of(createVarcharType(first));
            case "char" -> Optional.of(createCharType(first));
            case "timestamp" -> Optional.of(createTimestampType(first));
            case "time" -> Optional.of(createTimeType(first));
            default -> Optional.empty();
        };
    }
}
