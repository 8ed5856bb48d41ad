package io.nsc.parquet.aggregate;

import io.nsc.protocol.proto.AggregateFunction;

/** The aggregate functions nsc computes next to the data. */
public enum AggregateKind
{
    COUNT_ALL(AggregateFunction.AGGREGATE_FUNCTION_COUNT_ALL),
    COUNT(AggregateFunction.AGGREGATE_FUNCTION_COUNT),
    SUM(AggregateFunction.AGGREGATE_FUNCTION_SUM),
    MIN(AggregateFunction.AGGREGATE_FUNCTION_MIN),
    MAX(AggregateFunction.AGGREGATE_FUNCTION_MAX),
    AVG(AggregateFunction.AGGREGATE_FUNCTION_AVG);

    private final AggregateFunction wire;

    AggregateKind(AggregateFunction wire)
    {
        this.wire = wire;
    }

    public AggregateFunction wire()
    {
        return wire;
    }

    public static AggregateKind fromWire(AggregateFunction function)
    {
        for (AggregateKind kind : values()) {
            if (kind.wire == function) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown aggregate function " + function);
    }
}
