package io.nsc.parquet.scan;

import io.trino.spi.type.Type;

import static com.google.common.base.Preconditions.checkArgument;
import static io.trino.spi.type.BigintType.BIGINT;
import static java.util.Objects.requireNonNull;

/**
 * A column to decode: its position among the file's top-level columns (which is its position in
 * the table) and the Trino type it is read as; or {@link #rowPosition()}, which no file stores.
 */
public record FileColumn(int ordinal, Type type)
{
    private static final int ROW_POSITION_ORDINAL = -1;

    public FileColumn
    {
        checkArgument(ordinal >= ROW_POSITION_ORDINAL, "ordinal is negative");
        requireNonNull(type, "type is null");
    }

    /**
     * Each row's place in its file (a bigint from 0, counting every row of every row group before
     * it): what a DELETE names the rows it deletes by.
     */
    public static FileColumn rowPosition()
    {
        return new FileColumn(ROW_POSITION_ORDINAL, BIGINT);
    }

    public boolean isRowPosition()
    {
        return ordinal == ROW_POSITION_ORDINAL;
    }
}
