package io.nsc.protocol.parquet;

import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * Gives every column chunk of a real Parquet file an offset index and a column index that describe
 * its data pages exactly (found by walking the page headers), written between the last chunk and a
 * new footer, as Parquet writers place them. Each index's bytes and each chunk's index fields can
 * be changed on the way, so that a test gets a file whose indexes are wrong in one chosen way.
 */
final class PageIndexAppender
{
    /** Changes applied to the first chunk's indexes and fields; the other chunks' stay correct. */
    record Changes(Consumer<OffsetIndex> offsetIndex, Consumer<ColumnIndex> columnIndex, BiFunction<byte[], String, byte[]> bytes, Consumer<ColumnChunk> chunk)
    {
        static final Changes NONE = new Changes(_ -> {}, _ -> {}, (bytes, _) -> bytes, _ -> {});

        Changes offsetIndex(Consumer<OffsetIndex> change)
        {
            return new Changes(change, columnIndex, bytes, chunk);
        }

        Changes columnIndex(Consumer<ColumnIndex> change)
        {
            return new Changes(offsetIndex, change, bytes, chunk);
        }

        /** Replaces the serialized index ("offset" or "column") by what the function returns. */
        Changes bytes(BiFunction<byte[], String, byte[]> change)
        {
            return new Changes(offsetIndex, columnIndex, change, chunk);
        }

        Changes chunk(Consumer<ColumnChunk> change)
        {
            return new Changes(offsetIndex, columnIndex, bytes, change);
        }
    }

    private PageIndexAppender() {}

    static byte[] withPageIndexes(byte[] file, Changes changes)
    {
        try {
            int footerLength = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            int footerStart = file.length - 8 - footerLength;
            FileMetaData metadata = Util.readFileMetaData(new ByteArrayInputStream(file, footerStart, footerLength));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(file, 0, footerStart);
            boolean first = true;
            for (RowGroup rowGroup : metadata.getRow_groups()) {
                for (ColumnChunk chunk : rowGroup.getColumns()) {
                    List<PageLocation> locations = dataPages(file, chunk.getMeta_data());
                    OffsetIndex offsetIndex = new OffsetIndex(locations);
                    List<ByteBuffer> empty = Collections.nCopies(locations.size(), ByteBuffer.allocate(0));
                    ColumnIndex columnIndex = new ColumnIndex(new ArrayList<>(Collections.nCopies(locations.size(), false)), new ArrayList<>(empty), new ArrayList<>(empty), BoundaryOrder.UNORDERED);
                    if (first) {
                        changes.offsetIndex().accept(offsetIndex);
                        changes.columnIndex().accept(columnIndex);
                    }
                    byte[] columnIndexBytes = serialize(columnIndex);
                    byte[] offsetIndexBytes = serialize(offsetIndex);
                    if (first) {
                        columnIndexBytes = changes.bytes().apply(columnIndexBytes, "column");
                        offsetIndexBytes = changes.bytes().apply(offsetIndexBytes, "offset");
                    }
                    chunk.setColumn_index_offset(out.size());
                    chunk.setColumn_index_length(columnIndexBytes.length);
                    out.writeBytes(columnIndexBytes);
                    chunk.setOffset_index_offset(out.size());
                    chunk.setOffset_index_length(offsetIndexBytes.length);
                    out.writeBytes(offsetIndexBytes);
                    if (first) {
                        changes.chunk().accept(chunk);
                        first = false;
                    }
                }
            }
            ByteArrayOutputStream footer = new ByteArrayOutputStream();
            Util.writeFileMetaData(metadata, footer);
            out.writeBytes(footer.toByteArray());
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
            out.writeBytes("PAR1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            return out.toByteArray();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<PageLocation> dataPages(byte[] file, ColumnMetaData metadata)
            throws IOException
    {
        List<PageLocation> locations = new ArrayList<>();
        long position = ParquetFooterParser.chunkStart(metadata);
        long end = position + metadata.getTotal_compressed_size();
        long rows = 0;
        while (position < end && rows < metadata.getNum_values()) {
            ByteArrayInputStream in = new ByteArrayInputStream(file, (int) position, (int) (end - position));
            PageHeader header = Util.readPageHeader(in);
            long headerLength = (end - position) - in.available();
            long size = headerLength + header.getCompressed_page_size();
            if (header.getType() == PageType.DATA_PAGE || header.getType() == PageType.DATA_PAGE_V2) {
                locations.add(new PageLocation(position, (int) size, rows));
                rows += header.getType() == PageType.DATA_PAGE ? header.getData_page_header().getNum_values() : header.getData_page_header_v2().getNum_values();
            }
            position += size;
        }
        return locations;
    }

    private static byte[] serialize(OffsetIndex index)
            throws IOException
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Util.writeOffsetIndex(index, out);
        return out.toByteArray();
    }

    private static byte[] serialize(ColumnIndex index)
            throws IOException
    {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Util.writeColumnIndex(index, out);
        return out.toByteArray();
    }
}
