package io.nsc.parquet.wire;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.airlift.compress.v3.Compressor;
import io.airlift.compress.v3.Decompressor;
import io.airlift.compress.v3.lz4.Lz4JavaCompressor;
import io.airlift.compress.v3.lz4.Lz4JavaDecompressor;
import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import io.airlift.compress.v3.zstd.ZstdJavaDecompressor;
import io.airlift.slice.DynamicSliceOutput;
import io.airlift.slice.Slice;
import io.airlift.slice.SliceInput;
import io.airlift.slice.Slices;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.trino.spi.Page;
import io.trino.spi.block.Block;

import java.util.List;
import java.util.Optional;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * The scan wire format: pages in Trino's block encoding, concatenated into a batch, the batch
 * compressed as a whole so that the small pages of a selective filter still compress well.
 * One codec per scan: the compressors keep per-instance state.
 * <p>
 * Decoding trusts nothing in the batch: sizes and counts are checked against the bytes that
 * remain and the {@link PageLimits} before anything is allocated, so a misbehaving sender gets
 * an exception, never the receiver's heap.
 */
public final class PageCodec
{
    private static final int INITIAL_BUFFER_BYTES = 64 * 1024;
    // a page's header: position count and channel count
    private static final int PAGE_HEADER_BYTES = 2 * Integer.BYTES;
    // the smallest encoded block: name length, a one-byte name, position count
    private static final int MIN_BLOCK_BYTES = Integer.BYTES + 1 + Integer.BYTES;

    private final PageCompression compression;
    private final PageLimits limits;
    private final NscBlockEncodingSerde serde = new NscBlockEncodingSerde();
    private final Optional<Compressor> compressor;
    private final Optional<Decompressor> decompressor;

    public PageCodec(PageCompression compression)
    {
        this(compression, PageLimits.DEFAULT);
    }

    public PageCodec(PageCompression compression, PageLimits limits)
    {
        this.compression = requireNonNull(compression, "compression is null");
        this.limits = requireNonNull(limits, "limits is null");
        switch (compression) {
            case PAGE_COMPRESSION_NONE -> {
                compressor = Optional.empty();
                decompressor = Optional.empty();
            }
            case PAGE_COMPRESSION_LZ4 -> {
                compressor = Optional.of(new Lz4JavaCompressor());
                decompressor = Optional.of(new Lz4JavaDecompressor());
            }
            case PAGE_COMPRESSION_ZSTD -> {
                compressor = Optional.of(new ZstdJavaCompressor());
                decompressor = Optional.of(new ZstdJavaDecompressor());
            }
            default -> throw new IllegalArgumentException("Unknown page compression: " + compression);
        }
    }

    public BatchBuilder newBatch()
    {
        return new BatchBuilder();
    }

    /**
     * @throws IllegalArgumentException when the batch is malformed, truncated or larger than the limits allow
     * @throws io.nsc.parquet.memory.MemoryLimitExceededException when its blocks decode to more than the limits allow
     */
    public List<Page> decode(PageBatch batch)
    {
        checkArgument(batch.getCompression() == compression, "batch compressed with %s, expected %s", batch.getCompression(), compression);
        checkArgument(batch.getUncompressedSize() >= 0 && batch.getUncompressedSize() <= limits.maxUncompressedBytes(),
                "batch of %s uncompressed bytes, the limit is %s", batch.getUncompressedSize(), limits.maxUncompressedBytes());
        // every page has a header, every position a page: counts the bytes cannot hold are refused before any list is sized
        checkArgument(batch.getPageCount() >= 0 && batch.getPageCount() <= batch.getUncompressedSize() / PAGE_HEADER_BYTES,
                "batch of %s bytes claims %s pages", batch.getUncompressedSize(), batch.getPageCount());
        checkArgument(batch.getPositionCount() >= 0, "batch claims %s positions", batch.getPositionCount());
        Slice data = decompress(batch);
        SliceInput input = data.getInput();
        NscBlockEncodingSerde reader = new NscBlockEncodingSerde(new MemoryBudget("Page batch", limits.maxDecodedBytes()));
        ImmutableList.Builder<Page> pages = ImmutableList.builderWithExpectedSize(batch.getPageCount());
        long positions = 0;
        for (int page = 0; page < batch.getPageCount(); page++) {
            checkArgument(input.available() >= PAGE_HEADER_BYTES, "batch truncated in the header of page %s", page);
            int positionCount = input.readInt();
            int channelCount = input.readInt();
            checkArgument(positionCount >= 0 && channelCount >= 0, "corrupt page header: %s positions, %s channels", positionCount, channelCount);
            checkArgument(channelCount <= input.available() / MIN_BLOCK_BYTES, "page of %s channels in the %s bytes left", channelCount, input.available());
            Block[] blocks = new Block[channelCount];
            for (int channel = 0; channel < channelCount; channel++) {
                blocks[channel] = reader.readBlock(input);
                checkArgument(blocks[channel].getPositionCount() == positionCount, "block of %s positions in a page of %s", blocks[channel].getPositionCount(), positionCount);
            }
            pages.add(new Page(positionCount, blocks));
            positions += positionCount;
        }
        checkArgument(!input.isReadable(), "%s bytes left after the batch's last page", input.available());
        checkArgument(positions == batch.getPositionCount(), "batch holds %s positions, header says %s", positions, batch.getPositionCount());
        return pages.build();
    }

