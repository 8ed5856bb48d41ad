package io.nsc.protocol.parquet;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Rewrites the header of the first page of the first column chunk of a real Parquet file, and
 * fixes the footer's offsets and sizes for the header's new length: the result is a file whose
 * footer is sound and whose one page header says what a test wants (a huge size, say).
 */
public final class PageHeaderRewriter
{
    private PageHeaderRewriter() {}

    public static byte[] rewriteFirstPageHeader(byte[] file, Consumer<PageHeader> change)
    {
        try {
            int footerLength = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            int footerStart = file.length - 8 - footerLength;
            FileMetaData metadata = Util.readFileMetaData(new ByteArrayInputStream(file, footerStart, footerLength));
            ColumnMetaData first = metadata.getRow_groups().getFirst().getColumns().getFirst().getMeta_data();
            int headerStart = (int) (first.isSetDictionary_page_offset() && first.getDictionary_page_offset() > 0
                    ? Math.min(first.getDictionary_page_offset(), first.getData_page_offset())
                    : first.getData_page_offset());
            ByteArrayInputStream in = new ByteArrayInputStream(file, headerStart, file.length - headerStart);
            PageHeader header = Util.readPageHeader(in);
            int headerEnd = file.length - in.available();
            change.accept(header);
            ByteArrayOutputStream newHeader = new ByteArrayOutputStream();
            Util.writePageHeader(header, newHeader);
            long delta = newHeader.size() - (headerEnd - headerStart);

            first.setTotal_compressed_size(first.getTotal_compressed_size() + delta);
            for (RowGroup rowGroup : metadata.getRow_groups()) {
                if (rowGroup.isSetFile_offset() && rowGroup.getFile_offset() > headerStart) {
                    rowGroup.setFile_offset(rowGroup.getFile_offset() + delta);
                }
                for (ColumnChunk chunk : rowGroup.getColumns()) {
                    ColumnMetaData column = chunk.getMeta_data();
                    if (column.getData_page_offset() > headerStart) {
                        column.setData_page_offset(column.getData_page_offset() + delta);
                    }
                    if (column.isSetDictionary_page_offset() && column.getDictionary_page_offset() > headerStart) {
                        column.setDictionary_page_offset(column.getDictionary_page_offset() + delta);
                    }
                    if (chunk.getFile_offset() > headerStart) {
                        chunk.setFile_offset(chunk.getFile_offset() + delta);
                    }
                    // indexes are not needed by nsc: drop them rather than move them
                    chunk.unsetColumn_index_offset();
                    chunk.unsetColumn_index_length();
                    chunk.unsetOffset_index_offset();
                    chunk.unsetOffset_index_length();
                }
            }
            ByteArrayOutputStream footer = new ByteArrayOutputStream();
            Util.writeFileMetaData(metadata, footer);

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(file, 0, headerStart);
            out.writeBytes(newHeader.toByteArray());
            out.write(file, headerEnd, footerStart - headerEnd);
            out.writeBytes(footer.toByteArray());
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.size()).array());
            out.writeBytes(Arrays.copyOfRange(file, file.length - 4, file.length));
            return out.toByteArray();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
