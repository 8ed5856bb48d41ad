package io.nsc.protocol.parquet;

import io.nsc.protocol.stats.KeyKind;
import org.apache.parquet.format.Type;

import static java.util.Objects.requireNonNull;

/**
 * A mapped top-level column: what Trino sees, and how its statistics become keys.
 */
record ParquetColumn(ColumnSpec spec, Type physicalType, KeyKind keyKind, StatsDecoder decoder)
{
    ParquetColumn
    {
        requireNonNull(spec, "spec is null");
        requireNonNull(physicalType, "physicalType is null");
        requireNonNull(keyKind, "keyKind is null");
        requireNonNull(decoder, "decoder is null");
    }

    /**
     * Deprecated min/max of binary columns were written in an undefined (often signed-byte) order.
     */
    boolean trustsDeprecatedMinMax()
    {
        return physicalType != Type.BYTE_ARRAY && physicalType != Type.FIXED_LEN_BYTE_ARRAY;
    }
}
