package io.nsc.tools.load;

import io.nsc.protocol.parquet.ParquetFooterParser.Footer;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Gives LZ4_RAW pages Hadoop's LZ4 framing, the only LZ4 Trino 476's Parquet reader decodes.
 * LZ4_RAW (what pyarrow, DuckDB and parquet-java 1.13+ write for "lz4") stores each page as one
 * bare LZ4 block; codec LZ4 as parquet-java wrote it for years is the same block behind two
 * big-endian lengths, the uncompressed and the compressed one. So nothing is decompressed or
 * compressed again: each page grows by 8 bytes and the file's offsets move
 * ({@link ParquetPageRewriter}). The values, encodings, statistics and row groups are the file's.
 *
 * <p>Each page is one frame, however large; Trino's reader takes that, Hadoop's own decompressor
 * (parquet-java) only up to its buffer size (256kB by default), which nsc never uses.
 */
final class Lz4RawReframing
{
    private Lz4RawReframing() {}

    /**
     * Whether any column chunk of the file is LZ4_RAW, in a file the loader could take otherwise:
     * a chunk without metadata (encrypted) or in another file is left for the parser to refuse.
     */
    static boolean isNeeded(FileMetaData metadata)
    {
        List<RowGroup> rowGroups = metadata.isSetRow_groups() ? metadata.getRow_groups() : List.of();
        List<ColumnChunk> chunks = rowGroups.stream().flatMap(rowGroup -> rowGroup.getColumns().stream()).toList();
        if (chunks.stream().anyMatch(chunk -> !chunk.isSetMeta_data() || (chunk.isSetFile_path() && !chunk.getFile_path().isEmpty()))) {
            return false;
        }
        return chunks.stream().anyMatch(chunk -> chunk.getMeta_data().getCodec() == CompressionCodec.LZ4_RAW);
    }

    /**
     * Writes {@code target}, which must not exist: {@code source} with its LZ4_RAW column chunks as
     * Hadoop-framed LZ4. Its footer must hold column metadata in every chunk (unencrypted, none in
     * other files), as nsc requires anyway.
     */
    static void reframe(Path source, Footer footer, Path target)
            throws IOException
    {
        ParquetPageRewriter.rewrite(source, footer, target, new ParquetPageRewriter.Recompression()
        {
            @Override
            public Optional<CompressionCodec> targetCodec(CompressionCodec codec)
            {
                return codec == CompressionCodec.LZ4_RAW ? Optional.of(CompressionCodec.LZ4) : Optional.empty();
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
}
