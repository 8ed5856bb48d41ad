package io.nsc.parquet.scan;

import io.trino.spi.type.Type;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A column to decode: its position among the file's top-level columns (which is its position in
 * the table) and the Trino type it is read as.
 */
public record FileColumn(int ordinal, Type type)
{
    public FileColumn
    {
        checkArgument(ordinal >= 0, "ordinal is negative");
        requireNonNull(type, "type is null");
    }
}
