package io.nsc.trino.read;

import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;

import java.util.OptionalLong;

/**
 * A split whose query needs no column (such as {@code count(*)} with no filter the engine must
 * evaluate) is answered from the row counts in the compact stats without reading storage.
 */
public class RowCountPageSource
        implements ConnectorPageSource
{
    private static final int MAX_PAGE_POSITIONS = 64 * 1024;

    private long remaining;
    private long completed;

    public RowCountPageSource(long rowCount)
    {
        this.remaining = rowCount;
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        if (remaining == 0) {
            return null;
        }
        int positions = (int) Math.min(remaining, MAX_PAGE_POSITIONS);
        remaining -= positions;
        completed += positions;
        return SourcePage.create(positions);
    }

    @Override
    public long getCompletedBytes()
    {
        return 0;
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return OptionalLong.of(completed);
    }

    @Override
    public long getReadTimeNanos()
    {
        return 0;
    }

    @Override
    public boolean isFinished()
    {
        return remaining == 0;
    }

    @Override
    public long getMemoryUsage()
    {
        return 0;
    }

    @Override
    public void close()
    {
        remaining = 0;
    }
}
