package io.nsc.protocol.catalog;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The column type changes nsc allows ({@code ALTER TABLE ... ALTER COLUMN ... SET DATA TYPE}), on
 * the types' SQL names as the catalog stores them: those whose every old value is exactly a value
 * of the new type, and that readers can widen from the files' Parquet types as they decode (the
 * ones Trino's Iceberg connector allows): tinyint to smallint, integer or bigint, smallint to
 * integer or bigint, integer to bigint, real to double, and decimal(p, s) to decimal(p', s) with
 * p' > p. The connector and the metadata service both check it.
 */
public final class TypeWidening
{
    private static final List<String> INTEGERS = List.of("tinyint", "smallint", "integer", "bigint");
    private static final Pattern DECIMAL = Pattern.compile("decimal\\((\\d+),\\s*(\\d+)\\)");

    private TypeWidening() {}

    public static boolean isWidening(String from, String to)
    {
        requireNonNull(from, "from is null");
        requireNonNull(to, "to is null");
        int fromInteger = INTEGERS.indexOf(from);
        int toInteger = INTEGERS.indexOf(to);
        if (fromInteger >= 0 && toInteger >= 0) {
            return fromInteger < toInteger;
        }
        if (from.equals("real")) {
            return to.equals("double");
        }
        Optional<int[]> fromDecimal = decimal(from);
        Optional<int[]> toDecimal = decimal(to);
        return fromDecimal.isPresent() && toDecimal.isPresent()
                && toDecimal.get()[1] == fromDecimal.get()[1]
                && toDecimal.get()[0] > fromDecimal.get()[0];
    }

    /** Precision and scale. */
    private static Optional<int[]> decimal(String type)
    {
        Matcher matcher = DECIMAL.matcher(type);
        if (!matcher.matches()) {
            return Optional.empty();
        }
        return Optional.of(new int[] {Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2))});
    }
}
