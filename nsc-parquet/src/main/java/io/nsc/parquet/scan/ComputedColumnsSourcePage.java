package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.nsc.parquet.expression.ValueExpression;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;

import java.util.List;
import java.util.function.IntFunction;
import java.util.function.ObjLongConsumer;

import static java.util.Objects.requireNonNull;

/**
 * A decoded page with values computed from its columns appended as further channels. A value
 * is computed when its channel is first asked for, over the rows the page has then: the filter
 * computes what it reads over every row, the output only over the rows that passed. So an
 * expression that fails (an overflow) fails only for a row the query evaluates it on. A value may
 * read another's channel ({@link SharedSubexpressions}), which is then computed first.
 */
final class ComputedColumnsSourcePage
        implements SourcePage
{
    private final SourcePage decoded;
    private final List<ValueExpression> computed;
    private final Block[] computedBlocks;

    ComputedColumnsSourcePage(SourcePage decoded, List<ValueExpression> computed)
    {
        this.decoded = requireNonNull(decoded, "decoded is null");
        this.computed = ImmutableList.copyOf(computed);
        this.computedBlocks = new Block[computed.size()];
    }

    @Override
    public int getPositionCount()
    {
        return decoded.getPositionCount();
    }

    @Override
    public long getSizeInBytes()
    {
        long size = decoded.getSizeInBytes();
        for (Block block : computedBlocks) {
            size += block == null ? 0 : block.getSizeInBytes();
        }
        return size;
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        long size = decoded.getRetainedSizeInBytes();
        for (Block block : computedBlocks) {
            size += block == null ? 0 : block.getRetainedSizeInBytes();
        }
        return size;
    }

    @Override
    public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
    {
        decoded.retainedBytesForEachPart(consumer);
        for (Block block : computedBlocks) {
            if (block != null) {
                block.retainedBytesForEachPart(consumer);
            }
        }
    }

    @Override
    public int getChannelCount()
    {
        return decoded.getChannelCount() + computed.size();
    }

    @Override
    public Block getBlock(int channel)
    {
        int decodedChannels = decoded.getChannelCount();
        if (channel < decodedChannels) {
            return decoded.getBlock(channel);
        }
        int index = channel - decodedChannels;
        if (computedBlocks[index] == null) {
            computedBlocks[index] = compute(computed.get(index));
        }
        return computedBlocks[index];
    }

    private Block compute(ValueExpression expression)
    {
        int positions = decoded.getPositionCount();
        // each input block is looked up once, not once a row; an input may be another computed value
        Block[] inputs = new Block[getChannelCount()];
        IntFunction<Block> blocks = channel -> {
            if (inputs[channel] == null) {
                inputs[channel] = getBlock(channel);
            }
            return inputs[channel];
        };
        return expression.evaluateBlock(blocks, positions);
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
        decoded.selectPositions(positions, offset, size);
        for (int i = 0; i < computedBlocks.length; i++) {
            if (computedBlocks[i] != null) {
                computedBlocks[i] = computedBlocks[i].getPositions(positions, offset, size);
            }
        }
    }
}
