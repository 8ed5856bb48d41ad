package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSink;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static java.util.Objects.requireNonNull;

/**
 * Writes into a table with dropped columns: the pages Trino sends hold the live columns; the
 * files hold every slot, so a NULL column goes where each dropped one was.
 */
final class DroppedColumnsPageSink
        implements ConnectorPageSink
{
    private final ConnectorPageSink delegate;
    private final List<FileSlot> slots;

    DroppedColumnsPageSink(ConnectorPageSink delegate, List<FileSlot> slots)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.slots = ImmutableList.copyOf(requireNonNull(slots, "slots is null"));
    }

    @Override
    public CompletableFuture<?> appendPage(Page page)
    {
        Block[] blocks = new Block[slots.size()];
        for (int i = 0; i < blocks.length; i++) {
            FileSlot slot = slots.get(i);
            blocks[i] = slot.dropped()
                    ? RunLengthEncodedBlock.create(slot.column().type(), null, page.getPositionCount())
                    : page.getBlock(slot.channel().getAsInt());
        }
        return delegate.appendPage(new Page(page.getPositionCount(), blocks));
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish()
    {
        return delegate.finish();
    }

    @Override
    public void abort()
    {
        delegate.abort();
    }

    @Override
    public long getCompletedBytes()
    {
        return delegate.getCompletedBytes();
    }

    @Override
    public long getMemoryUsage()
    {
        return delegate.getMemoryUsage();
    }

    @Override
    public long getValidationCpuNanos()
    {
        return delegate.getValidationCpuNanos();
    }

    @Override
    public void closeIdleWriters()
    {
        delegate.closeIdleWriters();
    }
}
