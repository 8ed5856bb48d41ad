package io.nsc.protocol.parquet;

import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.DataPageHeaderV2;
import org.apache.parquet.format.DictionaryPageHeader;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static io.nsc.protocol.parquet.InvalidParquetFileException.invalidFile;
import static java.util.Objects.requireNonNull;

/**
 * Walks the pages of every column chunk the way a reader will (header after header until the
 * chunk's values are all seen) and refuses any page a reader could not take within the limits:
 * a header that does not parse, a size that is negative, larger than {@link ParquetLimits#maxPageBytes()}
 * or runs past its chunk, a dictionary claiming more values than its bytes hold, a chunk that
 * ends before its values do or whose pages hold more values than the chunk (each value of a flat
 * column is a row: a page's count sizes what a reader decodes), then the chunk's page indexes
 * against the pages found ({@link PageIndexValidator}). The footer has been checked already
 * (chunk ranges inside the file, codecs the reader supports).
 */
final class PageHeaderValidator
{
    // most page headers are a few dozen bytes; the window doubles for the rare large one (with statistics)
    private static final int INITIAL_HEADER_WINDOW = 256;

    private final PositionalReader reader;
    private final ParquetLimits limits;
    private final String displayName;
    private final PageIndexValidator pageIndexes;

    PageHeaderValidator(PositionalReader reader, ParquetLimits limits, long footerStart, String displayName)
    {
        this.reader = requireNonNull(reader, "reader is null");
        this.limits = requireNonNull(limits, "limits is null");
        this.displayName = requireNonNull(displayName, "displayName is null");
        this.pageIndexes = new PageIndexValidator(reader, limits, footerStart, displayName);
    }

    void validate(FileMetaData metadata)
            throws IOException, InvalidParquetFileException
    {
        List<RowGroup> rowGroups = metadata.isSetRow_groups() ? metadata.getRow_groups() : List.of();
        for (int rowGroup = 0; rowGroup < rowGroups.size(); rowGroup++) {
            List<ColumnChunk> chunks = rowGroups.get(rowGroup).getColumns();
            for (ColumnChunk chunk : chunks) {
                validateChunk(chunk, rowGroup, rowGroups.get(rowGroup).getNum_rows());
            }
        }
    }

    private void validateChunk(ColumnChunk columnChunk, int rowGroup, long rowCount)
            throws IOException, InvalidParquetFileException
    {
        ColumnMetaData metadata = columnChunk.getMeta_data();
        long start = ParquetFooterParser.chunkStart(metadata);
        long size = metadata.getTotal_compressed_size();
        long valueCount = metadata.getNum_values();
        String chunk = "row group %s column %s".formatted(rowGroup, String.join(".", metadata.getPath_in_schema()));
        if (valueCount < 0) {
            throw invalid(chunk, "%s values".formatted(valueCount));
        }
        if (valueCount > rowCount) {
            throw invalid(chunk, "%s values in a row group of %s rows".formatted(valueCount, rowCount));
        }
        List<PageIndexValidator.DataPage> dataPages = new ArrayList<>();
        if (size == 0 && start <= 0) {
            // an empty chunk without pages (the footer parser allowed it)
            if (valueCount != 0) {
                throw invalid(chunk, "no pages for %s values".formatted(valueCount));
            }
            pageIndexes.validate(columnChunk, chunk, dataPages);
            return;
        }
        long end = start + size;
        long position = start;
        long values = 0;
        int pages = 0;
        while (values < valueCount) {
            if (position >= end) {
                throw invalid(chunk, "the chunk ends after %s of its %s values".formatted(values, valueCount));
            }
            Header header = readHeader(position, end, chunk, pages);
            PageHeader page = header.page();
            long pageEnd = position + header.length() + page.getCompressed_page_size();
            String where = "%s page %s at offset %s".formatted(chunk, pages, position);
            if (page.getCompressed_page_size() < 0 || page.getUncompressed_page_size() < 0) {
                throw invalid(where, "negative size (compressed %s, uncompressed %s)".formatted(page.getCompressed_page_size(), page.getUncompressed_page_size()));
            }
            if (page.getCompressed_page_size() > limits.maxPageBytes() || page.getUncompressed_page_size() > limits.maxPageBytes()) {
                throw invalid(where, "page of %s bytes (%s compressed) is larger than the %s bytes allowed"
                        .formatted(page.getUncompressed_page_size(), page.getCompressed_page_size(), limits.maxPageBytes()));
            }
            if (pageEnd > end) {
                throw invalid(where, "%s bytes of page run past the end of the chunk at %s".formatted(page.getCompressed_page_size(), end));
            }
            long pageValues = pageValues(page, metadata, where, pages);
            if (pageValues > valueCount - values) {
                throw invalid(where, "%s values where the chunk has %s left of its %s".formatted(pageValues, valueCount - values, valueCount));
            }
            if (page.getType() == PageType.DATA_PAGE || page.getType() == PageType.DATA_PAGE_V2) {
                dataPages.add(new PageIndexValidator.DataPage(position, pageEnd - position, values));
            }
            values += pageValues;
            position = pageEnd;
            pages++;
        }
        pageIndexes.validate(columnChunk, chunk, dataPages);
    }

