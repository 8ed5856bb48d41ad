package io.nsc.parquet.topn;

import static com.google.common.base.Preconditions.checkArgument;

/** One key of a top-N order: a channel of the pages, its direction and where its NULLs go. */
public record SortKey(int channel, boolean ascending, boolean nullsFirst)
{
    public SortKey
    {
        checkArgument(channel >= 0, "channel is negative");
    }
}
