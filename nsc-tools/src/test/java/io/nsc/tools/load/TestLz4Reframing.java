package io.nsc.tools.load;

import com.google.common.io.Resources;
import io.airlift.compress.v3.lz4.Lz4Compressor;
import io.airlift.compress.v3.zstd.ZstdDecompressor;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.ParquetFooterParser.Footer;
import io.nsc.protocol.parquet.ParquetLimits;
import io.nsc.protocol.parquet.PositionalReader;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.stats.CompactFileStats;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static java.lang.Math.toIntExact;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * LZ4_RAW files reframed as Hadoop's LZ4: the pyarrow fixtures (data page v1 and v2, dictionary
 * and plain) and a file with page indexes, each checked against the same data in a codec nsc
 * reads as it is. Every value decodes through trino-parquet (the loader's verification) to the
 * same distinct-value sketches, the stats are the same, the pages pass the upload's validation,
 * and every page location of an offset index points at its page.
 */
final class TestLz4Reframing
{
    @TempDir
    Path directory;

    @Test
    void testPyarrowLz4FilesDecodeLikeTheirZstdTwins()
            throws Exception
    {
        for (String variant : List.of("v1_dict", "v1_plain", "v2_dict", "v2_plain")) {
            Path lz4Raw = fixture("all_types_lz4_%s.parquet".formatted(variant));
            assertThatThrownBy(() -> ParquetFooterParser.parse(lz4Raw)).hasMessageContaining("compression codec LZ4_RAW cannot be decoded");
            Path reframed = reframe(lz4Raw);
            assertSameData(reframed, fixture("all_types_zstd_%s.parquet".formatted(variant)));
        }
    }

    @Test
    void testOffsetIndexesFollowTheirPages()
            throws Exception
    {
        // two row groups of 10,000 rows in pages of about 4kB, a column and an offset index per chunk
        Path zstd = fixture("page_index.parquet");
        Path lz4Raw = directory.resolve("page_index_lz4_raw.parquet");
        ParquetPageRewriter.rewrite(zstd, ParquetFooterParser.readFooter(zstd), lz4Raw, new ZstdToLz4Raw());
        assertThat(codecs(lz4Raw)).containsOnly(CompressionCodec.LZ4_RAW);

        Path reframed = reframe(lz4Raw);
        assertSameData(reframed, zstd);
        FileMetaData before = ParquetFooterParser.readFooter(zstd).metadata();
        FileMetaData after = ParquetFooterParser.readFooter(reframed).metadata();
        int offsetIndexes = 0;
        for (int rowGroup = 0; rowGroup < after.getRow_groupsSize(); rowGroup++) {
            for (int column = 0; column < after.getRow_groups().get(rowGroup).getColumnsSize(); column++) {
                ColumnChunk original = before.getRow_groups().get(rowGroup).getColumns().get(column);
                ColumnChunk moved = after.getRow_groups().get(rowGroup).getColumns().get(column);
                assertThat(bytes(reframed, moved.getColumn_index_offset(), moved.getColumn_index_length()))
                        .isEqualTo(bytes(zstd, original.getColumn_index_offset(), original.getColumn_index_length()));
                assertOffsetIndexMatchesPages(reframed, moved);
                offsetIndexes++;
            }
        }
        assertThat(offsetIndexes).isEqualTo(6);
    }

    @Test
    void testFilesWithoutLz4RawNeedNoReframing()
            throws Exception
    {
        assertThat(Lz4Reframing.isNeeded(ParquetFooterParser.readFooter(fixture("all_types_zstd_v1_dict.parquet")).metadata())).isFalse();
        assertThat(Lz4Reframing.isNeeded(ParquetFooterParser.readFooter(fixture("all_types_lz4_v1_dict.parquet")).metadata())).isTrue();
    }

    private Path reframe(Path lz4Raw)
            throws Exception
    {
        Footer footer = ParquetFooterParser.readFooter(lz4Raw);
        assertThat(Lz4Reframing.isNeeded(footer.metadata())).isTrue();
        Path reframed = directory.resolve("reframed-" + lz4Raw.getFileName());
        Lz4Reframing.reframe(lz4Raw, footer, reframed);
        assertThat(codecs(reframed)).containsOnly(CompressionCodec.LZ4);
        return reframed;
    }

    /** The checks a storage node makes at upload, then the loader's decoding of every value. */
    private static void assertSameData(Path actual, Path expected)
            throws Exception
    {
        ParquetFileSummary actualSummary = parseAndValidatePages(actual);
        ParquetFileSummary expectedSummary = ParquetFooterParser.parse(expected);
        assertThat(actualSummary.columns()).isEqualTo(expectedSummary.columns());
        assertThat(actualSummary.rowCount()).isEqualTo(expectedSummary.rowCount());
        CompactFileStats actualStats = actualSummary.stats();
        CompactFileStats expectedStats = expectedSummary.stats();
        assertThat(actualStats.rowGroupCount()).isEqualTo(expectedStats.rowGroupCount());
        for (int rowGroup = 0; rowGroup < actualStats.rowGroupCount(); rowGroup++) {
            for (int column = 0; column < actualStats.columnCount(); column++) {
                assertThat(actualStats.min(rowGroup, column)).isEqualTo(expectedStats.min(rowGroup, column));
                assertThat(actualStats.max(rowGroup, column)).isEqualTo(expectedStats.max(rowGroup, column));
                assertThat(actualStats.nullCount(rowGroup, column)).isEqualTo(expectedStats.nullCount(rowGroup, column));
            }
        }
        List<Column> columns = actualSummary.columns().stream().map(TestLz4Reframing::toColumn).toList();
        DataVerifier.Verified actualValues = DataVerifier.verify(actual, columns);
        DataVerifier.Verified expectedValues = DataVerifier.verify(expected, columns);
        assertThat(actualValues.problem()).as(actual.toString()).isEmpty();
        assertThat(expectedValues.problem()).isEmpty();
        assertThat(actualValues.sketches()).isEqualTo(expectedValues.sketches());
    }

    private static void assertOffsetIndexMatchesPages(Path file, ColumnChunk chunk)
            throws IOException
    {
        OffsetIndex offsetIndex = Util.readOffsetIndex(new ByteArrayInputStream(bytes(file, chunk.getOffset_index_offset(), chunk.getOffset_index_length())));
        assertThat(offsetIndex.getPage_locations()).isNotEmpty();
        for (PageLocation location : offsetIndex.getPage_locations()) {
            byte[] page = bytes(file, location.getOffset(), location.getCompressed_page_size());
            ByteArrayInputStream in = new ByteArrayInputStream(page);
            PageHeader header = Util.readPageHeader(in);
            // the location spans exactly one header and its body
            assertThat(page.length - in.available() + header.getCompressed_page_size()).isEqualTo(location.getCompressed_page_size());
        }
    }

    private static List<CompressionCodec> codecs(Path file)
            throws Exception
    {
        return ParquetFooterParser.readFooter(file).metadata().getRow_groups().stream()
                .flatMap(rowGroup -> rowGroup.getColumns().stream())
                .map(chunk -> chunk.getMeta_data().getCodec())
                .toList();
    }

    private static ParquetFileSummary parseAndValidatePages(Path file)
            throws IOException, InvalidParquetFileException
    {
        return ParquetFooterParser.parseAndValidatePages(PositionalReader.ofBytes(Files.readAllBytes(file)), Files.size(file), file.getFileName().toString(), ParquetLimits.DEFAULT);
    }

    private static byte[] bytes(Path file, long offset, int length)
            throws IOException
    {
        byte[] all = Files.readAllBytes(file);
        return Arrays.copyOfRange(all, toIntExact(offset), toIntExact(offset + length));
    }

    private Path fixture(String name)
            throws IOException
    {
        Path target = directory.resolve(name);
        if (!Files.exists(target)) {
            Files.write(target, Resources.toByteArray(Resources.getResource("parquet/" + name)));
        }
        return target;
    }

    private static Column toColumn(ColumnSpec column)
    {
        return Column.newBuilder().setName(column.name()).setType(column.type()).build();
    }

    /** ZSTD pages as LZ4_RAW, for files of page indexes that no fixture has in LZ4_RAW. */
    private static final class ZstdToLz4Raw
            implements ParquetPageRewriter.Recompression
    {
        @Override
        public Optional<CompressionCodec> targetCodec(CompressionCodec codec)
        {
            return codec == CompressionCodec.ZSTD ? Optional.of(CompressionCodec.LZ4_RAW) : Optional.empty();
        }

        @Override
        public byte[] recompress(byte[] compressed, int uncompressedSize)
        {
            byte[] values = new byte[uncompressedSize];
            int length = ZstdDecompressor.create().decompress(compressed, 0, compressed.length, values, 0, values.length);
            assertThat(length).isEqualTo(uncompressedSize);
            Lz4Compressor compressor = Lz4Compressor.create();
            byte[] block = new byte[compressor.maxCompressedLength(values.length)];
            int blockLength = compressor.compress(values, 0, values.length, block, 0, block.length);
            return Arrays.copyOf(block, blockLength);
        }
    }
}
