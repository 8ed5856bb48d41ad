package io.nsc.parquet.wire;

import io.airlift.slice.SliceInput;
import io.nsc.parquet.memory.MemoryBudget;

import static com.google.common.base.Preconditions.checkArgument;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.util.Objects.requireNonNull;

/**
 * One pass over a block in Trino's block encoding (the 476 formats of the encodings
 * {@link NscBlockEncodingSerde} knows) that decodes nothing: it checks every count and length
 * against the bytes that remain and against the others, and reserves in the budget what the
 * decoded block will hold, before Trino's decoder allocates anything. Trino's encodings read
 * a position count and allocate arrays of that size straight away; after this pass every such
 * size is backed by bytes (or, for a run-length block, by the budget).
 * <p>
 * The reserved figure is what decoding retains: value arrays, null flags, offsets, and for
 * dictionary and run-length blocks the expanded values (Trino 476 copies a dictionary block's
 * positions; run-length blocks are expanded by whatever iterates their positions).
 */
final class EncodedBlockValidator
{
    static final int MAX_NAME_LENGTH = 64;

    private final MemoryBudget budget;

    EncodedBlockValidator(MemoryBudget budget)
    {
        this.budget = requireNonNull(budget, "budget is null");
    }

    /**
     * What a decoded block holds per position, for the dictionary or run-length block around it.
     *
     * @param fixedWidth bytes per value, or -1 for variable width
     * @param lengths bytes of each position's value (null positions 0), variable width only
     */
    private record Shape(int positionCount, int fixedWidth, int[] lengths)
    {
        long expandedBytes(int position)
        {
            // a value, its null flag, and for variable width its offset
            return fixedWidth >= 0 ? fixedWidth + 1 : lengths[position] + Integer.BYTES + 1L;
        }
    }

    /**
     * Checks the block at the input's position and reserves its decoded size; the input is left
     * after the block.
     *
     * @throws IllegalArgumentException when the block is malformed or truncated
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when it decodes to more than the budget allows
     */
    void validate(SliceInput input)
    {
        block(input, false, false);
    }

    private Shape block(SliceInput input, boolean nested, boolean needLengths)
    {
        String name = name(input);
        return switch (name) {
            case "BYTE_ARRAY" -> fixedWidth(input, Byte.BYTES);
            case "SHORT_ARRAY" -> fixedWidth(input, Short.BYTES);
            case "INT_ARRAY" -> fixedWidth(input, Integer.BYTES);
            case "LONG_ARRAY" -> fixedWidth(input, Long.BYTES);
            case "FIXED12" -> fixedWidth(input, 12);
            case "INT128_ARRAY" -> fixedWidth(input, 16);
            case "VARIABLE_WIDTH" -> variableWidth(input, needLengths);
            case "DICTIONARY" -> {
                checkArgument(!nested, "a dictionary block inside another dictionary or run-length block");
                yield dictionary(input);
            }
            case "RLE" -> {
                checkArgument(!nested, "a run-length block inside another dictionary or run-length block");
                yield runLength(input);
            }
            default -> throw new IllegalArgumentException("Unknown block encoding: " + name);
        };
    }

    private static String name(SliceInput input)
    {
        int length = readInt(input, "block encoding name length");
        checkArgument(length > 0 && length <= MAX_NAME_LENGTH, "bad block encoding name length: %s", length);
        require(input, length, "block encoding name");
        byte[] name = new byte[length];
        input.readBytes(name);
        return new String(name, US_ASCII);
    }

    /** Fixed-width values: with nulls, only the non-null values are written, after their count. */
    private Shape fixedWidth(SliceInput input, int width)
    {
        int positions = positionCount(input);
        int nonNulls = skipNulls(input, positions);
        if (nonNulls < 0) {
            require(input, (long) positions * width, "values");
            input.skip((long) positions * width);
            reserve((long) positions * width);
        }
        else {
            int written = readInt(input, "non-null count");
            checkArgument(written == nonNulls, "block says %s non-null values, its null flags %s", written, nonNulls);
            require(input, (long) nonNulls * width, "values");
            input.skip((long) nonNulls * width);
            reserve((long) positions * (width + 1));
        }
        return new Shape(positions, width, null);
    }

