package io.nsc.parquet.expression;

import io.nsc.protocol.proto.ScanArithmeticOperator;

/** The binary arithmetic operators nsc computes with Trino's semantics (see {@link NumericOperators}). */
public enum ArithmeticOperator
{
    ADD("+", ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_ADD),
    SUBTRACT("-", ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_SUBTRACT),
    MULTIPLY("*", ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_MULTIPLY),
    DIVIDE("/", ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_DIVIDE),
    MODULUS("%", ScanArithmeticOperator.SCAN_ARITHMETIC_OPERATOR_MODULUS);

    private final String symbol;
    private final ScanArithmeticOperator wire;

    ArithmeticOperator(String symbol, ScanArithmeticOperator wire)
    {
        this.symbol = symbol;
        this.wire = wire;
    }

    public String symbol()
    {
        return symbol;
    }

    public ScanArithmeticOperator wire()
    {
        return wire;
    }

    public static ArithmeticOperator fromWire(ScanArithmeticOperator operator)
    {
        for (ArithmeticOperator value : values()) {
            if (value.wire == operator) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown arithmetic operator " + operator);
    }
}
