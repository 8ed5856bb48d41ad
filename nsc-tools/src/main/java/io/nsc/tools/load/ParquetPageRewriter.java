package io.nsc.tools.load;

import com.google.common.io.ByteStreams;
import com.google.common.io.CountingInputStream;
import com.google.common.io.CountingOutputStream;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.ParquetFooterParser.Footer;
import io.nsc.protocol.parquet.ParquetLimits;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.lang.Math.toIntExact;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * Copies a Parquet file page by page, giving the pages of the column chunks a {@link Recompression}
 * takes a new compressed body and codec, and copying everything else as it is. Every offset that
 * moves is moved: the footer's chunk, page and row-group offsets, the offset indexes' page
 * locations (rewritten), and the column indexes and Bloom filters (copied after the data).
 * Values, encodings, statistics and row groups stay as they are. One page is in memory at a time.
 */
final class ParquetPageRewriter
{
    private static final byte[] MAGIC = "PAR1".getBytes(US_ASCII);
    private static final int BUFFER_BYTES = 1 << 16;

    /** What becomes of a chunk's pages. */
    interface Recompression
    {
        /** The codec the chunk's pages are rewritten to, or empty to copy the chunk unchanged. */
        Optional<CompressionCodec> targetCodec(CompressionCodec codec);

        /** The new compressed form of {@code compressed}, which decompresses to {@code uncompressedSize} bytes. */
        byte[] recompress(byte[] compressed, int uncompressedSize)
                throws IOException;
    }

    private ParquetPageRewriter() {}

    /**
     * Writes {@code target} (which must not exist) from {@code source}, whose footer
     * {@link ParquetFooterParser#readFooter} read; the footer is changed in place to the target's.
     *
     * @throws IOException when the source cannot be read or its pages and indexes do not fit where the footer puts them
     */
    static void rewrite(Path source, Footer footer, Path target, Recompression recompression)
            throws IOException
    {
        requireNonNull(recompression, "recompression is null");
        try (FileChannel input = FileChannel.open(source, READ);
                CountingOutputStream output = new CountingOutputStream(new BufferedOutputStream(Files.newOutputStream(target, CREATE_NEW, WRITE), BUFFER_BYTES))) {
            new Copy(input, footer, output, recompression).run();
        }
    }

    private static final class Copy
    {
        private final FileChannel input;
        private final FileMetaData metadata;
        private final long dataEnd;
        private final CountingOutputStream output;
        private final Recompression recompression;
        // per recompressed chunk with an offset index: each page's new location (offset and size with its header) by its old offset
        private final Map<ColumnChunk, Map<Long, PageLocation>> movedPages = new IdentityHashMap<>();
        // per copied chunk with an offset index: how far its pages moved, sizes unchanged
        private final Map<ColumnChunk, Long> shifts = new IdentityHashMap<>();

        Copy(FileChannel input, Footer footer, CountingOutputStream output, Recompression recompression)
        {
            this.input = input;
            this.metadata = footer.metadata();
            this.dataEnd = footer.start();
            this.output = output;
            this.recompression = recompression;
        }

