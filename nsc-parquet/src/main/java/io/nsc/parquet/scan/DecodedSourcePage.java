package io.nsc.parquet.scan;

import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * A page of trino-parquet's reader, whose columns are decoded only when first asked for,
 * long after the reader returned the page. The reader routes only I/O errors through its
 * exception transform; a decoder failing on bad bytes throws a bare runtime exception from
 * here, so this maps those too ({@code badData}, which names the file). It also applies the
 * per-column conversions of {@link io.nsc.parquet.types.ColumnDecoding}.
 */
final class DecodedSourcePage
        implements SourcePage
{
    private final SourcePage delegate;
    private final List<Optional<UnaryOperator<Block>>> conversions;
    private final Function<RuntimeException, RuntimeException> badData;
    private final Block[] converted;

    DecodedSourcePage(SourcePage delegate, List<Optional<UnaryOperator<Block>>> conversions, Function<RuntimeException, RuntimeException> badData)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.conversions = List.copyOf(conversions);
        this.badData = requireNonNull(badData, "badData is null");
        this.converted = new Block[delegate.getChannelCount()];
    }

    @Override
    public int getPositionCount()
    {
        return delegate.getPositionCount();
    }

    @Override
    public long getSizeInBytes()
    {
        return delegate.getSizeInBytes();
    }

    @Override
    public long getRetainedSizeInBytes()
    {
        return delegate.getRetainedSizeInBytes();
    }

    @Override
    public void retainedBytesForEachPart(ObjLongConsumer<Object> consumer)
    {
        delegate.retainedBytesForEachPart(consumer);
    }

    @Override
    public int getChannelCount()
    {
        return delegate.getChannelCount();
    }

    @Override
    public Block getBlock(int channel)
    {
        return decoding(() -> {
            Optional<UnaryOperator<Block>> conversion = conversions.get(channel);
            if (conversion.isEmpty()) {
                return delegate.getBlock(channel);
            }
            if (converted[channel] == null) {
                converted[channel] = conversion.get().apply(delegate.getBlock(channel));
            }
            return converted[channel];
        });
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
        decoding(() -> {
            delegate.selectPositions(positions, offset, size);
            return null;
        });
        for (int channel = 0; channel < converted.length; channel++) {
            if (converted[channel] != null) {
                converted[channel] = converted[channel].getPositions(positions, offset, size);
            }
        }
    }

    private <T> T decoding(Supplier<T> action)
    {
        try {
            return action.get();
        }
        catch (RuntimeException e) {
            throw badData.apply(e);
        }
    }
}