    private Slice decompress(PageBatch batch)
    {
        if (decompressor.isEmpty()) {
            checkArgument(batch.getData().size() == batch.getUncompressedSize(), "uncompressed batch of %s bytes, header says %s", batch.getData().size(), batch.getUncompressedSize());
            return Slices.wrappedBuffer(batch.getData().toByteArray());
        }
        byte[] compressed = batch.getData().toByteArray();
        byte[] output = new byte[batch.getUncompressedSize()];
        int length;
        try {
            length = decompressor.get().decompress(compressed, 0, compressed.length, output, 0, output.length);
        }
        catch (RuntimeException e) {
            // the decompressors report corrupt input (and output that does not fit) as runtime exceptions of their own
            throw new IllegalArgumentException("corrupt compressed batch: " + e.getMessage(), e);
        }
        checkArgument(length == output.length, "batch decompressed to %s bytes, header says %s", length, output.length);
        return Slices.wrappedBuffer(output);
    }

    /**
     * The pages of one batch. Its size is the serialized (uncompressed) size, which bounds what
     * the sender buffers before a batch goes out.
     */
    public final class BatchBuilder
    {
        private final DynamicSliceOutput output = new DynamicSliceOutput(INITIAL_BUFFER_BYTES);
        private int pageCount;
        private int positionCount;

        private BatchBuilder() {}

        public void add(Page page)
        {
            output.writeInt(page.getPositionCount());
            output.writeInt(page.getChannelCount());
            for (int channel = 0; channel < page.getChannelCount(); channel++) {
                serde.writeBlock(output, page.getBlock(channel));
            }
            pageCount++;
            positionCount += page.getPositionCount();
        }

        public int sizeInBytes()
        {
            return output.size();
        }

        public int pageCount()
        {
            return pageCount;
        }

        /** The most {@link #build()} holds: the serialized pages (with room to grow) and their compressed copy. */
        public long retainedSizeInBytes()
        {
            int compressedBytes = compressor.map(value -> value.maxCompressedLength(output.size())).orElse(output.size());
            return output.getRetainedSize() + compressedBytes;
        }

        public PageBatch build()
        {
            Slice data = output.slice();
            return PageBatch.newBuilder()
                    .setCompression(compression)
                    .setUncompressedSize(data.length())
                    .setPageCount(pageCount)
                    .setPositionCount(positionCount)
                    .setData(compress(data))
                    .build();
        }

        private ByteString compress(Slice data)
        {
            if (compressor.isEmpty()) {
                return ByteString.copyFrom(data.byteArray(), data.byteArrayOffset(), data.length());
            }
            byte[] compressed = new byte[compressor.get().maxCompressedLength(data.length())];
            int length = compressor.get().compress(data.byteArray(), data.byteArrayOffset(), data.length(), compressed, 0, compressed.length);
            return UnsafeByteOperations.unsafeWrap(compressed, 0, length);
        }
    }
}
