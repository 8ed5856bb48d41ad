package io.nsc.tools.load;

import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.ParquetFooterParser.Footer;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.RowGroup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Gives bare LZ4 pages Hadoop's LZ4 framing, the only LZ4 Trino 476's Parquet reader decodes.
 * Bare LZ4 pages are what LZ4_RAW names (pyarrow, DuckDB and parquet-java 1.13+ write it for
 * "lz4"), and what Trino's own writer writes under the codec LZ4. Codec LZ4 as parquet-java wrote
 * it for years is the same block behind two big-endian lengths, the uncompressed and the
 * compressed one. So nothing is decompressed or compressed again: each page grows by 8 bytes and
 * the file's offsets move ({@link ParquetPageRewriter}). The values, encodings, statistics and row
 * groups are the file's; a Trino-written file gets the footer key
 * {@link ParquetFooterParser#HADOOP_LZ4_FRAMING_KEY}, so that its LZ4 pages are known as framed.
 *
 * <p>Each page is one frame, however large; Trino's reader takes that, Hadoop's own decompressor
 * (parquet-java) only up to its buffer size (256kB by default), which nsc never uses.
 */
public final class Lz4Reframing
{
    private Lz4Reframing() {}

    /**
     * Whether the file has bare LZ4 pages, in a file the loader could take otherwise: a chunk
     * without metadata (encrypted) or in another file is left for the parser to refuse.
     */
    public static boolean isNeeded(FileMetaData metadata)
    {
        List<ColumnChunk> chunks = chunks(metadata);
        if (chunks.stream().anyMatch(chunk -> !chunk.isSetMeta_data() || (chunk.isSetFile_path() && !chunk.getFile_path().isEmpty()))) {
            return false;
        }
        boolean bareLz4 = ParquetFooterParser.writesBareLz4Blocks(metadata);
        return chunks.stream().map(chunk -> chunk.getMeta_data().getCodec())
                .anyMatch(codec -> codec == CompressionCodec.LZ4_RAW || (bareLz4 && codec == CompressionCodec.LZ4));
    }

    /**
     * Writes {@code target}, which must not exist: {@code source} with its bare LZ4 pages as
     * Hadoop-framed LZ4. {@code footer} is {@code source}'s, and changed to the target's.
     */
    public static void reframe(Path source, Footer footer, Path target)
            throws IOException
    {
        FileMetaData metadata = footer.metadata();
        boolean bareLz4 = ParquetFooterParser.writesBareLz4Blocks(metadata);
        if (bareLz4) {
            metadata.addToKey_value_metadata(new KeyValue(ParquetFooterParser.HADOOP_LZ4_FRAMING_KEY).setValue(ParquetFooterParser.HADOOP_LZ4_FRAMING));
        }
        ParquetPageRewriter.rewrite(source, footer, target, new ParquetPageRewriter.Recompression()
        {
            @Override
            public Optional<CompressionCodec> targetCodec(CompressionCodec codec)
            {
                boolean bareBlocks = codec == CompressionCodec.LZ4_RAW || (bareLz4 && codec == CompressionCodec.LZ4);
                return bareBlocks ? Optional.of(CompressionCodec.LZ4) : Optional.empty();
            }

            @Override
            public byte[] recompress(byte[] compressed, int uncompressedSize)
            {
                return hadoopFramed(compressed, uncompressedSize);
            }
        });
    }

    /** Hadoop's BlockCompressorStream framing of one LZ4 block: its uncompressed length, its length, the block. */
    static byte[] hadoopFramed(byte[] block, int uncompressedSize)
    {
        return ByteBuffer.allocate(2 * Integer.BYTES + block.length)
                .putInt(uncompressedSize)
                .putInt(block.length)
                .put(block)
                .array();
    }

    private static List<ColumnChunk> chunks(FileMetaData metadata)
    {
        List<RowGroup> rowGroups = metadata.isSetRow_groups() ? metadata.getRow_groups() : List.of();
        return rowGroups.stream().flatMap(rowGroup -> rowGroup.getColumns().stream()).toList();
    }
}
