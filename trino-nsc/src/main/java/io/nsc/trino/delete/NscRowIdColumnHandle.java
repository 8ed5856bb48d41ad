package io.nsc.trino.delete;

import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.RowType;

import java.util.List;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;

/**
 * The row id a row-level DELETE names each row by: its file, and its place in the file (counting
 * every row of the file before it, in row groups a DELETE removed too). Files never change, so the
 * pair names one row of one version for good.
 */
public record NscRowIdColumnHandle()
        implements ColumnHandle
{
    public static final String NAME = "$row_id";
    public static final RowType TYPE = RowType.from(List.of(
            RowType.field("file_id", VARCHAR),
            RowType.field("row_position", BIGINT)));

    public static final int FILE_ID_FIELD = 0;
    public static final int ROW_POSITION_FIELD = 1;

    public ColumnMetadata toColumnMetadata()
    {
        return ColumnMetadata.builder()
                .setName(NAME)
                .setType(TYPE)
                .setHidden(true)
                .build();
    }

    @Override
    public String toString()
    {
        return NAME;
    }
}