    private long pageValues(PageHeader page, ColumnMetaData metadata, String where, int index)
            throws InvalidParquetFileException
    {
        if (page.getType() == null) {
            throw invalid(where, "unknown page type");
        }
        return switch (page.getType()) {
            case DATA_PAGE -> {
                DataPageHeader header = page.getData_page_header();
                if (header == null || header.getNum_values() < 0) {
                    throw invalid(where, "data page without a valid header");
                }
                yield header.getNum_values();
            }
            case DATA_PAGE_V2 -> {
                DataPageHeaderV2 header = page.getData_page_header_v2();
                if (header == null || header.getNum_values() < 0 || header.getNum_rows() < 0 || header.getNum_nulls() < 0 || header.getNum_nulls() > header.getNum_values()
                        || header.getDefinition_levels_byte_length() < 0 || header.getRepetition_levels_byte_length() < 0
                        || (long) header.getDefinition_levels_byte_length() + header.getRepetition_levels_byte_length() > Math.min(page.getCompressed_page_size(), page.getUncompressed_page_size())) {
                    throw invalid(where, "data page (v2) without a valid header");
                }
                yield header.getNum_values();
            }
            case DICTIONARY_PAGE -> {
                DictionaryPageHeader header = page.getDictionary_page_header();
                if (index != 0) {
                    throw invalid(where, "a dictionary page after the first page");
                }
                // a reader sizes the dictionary by its value count: each value takes some of the page's bytes
                if (header == null || header.getNum_values() < 0 || (long) header.getNum_values() * minValueBytes(metadata) > page.getUncompressed_page_size()) {
                    throw invalid(where, "dictionary page of %s values in %s bytes".formatted(header == null ? "unknown" : header.getNum_values(), page.getUncompressed_page_size()));
                }
                yield 0;
            }
            // index pages and the like hold no values; readers skip them
            default -> 0;
        };
    }

    /** The fewest bytes a plain-encoded value of the chunk's physical type takes. */
    private static int minValueBytes(ColumnMetaData metadata)
    {
        return switch (metadata.getType()) {
            case BOOLEAN -> 1;
            case INT32, FLOAT, BYTE_ARRAY -> 4;
            case INT64, DOUBLE -> 8;
            case INT96 -> 12;
            // its length is in the schema; a byte at least
            case FIXED_LEN_BYTE_ARRAY -> 1;
        };
    }

    private record Header(PageHeader page, int length) {}

    private Header readHeader(long position, long chunkEnd, String chunk, int index)
            throws IOException, InvalidParquetFileException
    {
        long available = Math.min(chunkEnd - position, limits.maxPageBytes());
        int window = (int) Math.min(available, INITIAL_HEADER_WINDOW);
        while (true) {
            byte[] bytes = new byte[window];
            reader.readFully(position, bytes, 0, window);
            int length;
            try {
                length = ThriftCompactChecker.checkStruct(bytes, 0, window, limits.maxPageBytes());
            }
            catch (ThriftCompactChecker.TruncatedException e) {
                if (window == available) {
                    throw invalid("%s page %s at offset %s".formatted(chunk, index, position), "the page header runs past the end of the chunk");
                }
                window = (int) Math.min(available, 2L * window);
                continue;
            }
            catch (IllegalArgumentException e) {
                throw invalid("%s page %s at offset %s".formatted(chunk, index, position), "corrupt page header: " + e.getMessage());
            }
            try {
                return new Header(Util.readPageHeader(new ByteArrayInputStream(bytes, 0, length)), length);
            }
            catch (IOException | RuntimeException e) {
                // Thrift reports a missing required field or garbage as IOException (wrapping TException)
                throw invalid("%s page %s at offset %s".formatted(chunk, index, position), "corrupt page header: " + e.getMessage());
            }
        }
    }

    private InvalidParquetFileException invalid(String where, String reason)
    {
        return invalidFile(displayName, "%s: %s".formatted(where, reason));
    }
}
