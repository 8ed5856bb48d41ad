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
 */
public final class PageCodec
{
    private static final int INITIAL_BUFFER_BYTES = 64 * 1024;

    private final PageCompression compression;
    private final NscBlockEncodingSerde serde = new NscBlockEncodingSerde();
    private final Optional<Compressor> compressor;
    private final Optional<Decompressor> decompressor;

    public PageCodec(PageCompression compression)
    {
        this.compression = requireNonNull(compression, "compression is null");
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

    public List<Page> decode(PageBatch batch)
    {
        checkArgument(batch.getCompression() == compression, "batch compressed with %s, expected %s", batch.getCompression(), compression);
        Slice data = decompress(batch);
        SliceInput input = data.getInput();
        ImmutableList.Builder<Page> pages = ImmutableList.builderWithExpectedSize(batch.getPageCount());
        long positions = 0;
        for (int page = 0; page < batch.getPageCount(); page++) {
            int positionCount = input.readInt();
            int channelCount = input.readInt();
            checkArgument(positionCount >= 0 && channelCount >= 0, "corrupt page header: %s positions, %s channels", positionCount, channelCount);
            Block[] blocks = new Block[channelCount];
            for (int channel = 0; channel < channelCount; channel++) {
                blocks[channel] = serde.readBlock(input);
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
        byte[] compressed = batch.getData().toByteArray();
        if (decompressor.isEmpty()) {
            checkArgument(compressed.length == batch.getUncompressedSize(), "uncompressed batch of %s bytes, header says %s", compressed.length, batch.getUncompressedSize());
            return Slices.wrappedBuffer(compressed);
        }
        byte[] output = new byte[batch.getUncompressedSize()];
        int length = decompressor.get().decompress(compressed, 0, compressed.length, output, 0, output.length);
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
