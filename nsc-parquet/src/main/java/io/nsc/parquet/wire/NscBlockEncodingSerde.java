package io.nsc.parquet.wire;

import com.google.common.collect.ImmutableMap;
import io.airlift.slice.SliceInput;
import io.airlift.slice.SliceOutput;
import io.nsc.parquet.memory.MemoryBudget;
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
import static java.util.Objects.requireNonNull;
import static java.util.function.Function.identity;

/**
 * Trino's own block encodings (the SPI classes the engine uses between its workers), for the
 * flat types nsc tables hold. The engine's serde lives in trino-main, which neither a storage
 * node nor a plugin may depend on; this one writes the same format: per block, the encoding's
 * length-prefixed name followed by the encoding's bytes.
 * <p>
 * Reading never trusts the bytes: each block is first walked by {@link EncodedBlockValidator},
 * which checks every count and length against what remains and reserves the decoded size in
 * the budget, and only then decoded by Trino's encoding. Not thread-safe (it knows whether it
 * is inside a block it has validated already); one instance per decoding.
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
    private final MemoryBudget budget;
    // inside the decoding of a block validated as a whole: its nested blocks were checked with it
    private boolean validated;

    /** For writing, or reading bytes whose size is bounded already (validated, but not budgeted). */
    public NscBlockEncodingSerde()
    {
        this(MemoryBudget.unlimited());
    }

    /**
     * @param budget where every block read reserves its decoded size
     */
    public NscBlockEncodingSerde(MemoryBudget budget)
    {
        this.budget = requireNonNull(budget, "budget is null");
    }

    /**
     * @throws IllegalArgumentException when the block is malformed or truncated
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when it decodes to more than the budget allows
     */
    @Override
    public Block readBlock(SliceInput input)
    {
        if (validated) {
            // Trino's dictionary and run-length encodings read their nested block through here
            return decode(input);
        }
        long start = input.position();
        long reserved = budget.reservedBytes();
        try {
            new EncodedBlockValidator(budget).validate(input);
        }
        catch (RuntimeException e) {
            // all or nothing: a refused block holds no memory
            budget.release(budget.reservedBytes() - reserved);
            throw e;
        }
        input.setPosition(start);
        validated = true;
        try {
            return decode(input);
        }
        catch (IllegalArgumentException e) {
            throw e;
        }
        catch (RuntimeException e) {
            // the validator should have refused whatever Trino's decoder trips over
            throw new IllegalArgumentException("corrupt block: " + e, e);
        }
        finally {
            validated = false;
        }
    }

    private Block decode(SliceInput input)
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
        if (length < 0 || length > EncodedBlockValidator.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("Bad block encoding name length: " + length);
        }
        byte[] bytes = new byte[length];
        input.readBytes(bytes);
        return new String(bytes, UTF_8);
    }
}
