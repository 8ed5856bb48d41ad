package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableList;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.LongArrayBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Optional;
import java.util.function.ObjLongConsumer;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A page of the columns asked for when some are not in the decoded page: columns the file lacks
 * are NULL, row positions are counted from the page's first row, and the others come from the
 * page of the columns the file has.
 */
final class MissingColumnsSourcePage
        implements SourcePage
{
    /** A column the file lacks. */
    static final int NULLS = -1;
    /** {@link FileColumn#rowPosition()}. */
    static final int ROW_POSITIONS = -2;

    private final SourcePage decoded;
    private final int[] decodedChannels;
    private final List<Type> types;
    private final long firstRow;
    // the rows of the page still selected, by their place in the page as read; empty: all of them
    private Optional<int[]> selected = Optional.empty();

    /**
     * @param decodedChannels per column asked for, its channel in {@code decoded}, {@link #NULLS} or {@link #ROW_POSITIONS}
     * @param firstRow the place in its file of the page's first row as read
     */
    MissingColumnsSourcePage(SourcePage decoded, int[] decodedChannels, List<Type> types, long firstRow)
    {
        this.decoded = requireNonNull(decoded, "decoded is null");
        this.decodedChannels = requireNonNull(decodedChannels, "decodedChannels is null");
        this.types = ImmutableList.copyOf(types);
        checkArgument(decodedChannels.length == types.size(), "a type per column");
        checkArgument(firstRow >= 0, "firstRow is negative");
        this.firstRow = firstRow;
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
        return switch (decodedChannels[channel]) {
            case NULLS -> RunLengthEncodedBlock.create(types.get(channel), null, getPositionCount());
            case ROW_POSITIONS -> rowPositions();
            default -> decoded.getBlock(decodedChannels[channel]);
        };
    }

    private Block rowPositions()
    {
        long[] positions = new long[getPositionCount()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = firstRow + (selected.isPresent() ? selected.get()[i] : i);
        }
        return new LongArrayBlock(positions.length, Optional.empty(), positions);
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
        // the NULL and row position blocks are made at the page's size when asked for
        int[] rows = new int[size];
        for (int i = 0; i < size; i++) {
            int position = positions[offset + i];
            rows[i] = selected.isPresent() ? selected.get()[position] : position;
        }
        selected = Optional.of(rows);
        decoded.selectPositions(positions, offset, size);
    }
}
