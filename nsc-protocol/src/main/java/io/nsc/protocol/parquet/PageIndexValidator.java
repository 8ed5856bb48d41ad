package io.nsc.protocol.parquet;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;

import static io.nsc.protocol.parquet.InvalidParquetFileException.invalidFile;
import static java.util.Objects.requireNonNull;

/**
 * Checks a column chunk's page indexes against the pages {@link PageHeaderValidator} walked, before a
 * node accepts the file. A scan that filters by a page index seeks straight to the pages its offset
 * index names and reads the header it finds there, so every location must be exactly a data page
 * the walk validated (its offset, its size with the header, its first row): one that pointed into the
 * middle of a page would have the reader parse page data as a header, whose sizes no check has seen.
 * The indexes themselves must lie between the file's magic and its footer, be no larger than a page
 * may be, decode within that bound, and describe as many pages as the chunk has.
 */
final class PageIndexValidator
{
    private final PositionalReader reader;
    private final ParquetLimits limits;
    private final long footerStart;
    private final String displayName;

    /** A data page as the walk found it: where its header starts, its bytes with the header, its first row. */
    record DataPage(long offset, long size, long firstRow) {}

    PageIndexValidator(PositionalReader reader, ParquetLimits limits, long footerStart, String displayName)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.footerStart = footerStart;
        this.displayName = requireNonNull(displayName, "displayName is null");
    }

    void validate(ColumnChunk chunk, String where, List<DataPage> pages)
            throws IOException, InvalidParquetFileException
    {
        if (chunk.isSetOffset_index_offset() || chunk.isSetOffset_index_length()) {
            String index = where + " offset index";
            byte[] bytes = read(index, chunk.isSetOffset_index_offset(), chunk.getOffset_index_offset(), chunk.isSetOffset_index_length(), chunk.getOffset_index_length());
            validateOffsetIndex(decode(index, bytes, Util::readOffsetIndex), where, pages);
        }
        if (chunk.isSetColumn_index_offset() || chunk.isSetColumn_index_length()) {
            String index = where + " column index";
            byte[] bytes = read(index, chunk.isSetColumn_index_offset(), chunk.getColumn_index_offset(), chunk.isSetColumn_index_length(), chunk.getColumn_index_length());
            validateColumnIndex(decode(index, bytes, Util::readColumnIndex), where, pages.size());
        }
    }

    private byte[] read(String index, boolean offsetSet, long offset, boolean lengthSet, int length)
            throws IOException, InvalidParquetFileException
    {
        if (!offsetSet || !lengthSet) {
            throw invalid(index, "an offset without a length, or a length without an offset");
        }
        if (length <= 0 || length > limits.maxPageBytes()) {
            throw invalid(index, "%s bytes (at most %s allowed)".formatted(length, limits.maxPageBytes()));
        }
        // between the leading magic and the footer
        if (offset < 4 || offset > footerStart - length) {
            throw invalid(index, "%s bytes at offset %s lie outside the file's data, which ends at %s".formatted(length, offset, footerStart));
        }
        byte[] bytes = new byte[length];
        reader.readFully(offset, bytes, 0, length);
        try {
            int end = ThriftCompactChecker.checkStruct(bytes, 0, length, (long) limits.maxPageBytes() * ParquetLimits.FOOTER_EXPANSION);
            if (end != length) {
                throw invalid(index, "its structure ends %s bytes before its declared length".formatted(length - end));
            }
        }
        catch (ThriftCompactChecker.TruncatedException e) {
            throw invalid(index, "its structure runs past its %s bytes".formatted(length));
        }
        catch (IllegalArgumentException e) {
            throw invalid(index, "corrupt: " + e.getMessage());
        }
        return bytes;
    }

    /** Parquet's Thrift reader for one kind of index. */
    private interface IndexReader<T>
    {
        T read(ByteArrayInputStream in)
                throws IOException;
    }

    private <T> T decode(String index, byte[] bytes, IndexReader<T> reader)
            throws InvalidParquetFileException
    {
        try {
            return reader.read(new ByteArrayInputStream(bytes));
        }
        catch (IOException | RuntimeException e) {
            throw invalid(index, "corrupt: " + e.getMessage());
        }
    }

    private void validateOffsetIndex(OffsetIndex index, String where, List<DataPage> pages)
            throws InvalidParquetFileException
    {
        List<PageLocation> locations = index.getPage_locations();
        if (locations == null || locations.size() != pages.size()) {
            throw invalid(where + " offset index", "%s page locations for %s data pages".formatted(locations == null ? 0 : locations.size(), pages.size()));
        }
        for (int page = 0; page < locations.size(); page++) {
            PageLocation location = locations.get(page);
            DataPage actual = pages.get(page);
            if (location.getOffset() != actual.offset() || location.getCompressed_page_size() != actual.size() || location.getFirst_row_index() != actual.firstRow()) {
                throw invalid(where + " offset index", "page %s is at offset %s with %s bytes from row %s, but the index says offset %s, %s bytes, row %s".formatted(
                        page, actual.offset(), actual.size(), actual.firstRow(), location.getOffset(), location.getCompressed_page_size(), location.getFirst_row_index()));
            }
        }
        if (index.isSetUnencoded_byte_array_data_bytes() && index.getUnencoded_byte_array_data_bytes().size() != pages.size()) {
            throw invalid(where + " offset index", "%s unencoded sizes for %s pages".formatted(index.getUnencoded_byte_array_data_bytes().size(), pages.size()));
        }
    }

    private void validateColumnIndex(ColumnIndex index, String where, int pages)
            throws InvalidParquetFileException
    {
        if (index.getNull_pages() == null || index.getMin_values() == null || index.getMax_values() == null || index.getBoundary_order() == null) {
            throw invalid(where + " column index", "a required list or the boundary order is missing");
        }
        if (index.getNull_pages().size() != pages || index.getMin_values().size() != pages || index.getMax_values().size() != pages
                || (index.isSetNull_counts() && index.getNull_counts().size() != pages)) {
            throw invalid(where + " column index", "%s null flags, %s minimums, %s maximums and %s null counts for %s data pages".formatted(
                    index.getNull_pages().size(), index.getMin_values().size(), index.getMax_values().size(),
                    index.isSetNull_counts() ? index.getNull_counts().size() : "no", pages));
        }
    }

    private InvalidParquetFileException invalid(String where, String reason)
    {
        return invalidFile(displayName, "%s: %s".formatted(where, reason));
    }
}
