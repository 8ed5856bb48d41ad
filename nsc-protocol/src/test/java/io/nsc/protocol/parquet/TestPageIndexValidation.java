package io.nsc.protocol.parquet;

import org.apache.parquet.format.PageLocation;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.nsc.protocol.parquet.TestParquetLimits.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A file is accepted only with page indexes a scan can follow safely: every offset index location is
 * exactly a data page the header walk validated, and both indexes lie in the file's data, within
 * the limits, and describe as many pages as the chunk has.
 */
final class TestPageIndexValidation
{
    private static final ParquetLimits LIMITS = new ParquetLimits(1 << 20, 1 << 20);
    private static final List<String> FIXTURES = List.of("all_types.parquet", "all_types_gzip_v1_dict.parquet", "all_types_snappy_v2_dict.parquet",
            "all_types_zstd_v2_plain.parquet", "all_types_none_v1_plain.parquet", "sorted_ints.parquet", "empty_row_group.parquet");

    @Test
    void testExactIndexesAreAccepted()
            throws Exception
    {
        for (String name : FIXTURES) {
            byte[] indexed = PageIndexAppender.withPageIndexes(fixture(name), PageIndexAppender.Changes.NONE);
            ParquetFileSummary summary = validate(indexed);
            assertThat(summary.columns()).as(name).isEqualTo(validate(fixture(name)).columns());
        }
    }

    @Test
    void testLocationsMustBeTheDataPages()
            throws Exception
    {
        byte[] file = fixture("all_types_gzip_v1_dict.parquet");
        assertRefused(file, PageIndexAppender.Changes.NONE.offsetIndex(index -> shift(index.getPage_locations().getFirst(), 1)), "offset index: page 0 is at offset");
        assertRefused(file, PageIndexAppender.Changes.NONE.offsetIndex(index -> index.getPage_locations().getFirst().setCompressed_page_size(Integer.MAX_VALUE)), "offset index: page 0");
        assertRefused(file, PageIndexAppender.Changes.NONE.offsetIndex(index -> index.getPage_locations().getFirst().setFirst_row_index(5)), "offset index: page 0");
        assertRefused(file, PageIndexAppender.Changes.NONE.offsetIndex(index -> index.getPage_locations().add(new PageLocation(4, 10, 1))), "page locations for 1 data pages");
        assertRefused(file, PageIndexAppender.Changes.NONE.offsetIndex(index -> index.setUnencoded_byte_array_data_bytes(List.of(1L, 2L, 3L))), "3 unencoded sizes");
    }

    @Test
    void testColumnIndexMustDescribeEveryPage()
            throws Exception
    {
        byte[] file = fixture("all_types_none_v1_plain.parquet");
        assertRefused(file, PageIndexAppender.Changes.NONE.columnIndex(index -> index.getNull_pages().add(true)), "2 null flags");
        assertRefused(file, PageIndexAppender.Changes.NONE.columnIndex(index -> index.getMax_values().clear()), "0 maximums");
        assertRefused(file, PageIndexAppender.Changes.NONE.columnIndex(index -> index.setNull_counts(List.of(1L, 2L))), "2 null counts");
    }

    @Test
    void testIndexesMustLieInTheDataWithinTheLimits()
            throws Exception
    {
        byte[] file = fixture("all_types.parquet");
        assertRefused(file, PageIndexAppender.Changes.NONE.chunk(chunk -> chunk.setOffset_index_length(LIMITS.maxPageBytes() + 1)), "bytes (at most 1048576 allowed)");
        assertRefused(file, PageIndexAppender.Changes.NONE.chunk(chunk -> chunk.setColumn_index_length(-1)), "column index: -1 bytes");
        assertRefused(file, PageIndexAppender.Changes.NONE.chunk(chunk -> chunk.setOffset_index_offset(0)), "lie outside the file's data");
        // into the footer
        assertRefused(file, PageIndexAppender.Changes.NONE.chunk(chunk -> chunk.setOffset_index_offset(chunk.getOffset_index_offset() + 8)), "offset index");
        assertRefused(file, PageIndexAppender.Changes.NONE.chunk(chunk -> chunk.unsetColumn_index_length()), "an offset without a length");
    }

    @Test
    void testCorruptIndexBytesAreRefused()
            throws Exception
    {
        byte[] file = fixture("all_types.parquet");
        assertRefused(file, PageIndexAppender.Changes.NONE.bytes((bytes, index) -> index.equals("offset") ? garbage(bytes.length) : bytes), "offset index");
        assertRefused(file, PageIndexAppender.Changes.NONE.bytes((bytes, index) -> index.equals("column") ? Arrays.copyOf(bytes, bytes.length - 1) : bytes), "column index");
        // a list claiming 2^31-1 entries in a handful of bytes: refused before Thrift sizes it
        byte[] hugeList = {0x19, (byte) 0xFC, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0x00};
        assertRefused(file, PageIndexAppender.Changes.NONE.bytes((bytes, index) -> index.equals("offset") ? hugeList : bytes), "offset index");
    }

    @Test
    void testPagesMayNotHoldMoreValuesThanTheirChunk()
            throws Exception
    {
        byte[] file = PageHeaderRewriter.rewriteFirstPageHeader(fixture("all_types_none_v1_plain.parquet"), header -> header.getData_page_header().setNum_values(1_000_000_000));
        assertThatThrownBy(() -> validate(file))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("1000000000 values where the chunk has");
    }

    private static void shift(PageLocation location, int bytes)
    {
        location.setOffset(location.getOffset() + bytes);
    }

    private static byte[] garbage(int length)
    {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) 0x7A);
        return bytes;
    }

    private static void assertRefused(byte[] file, PageIndexAppender.Changes changes, String message)
            throws InvalidParquetFileException
    {
        byte[] indexed = PageIndexAppender.withPageIndexes(file, changes);
        assertThatThrownBy(() -> validate(indexed))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining(message);
        // the footer alone says nothing wrong: only the page walk finds it
        assertThat(ParquetFooterParser.parse(PositionalReader.ofBytes(indexed), indexed.length, "indexed.parquet", LIMITS)).isNotNull();
    }

    private static ParquetFileSummary validate(byte[] data)
            throws InvalidParquetFileException
    {
        return ParquetFooterParser.parseAndValidatePages(PositionalReader.ofBytes(data), data.length, "indexed.parquet", LIMITS);
    }
}
