package io.nsc.trino.metadata;

import io.nsc.parquet.aggregate.AggregateKind;
import io.nsc.parquet.aggregate.AggregateSpec;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.type.Type;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The result of one aggregate pushed into the scan: what the merging split returns in place of
 * Trino's aggregation.
 */
public record NscAggregateColumnHandle(String name, AggregateKind kind, Optional<NscColumnHandle> input, Type type)
        implements ColumnHandle
{
    public NscAggregateColumnHandle
    {
        requireNonNull(name, "name is null");
        requireNonNull(kind, "kind is null");
        requireNonNull(input, "input is null");
        requireNonNull(type, "type is null");
    }

    public AggregateSpec spec()
    {
        return new AggregateSpec(kind, input.map(NscColumnHandle::type));
    }

    @Override
    public String toString()
    {
        return "%s(%s):%s".formatted(kind, input.map(NscColumnHandle::name).orElse("*"), type);
    }
}
