package io.nsc.trino.delete;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjLongConsumer;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A scan of one file that answers each row's {@link NscRowIdColumnHandle row id}: the scan
 * underneath returns each row's position in the file where the engine asked for the row id, and
 * this source turns the positions into row ids.
 */
public final class RowIdPageSource
        implements ConnectorPageSource
{
    private final ConnectorPageSource positionedScan;
    private final int rowIdChannel;
    private final String fileId;

    /**
     * @param positionedScan a scan that returns each row's position in the file at {@code rowIdChannel}
     * @param rowIdChannel where the engine wants the row id among its columns
     */
    public RowIdPageSource(ConnectorPageSource positionedScan, int rowIdChannel, String fileId)
    {
        this.positionedScan = requireNonNull(positionedScan, "positionedScan is null");
        checkArgument(rowIdChannel >= 0, "rowIdChannel is negative");
        this.rowIdChannel = rowIdChannel;
        this.fileId = requireNonNull(fileId, "fileId is null");
    }

    @Override
    public SourcePage getNextSourcePage()
    {
        SourcePage page = positionedScan.getNextSourcePage();
        return page == null ? null : new RowIdSourcePage(page);
    }

    @Override
    public long getCompletedBytes()
    {
        return positionedScan.getCompletedBytes();
    }

    @Override
    public OptionalLong getCompletedPositions()
    {
        return positionedScan.getCompletedPositions();
    }

    @Override
    public long getReadTimeNanos()
    {
        return positionedScan.getReadTimeNanos();
    }

    @Override
    public boolean isFinished()
    {
        return positionedScan.isFinished();
    }

    @Override
    public long getMemoryUsage()
    {
        return positionedScan.getMemoryUsage();
    }

    @Override
    public CompletableFuture<?> isBlocked()
    {
        return positionedScan.isBlocked();
    }

    @Override
    public Metrics getMetrics()
    {
        return positionedScan.getMetrics();
    }

    @Override
    public void close()
            throws IOException
    {
        positionedScan.close();
    }

    /** The scan's page with row ids in place of the positions. */
    private final class RowIdSourcePage
            implements SourcePage
    {
        private final SourcePage page;

        RowIdSourcePage(SourcePage page)
        {
            this.page = page;
        }

        @Override
        public int getPositionCount()
        {
            return page.getPositionCount();
        }

        @Override
        public long getSizeInBytes()
        {
            return page.getSizeInBytes();
        }

        @Override
        public long getRetainedSizeInBytes()
        {
            return page.getRetainedSizeInBytes();
        }

        @Override
        public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
        {
            page.retainedBytesForEachPart(consumer);
        }

        @Override
        public int getChannelCount()
        {
            return page.getChannelCount();
        }

        @Override
        public Block getBlock(int channel)
        {
            Block block = page.getBlock(channel);
            return channel == rowIdChannel ? RowIds.of(fileId, block) : block;
        }

        @Override
        public Page getPage()
        {
            Block[] blocks = new Block[getChannelCount()];
            for (int channel = 0; channel < blocks.length; channel++) {
                blocks[channel] = getBlock(channel);
            }
            return new Page(getPositionCount(), blocks);
        }

        @Override
        public void selectPositions(int[] positions, int offset, int size)
        {
            page.selectPositions(positions, offset, size);
        }
    }
}
