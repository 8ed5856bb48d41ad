package io.nsc.parquet.wire;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a receiver accepts in one page batch, checked before it allocates: the batch's
 * uncompressed size (the buffer it decompresses into) and what its blocks decode to.
 *
 * @param maxUncompressedBytes the largest uncompressed batch; a sender's batches are at most its
 * batch size plus one page
 * @param maxDecodedBytes the most the batch's decoded blocks may hold (see {@link EncodedBlockValidator})
 */
public record PageLimits(int maxUncompressedBytes, long maxDecodedBytes)
{
    // a storage node's batches are at most 32MB (storage.max-scan-batch) plus a page
    public static final PageLimits DEFAULT = new PageLimits(64 * 1024 * 1024, 256L * 1024 * 1024);

    public PageLimits
    {
        checkArgument(maxUncompressedBytes > 0, "maxUncompressedBytes must be positive");
        checkArgument(maxDecodedBytes > 0, "maxDecodedBytes must be positive");
    }
}
