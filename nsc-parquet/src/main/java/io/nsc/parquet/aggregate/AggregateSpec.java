package io.nsc.parquet.aggregate;

import io.nsc.parquet.types.NativeValues;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.BooleanType;
import io.trino.spi.type.CharType;
import io.trino.spi.type.DateType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.DoubleType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import io.trino.spi.type.UuidType;
import io.trino.spi.type.VarbinaryType;
import io.trino.spi.type.VarcharType;

import java.util.List;
import java.util.Optional;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DecimalType.createDecimalType;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static java.util.Objects.requireNonNull;

/**
 * One aggregate over one input column ({@code COUNT_ALL} has none), with the types of its
 * partial state (what a storage node sends) and of its result (what Trino's own function
 * returns). Only the combinations whose result nsc computes exactly as Trino does exist.
 */
public record AggregateSpec(AggregateKind kind, Optional<Type> inputType)
{
    public AggregateSpec
    {
        requireNonNull(kind, "kind is null");
        requireNonNull(inputType, "inputType is null");
        if ((kind == AggregateKind.COUNT_ALL) != inputType.isEmpty()) {
            throw new IllegalArgumentException("%s %s an input".formatted(kind, kind == AggregateKind.COUNT_ALL ? "takes no" : "needs"));
        }
        if (inputType.isPresent() && resultType(kind, inputType.get()).isEmpty()) {
            throw new IllegalArgumentException("%s of %s is not computed near storage".formatted(kind, inputType.get()));
        }
    }

    /**
     * The type of Trino's result for the function over the input type, if nsc computes it
     * exactly as Trino does: counts of anything; sums of integers (bigint, failing on
     * overflow), decimals (decimal(38, s)) and doubles; averages of integers and doubles; min
     * and max of types whose values order as nsc compares them (not floating point, whose NaN
     * and -0.0 rules differ, nor char, whose padding does).
     */
    public static Optional<Type> resultType(AggregateKind kind, Type input)
    {
        return switch (kind) {
            case COUNT_ALL, COUNT -> Optional.of(BIGINT);
            case SUM -> switch (input) {
                case TinyintType _, SmallintType _, IntegerType _, BigintType _ -> Optional.of(BIGINT);
                case DoubleType _ -> Optional.of(DOUBLE);
                case DecimalType decimal -> Optional.of(createDecimalType(38, decimal.getScale()));
                default -> Optional.empty();
            };
            case AVG -> switch (input) {
                case TinyintType _, SmallintType _, IntegerType _, BigintType _, DoubleType _ -> Optional.of(DOUBLE);
                default -> Optional.empty();
            };
            case MIN, MAX -> NativeValues.isOrderable(input) ? Optional.of(input) : Optional.empty();
        };
    }

    /** Whether rows can be grouped by the type's values compared as nsc compares them (binary equality). */
    public static boolean isGroupable(Type type)
    {
        return switch (type) {
            case TinyintType _, SmallintType _, IntegerType _, BigintType _, DateType _, BooleanType _,
                    DecimalType _, VarcharType _, VarbinaryType _, CharType _, UuidType _ -> true;
            case TimestampType _ -> true;
            default -> false;
        };
    }

    public Type resultType()
    {
        return inputType.map(type -> resultType(kind, type).orElseThrow()).orElse(BIGINT);
    }

    /** The columns of the partial state. */
    public List<Type> partialTypes()
    {
        return switch (kind) {
            case COUNT_ALL, COUNT -> List.of(BIGINT);
            case SUM, MIN, MAX -> List.of(resultType());
            case AVG -> List.of(DOUBLE, BIGINT);
        };
    }
}