        void run()
                throws IOException
        {
            output.write(MAGIC);
            List<RowGroup> rowGroups = metadata.isSetRow_groups() ? metadata.getRow_groups() : List.of();
            for (RowGroup rowGroup : rowGroups) {
                copyRowGroup(rowGroup);
            }
            // after all data, as writers place them: Bloom filters, column indexes, offset indexes
            for (ColumnChunk chunk : chunks(rowGroups)) {
                ColumnMetaData chunkMetadata = chunk.getMeta_data();
                if (chunkMetadata.isSetBloom_filter_offset()) {
                    chunkMetadata.setBloom_filter_offset(copyBloomFilter(chunkMetadata));
                }
            }
            for (ColumnChunk chunk : chunks(rowGroups)) {
                if (chunk.isSetColumn_index_offset()) {
                    long start = output.getCount();
                    copy(chunk.getColumn_index_offset(), chunk.getColumn_index_length());
                    chunk.setColumn_index_offset(start);
                }
            }
            for (ColumnChunk chunk : chunks(rowGroups)) {
                if (chunk.isSetOffset_index_offset()) {
                    writeOffsetIndex(chunk);
                }
            }
            long footerStart = output.getCount();
            Util.writeFileMetaData(metadata, output);
            long footerLength = output.getCount() - footerStart;
            output.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN).putInt(toIntExact(footerLength)).array());
            output.write(MAGIC);
        }

        private void copyRowGroup(RowGroup rowGroup)
                throws IOException
        {
            long firstChunkStart = -1;
            long compressedBytes = 0;
            long uncompressedGrowth = 0;
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                ColumnMetaData chunkMetadata = chunk.getMeta_data();
                long start = ParquetFooterParser.chunkStart(chunkMetadata);
                long length = chunkMetadata.getTotal_compressed_size();
                if (length == 0 && start <= 0) {
                    // an empty chunk without pages (a 0-row row group): nothing to copy or move
                    continue;
                }
                checkRange("column chunk", start, length);
                long newStart = output.getCount();
                firstChunkStart = firstChunkStart < 0 ? newStart : firstChunkStart;
                Optional<CompressionCodec> targetCodec = recompression.targetCodec(chunkMetadata.getCodec());
                if (targetCodec.isPresent()) {
                    uncompressedGrowth += recompressChunk(chunk, start, length, targetCodec.get());
                }
                else {
                    copyChunk(chunk, start, length, newStart);
                }
                long end = start + length;
                long newLength = output.getCount() - newStart;
                chunkMetadata.setTotal_compressed_size(newLength);
                compressedBytes += newLength;
                // a pointer no reader uses, which writers set to the chunk's start or its end
                chunk.setFile_offset(chunk.getFile_offset() == end ? newStart + newLength : newStart);
            }
            if (firstChunkStart >= 0 && rowGroup.isSetFile_offset()) {
                rowGroup.setFile_offset(firstChunkStart);
            }
            if (rowGroup.isSetTotal_compressed_size()) {
                rowGroup.setTotal_compressed_size(compressedBytes);
            }
            rowGroup.setTotal_byte_size(rowGroup.getTotal_byte_size() + uncompressedGrowth);
        }

        private void copyChunk(ColumnChunk chunk, long start, long length, long newStart)
                throws IOException
        {
            long shift = newStart - start;
            ColumnMetaData chunkMetadata = chunk.getMeta_data();
            copy(start, length);
            chunkMetadata.setData_page_offset(chunkMetadata.getData_page_offset() + shift);
            if (chunkMetadata.isSetDictionary_page_offset() && chunkMetadata.getDictionary_page_offset() > 0) {
                chunkMetadata.setDictionary_page_offset(chunkMetadata.getDictionary_page_offset() + shift);
            }
            if (chunkMetadata.isSetIndex_page_offset()) {
                chunkMetadata.setIndex_page_offset(chunkMetadata.getIndex_page_offset() + shift);
            }
            if (chunk.isSetOffset_index_offset()) {
                shifts.put(chunk, shift);
            }
        }

        /**
         * @return how much the chunk's headers grew (they are counted in its uncompressed size)
         */
        private long recompressChunk(ColumnChunk chunk, long start, long length, CompressionCodec targetCodec)
                throws IOException
        {
            ColumnMetaData chunkMetadata = chunk.getMeta_data();
            Map<Long, PageLocation> pages = new HashMap<>();
            long headerGrowth = 0;
            Long firstDataPage = null;
            input.position(start);
            CountingInputStream pagesIn = new CountingInputStream(ByteStreams.limit(new BufferedInputStream(Channels.newInputStream(input), BUFFER_BYTES), length));
            while (pagesIn.getCount() < length) {
                long pageStart = start + pagesIn.getCount();
                PageHeader header = Util.readPageHeader(pagesIn);
                long headerLength = start + pagesIn.getCount() - pageStart;
                byte[] body = readPageBody(pagesIn, header, length - pagesIn.getCount(), pageStart);
                byte[] newBody = recompressPage(header, body);
                header.setCompressed_page_size(newBody.length);
                // a CRC covers the compressed bytes, which are not the same any more
                header.unsetCrc();
                long newPageStart = output.getCount();
                Util.writePageHeader(header, output);
                long newHeaderLength = output.getCount() - newPageStart;
                output.write(newBody);
                headerGrowth += newHeaderLength - headerLength;
                pages.put(pageStart, new PageLocation(newPageStart, toIntExact(output.getCount() - newPageStart), 0));
                if (header.getType() == PageType.DICTIONARY_PAGE) {
                    chunkMetadata.setDictionary_page_offset(newPageStart);
                }
                else if (firstDataPage == null && header.getType() != PageType.INDEX_PAGE) {
                    firstDataPage = newPageStart;
                }
            }
            if (firstDataPage == null) {
                throw new IOException("column chunk at %s has no data page".formatted(start));
            }
            chunkMetadata.setData_page_offset(firstDataPage);
            chunkMetadata.setCodec(targetCodec);
            chunkMetadata.setTotal_uncompressed_size(chunkMetadata.getTotal_uncompressed_size() + headerGrowth);
            if (chunk.isSetOffset_index_offset()) {
                movedPages.put(chunk, pages);
            }
            return headerGrowth;
        }

        private static byte[] readPageBody(InputStream pagesIn, PageHeader header, long remaining, long pageStart)
                throws IOException
        {
            int size = header.getCompressed_page_size();
            if (size < 0 || size > remaining || size > ParquetLimits.DEFAULT.maxPageBytes()
                    || header.getUncompressed_page_size() < 0 || header.getUncompressed_page_size() > ParquetLimits.DEFAULT.maxPageBytes()) {
                throw new IOException("page at %s declares %s compressed and %s uncompressed bytes, beyond its column chunk or the %s bytes a page may have"
                        .formatted(pageStart, size, header.getUncompressed_page_size(), ParquetLimits.DEFAULT.maxPageBytes()));
            }
            return readFully(pagesIn, size);
        }

        /** Recompresses what the page compresses: all of a v1 or dictionary page, the values after a v2 page's levels. */
        private byte[] recompressPage(PageHeader header, byte[] body)
                throws IOException
        {
            return switch (header.getType()) {
                case DATA_PAGE, DICTIONARY_PAGE -> recompression.recompress(body, header.getUncompressed_page_size());
                case DATA_PAGE_V2 -> recompressValues(header, body);
                // no writer writes index pages, and their contents are not specified: kept as they are
                case INDEX_PAGE -> body;
            };
        }

        private byte[] recompressValues(PageHeader header, byte[] body)
                throws IOException
        {
            DataPageHeaderV2 v2 = header.getData_page_header_v2();
            long levels = (long) v2.getRepetition_levels_byte_length() + v2.getDefinition_levels_byte_length();
            if (levels < 0 || levels > body.length || levels > header.getUncompressed_page_size()) {
                throw new IOException("data page v2 declares %s bytes of levels in a page of %s".formatted(levels, body.length));
            }
            if ((v2.isSetIs_compressed() && !v2.isIs_compressed()) || levels == body.length) {
                // values stored uncompressed, or none at all
                return body;
            }
            int levelBytes = (int) levels;
            byte[] values = recompression.recompress(Arrays.copyOfRange(body, levelBytes, body.length), header.getUncompressed_page_size() - levelBytes);
            byte[] page = new byte[levelBytes + values.length];
            System.arraycopy(body, 0, page, 0, levelBytes);
            System.arraycopy(values, 0, page, levelBytes, values.length);
            return page;
        }

        private long copyBloomFilter(ColumnMetaData chunkMetadata)
                throws IOException
        {
            long start = chunkMetadata.getBloom_filter_offset();
            long length;
            if (chunkMetadata.isSetBloom_filter_length()) {
                length = chunkMetadata.getBloom_filter_length();
            }
            else {
                // older writers record no length: it is the header's and the bitset's it declares
                checkRange("Bloom filter", start, 1);
                input.position(start);
                CountingInputStream headerIn = new CountingInputStream(ByteStreams.limit(new BufferedInputStream(Channels.newInputStream(input), BUFFER_BYTES), dataEnd - start));
                long bitsetBytes = Util.readBloomFilterHeader(headerIn).getNumBytes();
                length = headerIn.getCount() + bitsetBytes;
            }
            long newStart = output.getCount();
            copy(start, length);
            return newStart;
        }

        private void writeOffsetIndex(ColumnChunk chunk)
                throws IOException
        {
            long start = chunk.getOffset_index_offset();
            int length = chunk.getOffset_index_length();
            checkRange("offset index", start, length);
            input.position(start);
            OffsetIndex offsetIndex = Util.readOffsetIndex(ByteStreams.limit(new BufferedInputStream(Channels.newInputStream(input), BUFFER_BYTES), length));
            Map<Long, PageLocation> pages = movedPages.get(chunk);
            long shift = shifts.getOrDefault(chunk, 0L);
            List<PageLocation> locations = new ArrayList<>();
            for (PageLocation location : offsetIndex.getPage_locations()) {
                if (pages == null) {
                    locations.add(new PageLocation(location.getOffset() + shift, location.getCompressed_page_size(), location.getFirst_row_index()));
                    continue;
                }
                PageLocation moved = pages.get(location.getOffset());
                if (moved == null) {
                    throw new IOException("the offset index of the column chunk at %s names a page at %s, where none starts".formatted(ParquetFooterParser.chunkStart(chunk.getMeta_data()), location.getOffset()));
                }
                locations.add(new PageLocation(moved.getOffset(), moved.getCompressed_page_size(), location.getFirst_row_index()));
            }
            offsetIndex.setPage_locations(locations);
            long newStart = output.getCount();
            Util.writeOffsetIndex(offsetIndex, output);
            chunk.setOffset_index_offset(newStart);
            chunk.setOffset_index_length(toIntExact(output.getCount() - newStart));
        }

        private void copy(long start, long length)
                throws IOException
        {
            checkRange("data", start, length);
            input.position(start);
            long copied = ByteStreams.limit(Channels.newInputStream(input), length).transferTo(output);
            if (copied != length) {
                throw new EOFException("%s bytes at %s: the file ends after %s".formatted(length, start, copied));
            }
        }

        private void checkRange(String what, long start, long length)
                throws IOException
        {
            if (start < MAGIC.length || length < 0 || start > dataEnd - length) {
                throw new IOException("%s at [%s, %s + %s) lies outside the data at [4, %s)".formatted(what, start, start, length, dataEnd));
            }
        }

        private static List<ColumnChunk> chunks(List<RowGroup> rowGroups)
        {
            return rowGroups.stream().flatMap(rowGroup -> rowGroup.getColumns().stream()).toList();
        }
    }

    private static byte[] readFully(InputStream in, int size)
            throws IOException
    {
        byte[] bytes = in.readNBytes(size);
        if (bytes.length != size) {
            throw new EOFException("a page of %s bytes ends after %s".formatted(size, bytes.length));
        }
        return bytes;
    }
}
