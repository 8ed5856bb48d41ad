package io.nsc.parquet.stats;

import io.nsc.protocol.stats.FilterValueType;
import io.nsc.protocol.stats.SplitBlockBloomFilter;
import io.trino.spi.block.Block;
import io.trino.spi.type.Type;

import java.util.Arrays;
import java.util.List;

import static io.nsc.protocol.stats.SplitBlockBloomFilter.BYTES_PER_BLOCK;

/**
 * Builds the split-block Bloom filter of one column chunk from the chunk's values, sized to its
 * distinct values: first at 16 bits per value (about 0.1% false positives), then folded to
 * {@link SplitBlockBloomFilter#TARGET_FALSE_POSITIVE_RATE}, which is the smallest filter that
 * rate allows. NULLs are not in the filter; a chunk of NULLs gets an empty one-block filter,
 * which rightly rules out every value.
 */
public final class RowGroupBloomFilter
{
    private static final int INITIAL_BITS_PER_VALUE = 16;
    /** The largest filter built, as trino-parquet's default; more distinct values only raise its rate. */
    public static final int MAX_BYTES = 1024 * 1024;

    private RowGroupBloomFilter() {}

    public static byte[] build(Type type, FilterValueType valueType, List<Block> blocks)
    {
        int values = blocks.stream().mapToInt(Block::getPositionCount).sum();
        long[] hashes = new long[values];
        int count = 0;
        for (Block block : blocks) {
            for (int position = 0; position < block.getPositionCount(); position++) {
                if (!block.isNull(position)) {
                    hashes[count++] = BloomFilterHashes.hash(type, valueType, block, position);
                }
            }
        }
        Arrays.sort(hashes, 0, count);
        int distinct = 0;
        for (int i = 0; i < count; i++) {
            if (i == 0 || hashes[i] != hashes[i - 1]) {
                hashes[distinct++] = hashes[i];
            }
        }
        byte[] bitset = new byte[initialBytes(distinct)];
        for (int i = 0; i < distinct; i++) {
            SplitBlockBloomFilter.insert(bitset, hashes[i]);
        }
        return SplitBlockBloomFilter.fold(bitset, SplitBlockBloomFilter.TARGET_FALSE_POSITIVE_RATE);
    }

    /** A power of two, so that folding can halve it down to one block. */
    private static int initialBytes(int distinct)
    {
        long bytes = Math.max(BYTES_PER_BLOCK, (long) distinct * INITIAL_BITS_PER_VALUE / Byte.SIZE);
        return (int) Math.min(MAX_BYTES, Long.highestOneBit(bytes - 1) << 1);
    }
}
