package io.nsc.parquet;

import io.airlift.compress.v3.Compressor;
import io.airlift.compress.v3.lz4.Lz4Compressor;
import io.airlift.compress.v3.lzo.LzoCompressor;
import io.airlift.compress.v3.snappy.SnappyCompressor;
import io.airlift.compress.v3.zstd.ZstdCompressor;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.trino.parquet.ParquetCompressionUtils;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSourceId;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Holds the codecs nsc accepts at load ({@link ParquetFooterParser#DECODABLE_CODECS}) to those
 * trino-parquet's reader decodes, through the very call its page reader makes: every accepted
 * codec decodes a page compressed as Parquet writers frame it, every other one is refused. When a
 * Trino upgrade learns a codec (LZ4_RAW, say), this fails until the loader accepts it too.
 */
final class TestTrinoParquetCodecs
{
    private static final ParquetDataSourceId SOURCE = new ParquetDataSourceId("test");
    private static final byte[] PAGE = "nsc near-storage compute, a page of Parquet values; ".repeat(400).getBytes(UTF_8);

    @Test
    void testTheLoaderAcceptsExactlyWhatTheReaderDecodes()
            throws IOException
    {
        for (CompressionCodec codec : CompressionCodec.values()) {
            Slice compressed = Slices.wrappedBuffer(compress(codec, PAGE));
            if (ParquetFooterParser.DECODABLE_CODECS.contains(codec)) {
                Slice decompressed = ParquetCompressionUtils.decompress(SOURCE, codec, compressed, PAGE.length);
                assertThat(decompressed.getBytes()).as(codec.name()).isEqualTo(PAGE);
            }
            else {
                assertThatThrownBy(() -> ParquetCompressionUtils.decompress(SOURCE, codec, compressed, PAGE.length))
                        .as("%s decodes now: add it to ParquetFooterParser.DECODABLE_CODECS", codec)
                        .isInstanceOf(ParquetCorruptionException.class)
                        .hasMessageContaining("Codec not supported in Parquet: " + codec);
            }
        }
    }

    /** The page as Parquet writers compress it: LZ4 and LZO in Hadoop's block framing (parquet-java's codecs). */
    private static byte[] compress(CompressionCodec codec, byte[] data)
            throws IOException
    {
        return switch (codec) {
            case UNCOMPRESSED -> data;
            case SNAPPY -> block(SnappyCompressor.create(), data);
            case ZSTD -> block(ZstdCompressor.create(), data);
            case GZIP -> gzip(data);
            case LZ4 -> hadoopFramed(block(Lz4Compressor.create(), data), data.length);
            case LZO -> hadoopFramed(block(new LzoCompressor(), data), data.length);
            // LZ4_RAW is a bare LZ4 block; BROTLI has no compressor here, and is refused before decoding
            case LZ4_RAW -> block(Lz4Compressor.create(), data);
            case BROTLI -> data;
        };
    }

    private static byte[] block(Compressor compressor, byte[] data)
    {
        byte[] output = new byte[compressor.maxCompressedLength(data.length)];
        int length = compressor.compress(data, 0, data.length, output, 0, output.length);
        return Arrays.copyOf(output, length);
    }

    /** Hadoop's BlockCompressorStream: the uncompressed length, then one length-prefixed block, big-endian. */
    private static byte[] hadoopFramed(byte[] block, int uncompressedLength)
    {
        return ByteBuffer.allocate(2 * Integer.BYTES + block.length)
                .putInt(uncompressedLength)
                .putInt(block.length)
                .put(block)
                .array();
    }

    private static byte[] gzip(byte[] data)
            throws IOException
    {
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(output)) {
            gzip.write(data);
        }
        return output.toByteArray();
    }
}
