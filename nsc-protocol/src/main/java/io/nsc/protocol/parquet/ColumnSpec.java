package io.nsc.protocol.parquet;

import static java.util.Objects.requireNonNull;

/**
 * A column as nsc serves it.
 *
 * @param name the Trino column name, lower-cased
 * @param type a Trino type signature, such as {@code "decimal(12,2)"} or {@code "timestamp(6) with time zone"}
 */
public record ColumnSpec(String name, String type)
{
    public ColumnSpec
    {
        requireNonNull(name, "name is null");
        requireNonNull(type, "type is null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("name is empty");
        }
    }
}
