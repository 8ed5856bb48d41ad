package io.nsc.protocol.stats;

import java.util.Locale;

import static java.util.Objects.requireNonNull;

/**
 * How a column's values map to the signed 64-bit order-preserving stats key (see {@link StatsKeys}).
 * The kind tells the pruner how far it may trust a comparison of keys.
 */
public enum KeyKind
{
    /**
     * No min/max kept (char(n), uuid, INT96 timestamps, anything unsure): pruning uses null counts only.
     */
    NONE,
    /**
     * Key order equals value order and key equality equals value equality: boolean (0/1),
     * tinyint..bigint, date (days), decimal with precision &lt;= 18 (unscaled long), time(p)
     * (picoseconds of the day), timestamp(p) and timestamp(p) with time zone for p &lt;= 6
     * (epoch microseconds).
     */
    EXACT,
    /**
     * real/double: exact order over non-NaN values (-0.0 and 0.0 share one key), but rows may
     * hold NaN, which no writer puts into min/max, so ALL is never claimed unless the predicate
     * accepts every non-null value.
     */
    FLOATING,
    /**
     * Monotone non-decreasing but not injective: varchar/varbinary (first 8 bytes, unsigned),
     * timestamp(7..12) (floored to micros), decimal with precision &gt; 18 (saturated to the long range).
     */
    LOSSY;

    private static final int MAX_SHORT_DECIMAL_PRECISION = 18;
    private static final int MAX_EXACT_TIMESTAMP_PRECISION = 6;
    private static final int DEFAULT_TIMESTAMP_PRECISION = 3;
    private static final int DEFAULT_DECIMAL_PRECISION = 38;
    private static final String WITH_TIME_ZONE = " with time zone";

    /**
     * The key kind for a Trino type signature such as {@code "decimal(12,2)"},
     * {@code "timestamp(9) with time zone"}, {@code "varchar(25)"}, {@code "char(3)"} or
     * {@code "real"}. Types without an order-preserving key (char, uuid, structural types, any
     * type this method does not know) get {@link #NONE}.
     *
     * @throws IllegalArgumentException when a known type has malformed parameters
     */
    public static KeyKind forType(String trinoType)
    {
        requireNonNull(trinoType, "trinoType is null");
        String type = trinoType.strip().toLowerCase(Locale.ENGLISH);
        boolean withTimeZone = type.endsWith(WITH_TIME_ZONE);
        if (withTimeZone) {
            type = type.substring(0, type.length() - WITH_TIME_ZONE.length()).strip();
        }
        int open = type.indexOf('(');
        String base = (open < 0 ? type : type.substring(0, open)).strip();
        String parameters = open < 0 ? null : parameters(trinoType, type, open);

        if (withTimeZone) {
            // time with time zone carries an offset that a single key cannot order by; be safe
            return base.equals("timestamp") ? timestampKind(trinoType, parameters) : NONE;
        }
        return switch (base) {
            case "boolean", "tinyint", "smallint", "integer", "int", "bigint", "date" -> noParameters(trinoType, parameters, EXACT);
            // time(p) for every p is picoseconds of the day, which fits a long exactly
            case "time" -> timeKind(trinoType, parameters);
            case "real", "double" -> noParameters(trinoType, parameters, FLOATING);
            case "timestamp" -> timestampKind(trinoType, parameters);
            case "decimal" -> decimalKind(trinoType, parameters);
            case "varchar", "varbinary" -> LOSSY;
            // char(n) compares space-padded, so byte prefixes of the stored (unpadded) values do not order it
            default -> NONE;
        };
    }

    private static String parameters(String original, String type, int open)
    {
        if (!type.endsWith(")")) {
            throw new IllegalArgumentException("Malformed type signature: " + original);
        }
        return type.substring(open + 1, type.length() - 1).strip();
    }

    private static KeyKind noParameters(String original, String parameters, KeyKind kind)
    {
        if (parameters != null) {
            throw new IllegalArgumentException("Malformed type signature: " + original);
        }
        return kind;
    }

    private static KeyKind timeKind(String original, String parameters)
    {
        if (parameters != null) {
            parseInt(original, parameters);
        }
        return EXACT;
    }

    private static KeyKind timestampKind(String original, String parameters)
    {
        int precision = parameters == null ? DEFAULT_TIMESTAMP_PRECISION : parseInt(original, parameters);
        // beyond micros the key floors, so distinct values share keys
        return precision <= MAX_EXACT_TIMESTAMP_PRECISION ? EXACT : LOSSY;
    }

    private static KeyKind decimalKind(String original, String parameters)
    {
        if (parameters == null) {
            return DEFAULT_DECIMAL_PRECISION <= MAX_SHORT_DECIMAL_PRECISION ? EXACT : LOSSY;
        }
        int comma = parameters.indexOf(',');
        int precision = parseInt(original, comma < 0 ? parameters : parameters.substring(0, comma));
        if (comma >= 0) {
            parseInt(original, parameters.substring(comma + 1));
        }
        return precision <= MAX_SHORT_DECIMAL_PRECISION ? EXACT : LOSSY;
    }

    private static int parseInt(String original, String text)
    {
        try {
            int value = Integer.parseInt(text.strip());
            if (value < 0) {
                throw new IllegalArgumentException("Malformed type signature: " + original);
            }
            return value;
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("Malformed type signature: " + original, e);
        }
    }
}
