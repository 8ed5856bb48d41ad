package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.function.ObjLongConsumer;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A page of the columns asked for when the file lacks some: those are NULL, the others come
 * from the page of the columns the file has.
 */
final class MissingColumnsSourcePage
        implements SourcePage
{
    private final SourcePage decoded;
    private final int[] decodedChannels;
    private final List<Type> types;

    /**
     * @param decodedChannels per column asked for, its channel in {@code decoded}, or -1 for NULL
     */
    MissingColumnsSourcePage(SourcePage decoded, int[] decodedChannels, List<Type> types)
    {
        this.decoded = requireNonNull(decoded, "decoded is null");
        this.decodedChannels = requireNonNull(decodedChannels, "decodedChannels is null");
        this.types = ImmutableList.copyOf(types);
        checkArgument(decodedChannels.length == types.size(), "a type per column");
    }

    @Override
    public int getPositionCount()
    {
        return decoded.getPositionCount();
    }

    @Override
    public long getSizeInBytes()
    {
        return decoded.getSizeInBytes();
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return decoded.getRetainedSizeInBytes();
    }

    @Override
    public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
    {
        decoded.retainedBytesForEachPart(consumer);
    }

    @Override
    public int getChannelCount()
    {
        return decodedChannels.length;
    }

    @Override
    public Block getBlock(int channel)
    {
        int decodedChannel = decodedChannels[channel];
        if (decodedChannel < 0) {
            return RunLengthEncodedBlock.create(types.get(channel), null, getPositionCount());
        }
        return decoded.getBlock(decodedChannel);
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
        // the NULL blocks are made at the page's size when asked for
        decoded.selectPositions(positions, offset, size);
    }
}
