package io.nsc.trino.read;

import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;

import java.util.List;
import java.util.Optional;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static io.nsc.trino.NscErrorCode.NSC_BAD_DATA;
import static java.util.Objects.requireNonNull;

/**
 * A page of trino-parquet's reader, whose columns are decoded only when the engine first asks
 * for their blocks, long after {@link NscPageSource#getNextSourcePage} returned. The reader
 * routes only I/O errors through the page source's exception mapping; a decoder failing on bad
 * bytes throws a bare runtime exception from here, which the engine would report as an
 * internal error without naming the file. This names it, as NSC_BAD_DATA. It also applies the
 * per-column conversions of {@link ColumnDecoding}.
 */
final class NscSourcePage
        implements SourcePage
{
    private final SourcePage delegate;
    private final String fileId;
    private final List<Optional<UnaryOperator<Block>>> conversions;
    private final Block[] converted;

    NscSourcePage(SourcePage delegate, String fileId, List<Optional<UnaryOperator<Block>>> conversions)
    {
        this.delegate = requireNonNull(delegate, "delegate is null");
        this.fileId = requireNonNull(fileId, "fileId is null");
        this.conversions = List.copyOf(conversions);
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
        catch (TrinoException e) {
            throw e;
        }
        catch (RuntimeException e) {
            throw new TrinoException(NSC_BAD_DATA, "Cannot decode nsc file %s: %s".formatted(fileId, e.getMessage()), e);
        }
    }
}
