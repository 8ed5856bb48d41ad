package io.nsc.parquet.wire;

import com.google.common.collect.ImmutableMap;
import io.airlift.slice.SliceInput;
import io.airlift.slice.SliceOutput;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockEncoding;
import io.trino.spi.block.BlockEncodingSerde;
import io.trino.spi.block.ByteArrayBlockEncoding;
import io.trino.spi.block.DictionaryBlockEncoding;
import io.trino.spi.block.Fixed12BlockEncoding;
import io.trino.spi.block.Int128ArrayBlockEncoding;
import io.trino.spi.block.IntArrayBlockEncoding;
import io.trino.spi.block.LongArrayBlockEncoding;
import io.trino.spi.block.RunLengthBlockEncoding;
import io.trino.spi.block.ShortArrayBlockEncoding;
import io.trino.spi.block.VariableWidthBlockEncoding;
import io.trino.spi.type.Type;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.function.Function.identity;

/**
 * Trino's own block encodings (the SPI classes the engine uses between its workers), for the
 * flat types nsc tables hold. The engine's serde lives in trino-main, which neither a storage
 * node nor a plugin may depend on; this one writes the same format: per block, the encoding's
 * length-prefixed name followed by the encoding's bytes.
 */
public final class NscBlockEncodingSerde
        implements BlockEncodingSerde
{
    private static final List<BlockEncoding> ENCODINGS = List.of(
            new VariableWidthBlockEncoding(),
            new ByteArrayBlockEncoding(),
            new ShortArrayBlockEncoding(),
            new IntArrayBlockEncoding(),
            new LongArrayBlockEncoding(),
            new Fixed12BlockEncoding(),
            new Int128ArrayBlockEncoding(),
            new DictionaryBlockEncoding(),
            new RunLengthBlockEncoding());

    private final Map<String, BlockEncoding> byName = ENCODINGS.stream().collect(toImmutableMap(BlockEncoding::getName, identity()));
    private final Map<Class<? extends Block>, BlockEncoding> byBlockClass = ImmutableMap.copyOf(
            ENCODINGS.stream().collect(toImmutableMap(BlockEncoding::getBlockClass, identity())));

    @Override
    public Block readBlock(SliceInput input)
    {
        String name = readName(input);
        BlockEncoding encoding = byName.get(name);
        if (encoding == null) {
            throw new IllegalArgumentException("Unknown block encoding: " + name);
        }
        return encoding.readBlock(this, input);
    }

    @Override
    public void writeBlock(SliceOutput output, Block block)
    {
        Block current = block;
        while (true) {
            BlockEncoding encoding = byBlockClass.get(current.getClass());
            if (encoding == null) {
                throw new IllegalArgumentException("No block encoding for " + current.getClass().getName());
            }
            // some blocks are written as another kind (e.g. a dictionary that is not worth it)
            Optional<Block> replacement = encoding.replacementBlockForWrite(current);
            if (replacement.isPresent()) {
                current = replacement.get();
                continue;
            }
            byte[] name = encoding.getName().getBytes(UTF_8);
            output.writeInt(name.length);
            output.writeBytes(name);
            encoding.writeBlock(this, output, current);
            return;
        }
    }

    @Override
    public Type readType(SliceInput input)
    {
        // only nested blocks (row, array, map) carry types, and nsc columns are flat
        throw new UnsupportedOperationException("nsc pages hold no nested types");
    }

    @Override
    public void writeType(SliceOutput output, Type type)
    {
        throw new UnsupportedOperationException("nsc pages hold no nested types");
    }

    private static String readName(SliceInput input)
    {
        int length = input.readInt();
        if (length < 0 || length > 64) {
            throw new IllegalArgumentException("Bad block encoding name length: " + length);
        }
        byte[] bytes = new byte[length];
        input.readBytes(bytes);
        return new String(bytes, UTF_8);
    }
}
