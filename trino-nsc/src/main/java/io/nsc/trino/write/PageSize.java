package io.nsc.trino.write;

import io.trino.spi.PageBuilder;
import io.trino.spi.type.Type;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * How large the pages a sort or a merge hands on may grow: at most {@code maxRows} rows, and a
 * page is closed with the row that takes it to {@code maxBytes}. Bounding the bytes, not only the
 * rows, is what keeps a merge of many runs within its memory whatever the width of a row.
 */
public record PageSize(int maxRows, int maxBytes)
{
    // Trino's own pages hold up to 1MB (PageBuilder's default)
    public static final int DEFAULT_MAX_BYTES = 1024 * 1024;

    public PageSize
    {
        checkArgument(maxRows > 0, "maxRows must be positive: %s", maxRows);
        checkArgument(maxBytes > 0, "maxBytes must be positive: %s", maxBytes);
    }

    public static PageSize ofRows(int maxRows)
    {
        return new PageSize(maxRows, DEFAULT_MAX_BYTES);
    }

    public PageBuilder newPageBuilder(List<Type> types)
    {
        return PageBuilder.withMaxPageSize(maxBytes, types);
    }

    public boolean isFull(PageBuilder builder)
    {
        return builder.getPositionCount() >= maxRows || builder.isFull();
    }
}
