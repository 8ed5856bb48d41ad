package io.nsc.parquet.wire;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.protocol.proto.PageBatch;
import io.nsc.protocol.proto.PageCompression;
import io.trino.spi.Page;

import java.util.Arrays;

/**
 * Coverage-guided fuzzing of page batch decoding, as a Trino worker decodes what a storage node
 * sends. The first byte chooses how the rest is read: a serialized PageBatch message, or the
 * uncompressed payload of a batch (so that the mutations reach the block encodings directly).
 * Every input must decode or end in IllegalArgumentException / MemoryLimitExceededException.
 * <p>
 * {@code ./nsc test} fuzzes for a few seconds; {@code ./nsc fuzz page-codec --duration 10m} for longer.
 */
class PageCodecFuzzTest
{
    private static final PageLimits LIMITS = new PageLimits(16 * 1024 * 1024, 64L * 1024 * 1024);

    @FuzzTest(maxDuration = "15s")
    void fuzz(byte[] data)
    {
        if (data.length == 0) {
            return;
        }
        PageBatch batch;
        if (data[0] % 2 == 0) {
            try {
                batch = PageBatch.parseFrom(Arrays.copyOfRange(data, 1, data.length));
            }
            catch (InvalidProtocolBufferException e) {
                return;
            }
            if (batch.getCompression() == PageCompression.UNRECOGNIZED) {
                return;
            }
        }
        else {
            // a payload of (data[0] >> 1) pages; the header's positions are what the pages hold, if they decode
            batch = PageBatch.newBuilder()
                    .setCompression(PageCompression.PAGE_COMPRESSION_NONE)
                    .setUncompressedSize(data.length - 1)
                    .setPageCount((data[0] & 0xFF) >> 1)
                    .setData(ByteString.copyFrom(data, 1, data.length - 1))
                    .build();
        }
        try {
            for (Page page : new PageCodec(batch.getCompression(), LIMITS).decode(batch)) {
                for (int channel = 0; channel < page.getChannelCount(); channel++) {
                    page.getBlock(channel).getRetainedSizeInBytes();
                }
            }
        }
        catch (IllegalArgumentException | MemoryLimitExceededException expected) {
            // refused
        }
    }
}
