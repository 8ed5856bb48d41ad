package io.nsc.trino.metadata;

import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.type.Type;

import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The result of one aggregate pushed into the scan: what the merging split returns in place of
 * Trino's aggregation. Its argument is a table column ({@code input}), a value the scan computes
 * from table columns ({@code computedInput}, as in {@code sum(price * (1 - discount))}), or
 * nothing ({@code count(*)}).
 */
public record NscAggregateColumnHandle(String name, AggregateKind kind, Optional<NscColumnHandle> input, Optional<NscComputedColumnHandle> computedInput, Type type)
        implements ColumnHandle
{
    public NscAggregateColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(input, "input is null");
        requireNonNull(computedInput, "computedInput is null");
        requireNonNull(type, "type is null");
        checkArgument(input.isEmpty() || computedInput.isEmpty(), "an aggregate has one argument");
    }

    public NscAggregateColumnHandle(String name, AggregateKind kind, Optional<NscColumnHandle> input, Type type)
    {
        this(name, kind, input, Optional.empty(), type);
    }

    /** The argument the scan feeds the aggregate: a column or a computed value. */
    public Optional<ColumnHandle> inputHandle()
    {
        return input.<ColumnHandle>map(column -> column).or(() -> computedInput.map(value -> value));
    }

    public Optional<Type> inputType()
    {
        return input.map(NscColumnHandle::type).or(() -> computedInput.map(NscComputedColumnHandle::type));
    }

    public AggregateSpec spec()
    {
        return new AggregateSpec(kind, inputType());
    }

    @Override
    public String toString()
    {
        String argument = input.map(NscColumnHandle::name)
                .or(() -> computedInput.map(NscComputedColumnHandle::toString))
                .orElse("*");
        return "%s(%s):%s".formatted(kind, argument, type);
    }
}
