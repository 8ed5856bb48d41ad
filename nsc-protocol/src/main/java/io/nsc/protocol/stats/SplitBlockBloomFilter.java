package io.nsc.protocol.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

import static java.util.Objects.checkFromIndexSize;

/**
 * Parquet's split-block Bloom filter (the {@code BLOCK} algorithm of the Parquet format, with
 * {@code XXHASH} hashes), over a bitset held in a byte array: membership tests, and folding a
 * filter to a smaller one that answers for the same values.
 * <p>
 * A filter is a sequence of 32-byte blocks of eight 32-bit words. A value's 64-bit hash picks a
 * block with its upper half (multiplied by the block count, keeping the top 32 bits) and one bit in
 * each word with its lower half. Because the block is picked by multiplication, the block of a
 * hash in a filter of {@code n / 2} blocks is its block in a filter of {@code n} blocks halved:
 * OR-ing blocks {@code 2j} and {@code 2j + 1} into block {@code j} gives the filter a writer would
 * have built at half the size. That is how nsc shrinks the filters writers size for the worst case
 * to what the values in a row group actually need.
 */
public final class SplitBlockBloomFilter
{
    public static final int BYTES_PER_BLOCK = 32;
    /** What nsc folds filters to: a value absent from a row group passes its filter 1 time in 100. */
    public static final double TARGET_FALSE_POSITIVE_RATE = 0.01;
    private static final int WORDS_PER_BLOCK = 8;
    // the Parquet format's salts, one per word of a block
    private static final int[] SALT = {
            0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
            0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31};
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private SplitBlockBloomFilter() {}

    /**
     * Whether {@code length} bytes can be a filter: a whole, non-zero number of blocks.
     */
    public static boolean isValidLength(int length)
    {
        return length >= BYTES_PER_BLOCK && length % BYTES_PER_BLOCK == 0;
    }

    /**
     * False only when no value with this hash was inserted into the filter at
     * {@code bitset[offset, offset + length)}.
     */
    public static boolean mightContain(byte[] bitset, int offset, int length, long hash)
    {
        checkFromIndexSize(offset, length, bitset.length);
        long blocks = length / BYTES_PER_BLOCK;
        int block = (int) (((hash >>> 32) * blocks) >>> 32);
        int key = (int) hash;
        int base = offset + block * BYTES_PER_BLOCK;
        for (int word = 0; word < WORDS_PER_BLOCK; word++) {
            int bit = (key * SALT[word]) >>> 27;
            if (((int) INT.get(bitset, base + word * Integer.BYTES) & (1 << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Sets the bits of {@code hash}: what a writer does for every value (used by tests and tools).
     */
    public static void insert(byte[] bitset, long hash)
    {
        long blocks = bitset.length / BYTES_PER_BLOCK;
        int block = (int) (((hash >>> 32) * blocks) >>> 32);
        int key = (int) hash;
        int base = block * BYTES_PER_BLOCK;
        for (int word = 0; word < WORDS_PER_BLOCK; word++) {
            int bit = (key * SALT[word]) >>> 27;
            int position = base + word * Integer.BYTES;
            INT.set(bitset, position, (int) INT.get(bitset, position) | (1 << bit));
        }
    }

    /**
     * The chance that a value never inserted passes {@link #mightContain}, for hashes spread
     * uniformly: per block, the product of the fraction of set bits in each of its words (a test
     * checks one bit per word), averaged over the blocks.
     */
    public static double falsePositiveRate(byte[] bitset)
    {
        int blocks = bitset.length / BYTES_PER_BLOCK;
        double sum = 0;
        for (int block = 0; block < blocks; block++) {
            double product = 1;
            for (int word = 0; word < WORDS_PER_BLOCK; word++) {
                product *= Integer.bitCount((int) INT.get(bitset, block * BYTES_PER_BLOCK + word * Integer.BYTES)) / 32.0;
            }
            sum += product;
        }
        return sum / blocks;
    }

    /**
     * The smallest filter, down to one block, reached by halving {@code bitset} while the half
     * keeps its {@link #falsePositiveRate} at most {@code maxFalsePositiveRate}. Every hash the
     * given filter might contain, the result might contain too. Deterministic: every storage node
     * folds a file's filters to the same bytes.
     *
     * @return {@code bitset} itself when no half is good enough
     */
    public static byte[] fold(byte[] bitset, double maxFalsePositiveRate)
    {
        if (!isValidLength(bitset.length)) {
            throw new IllegalArgumentException("not a split-block Bloom filter: %s bytes is not a whole number of %s-byte blocks".formatted(bitset.length, BYTES_PER_BLOCK));
        }
        byte[] current = bitset;
        while ((current.length / BYTES_PER_BLOCK) % 2 == 0) {
            byte[] half = halve(current);
            if (falsePositiveRate(half) > maxFalsePositiveRate) {
                break;
            }
            current = half;
        }
        return current;
    }

    static byte[] halve(byte[] bitset)
    {
        byte[] half = new byte[bitset.length / 2];
        for (int block = 0; block < half.length / BYTES_PER_BLOCK; block++) {
            int low = 2 * block * BYTES_PER_BLOCK;
            int high = low + BYTES_PER_BLOCK;
            for (int word = 0; word < WORDS_PER_BLOCK; word++) {
                int offset = word * Integer.BYTES;
                INT.set(half, block * BYTES_PER_BLOCK + offset, (int) INT.get(bitset, low + offset) | (int) INT.get(bitset, high + offset));
            }
        }
        return half;
    }
}