    private Shape variableWidth(SliceInput input, boolean needLengths)
    {
        int positions = positionCount(input);
        int nonNulls = readInt(input, "non-null count");
        checkArgument(nonNulls >= 0 && nonNulls <= positions, "%s non-null values in a block of %s positions", nonNulls, positions);
        require(input, (long) nonNulls * Integer.BYTES, "value lengths");
        // what Trino allocates first: the offsets, then null flags, then the bytes (reserved below)
        reserve((long) (positions + 1) * Integer.BYTES);
        int[] lengths = needLengths ? new int[positions] : null;
        long totalLength = 0;
        for (int value = 0; value < nonNulls; value++) {
            int length = input.readInt();
            checkArgument(length >= 0, "negative value length %s", length);
            totalLength += length;
            if (lengths != null) {
                // packed at the end for now, spread over the non-null positions below
                lengths[positions - nonNulls + value] = length;
            }
        }
        long nullsStart = input.position();
        int counted = skipNulls(input, positions);
        if (counted < 0) {
            checkArgument(nonNulls == positions, "%s non-null values in a block of %s positions without nulls", nonNulls, positions);
        }
        else {
            checkArgument(counted == nonNulls, "block says %s non-null values, its null flags %s", nonNulls, counted);
            reserve(positions);
            if (lengths != null) {
                spreadLengths(input, nullsStart, lengths, nonNulls);
            }
        }
        int blockSize = readInt(input, "value bytes");
        checkArgument(blockSize == totalLength, "value bytes %s differ from the sum of the lengths %s", blockSize, totalLength);
        require(input, blockSize, "value bytes");
        input.skip(blockSize);
        reserve(blockSize);
        return new Shape(positions, -1, lengths);
    }

    /** Moves the lengths packed at the end of {@code lengths} onto the non-null positions. */
    private static void spreadLengths(SliceInput input, long nullsStart, int[] lengths, int nonNulls)
    {
        long end = input.position();
        input.setPosition(nullsStart + 1);
        int next = lengths.length - nonNulls;
        int currentByte = 0;
        for (int position = 0; position < lengths.length; position++) {
            if (position % 8 == 0) {
                currentByte = input.readByte();
            }
            boolean isNull = (currentByte & (0x80 >>> (position % 8))) != 0;
            lengths[position] = isNull ? 0 : lengths[next++];
        }
        input.setPosition(end);
    }

    private Shape dictionary(SliceInput input)
    {
        int positions = positionCount(input);
        Shape dictionary = block(input, true, true);
        require(input, (long) positions * Integer.BYTES, "dictionary ids");
        reserve((long) positions * Integer.BYTES);
        long expanded = 0;
        for (int position = 0; position < positions; position++) {
            int id = input.readInt();
            checkArgument(id >= 0 && id < dictionary.positionCount(), "dictionary id %s outside a dictionary of %s", id, dictionary.positionCount());
            expanded += dictionary.expandedBytes(id);
        }
        // Trino 476 decodes a dictionary block by copying the positions out of the dictionary
        reserve(expanded);
        return new Shape(positions, dictionary.fixedWidth() >= 0 ? dictionary.fixedWidth() : -1, null);
    }

    private Shape runLength(SliceInput input)
    {
        int positions = positionCount(input);
        Shape value = block(input, true, true);
        checkArgument(value.positionCount() == 1, "run-length block whose value block has %s positions", value.positionCount());
        // nothing backs the count but the budget: whoever iterates the positions expands them
        reserve(positions * value.expandedBytes(0));
        return new Shape(positions, value.fixedWidth(), null);
    }

    /** Skips the null flags, if any; returns the number of non-null positions, or -1 without flags. */
    private static int skipNulls(SliceInput input, int positions)
    {
        require(input, 1, "null flag marker");
        if (!input.readBoolean()) {
            return -1;
        }
        int bytes = (positions + 7) / 8;
        require(input, bytes, "null flags");
        int nulls = 0;
        for (int i = 0; i < bytes; i++) {
            int value = input.readByte() & 0xFF;
            // padding bits past the last position do not count
            if (i == bytes - 1 && positions % 8 != 0) {
                value &= 0xFF << (8 - positions % 8);
            }
            nulls += Integer.bitCount(value);
        }
        return positions - nulls;
    }

    private static int positionCount(SliceInput input)
    {
        int positions = readInt(input, "position count");
        checkArgument(positions >= 0, "negative position count %s", positions);
        return positions;
    }

    private static int readInt(SliceInput input, String what)
    {
        require(input, Integer.BYTES, what);
        return input.readInt();
    }

    private static void require(SliceInput input, long bytes, String what)
    {
        if (bytes > input.available()) {
            throw new IllegalArgumentException("truncated block: %s needs %s bytes, %s remain".formatted(what, bytes, input.available()));
        }
    }

    private void reserve(long bytes)
    {
        budget.reserve(bytes, "decoded block values");
    }
}
