package io.nsc.protocol.parquet;

import com.google.common.io.Resources;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Footers and page headers are bounded before anything is allocated by the sizes they declare. */
final class TestParquetLimits
{
    private static final ParquetLimits LIMITS = new ParquetLimits(1 << 20, 1 << 20);

    @Test
    void testEveryFixturePassesPageValidation()
            throws Exception
    {
        for (String name : List.of("all_types.parquet", "all_types_gzip_v1_dict.parquet", "all_types_snappy_v2_dict.parquet", "all_types_zstd_v2_plain.parquet",
                "all_types_none_v1_plain.parquet", "decimals_as_int.parquet", "empty.parquet", "empty_row_group.parquet",
                "int96.parquet", "no_stats.parquet", "sorted_ints.parquet")) {
            byte[] data = fixture(name);
            ParquetFileSummary summary = ParquetFooterParser.parseAndValidatePages(PositionalReader.ofBytes(data), data.length, name, LIMITS);
            assertThat(summary).as(name).isEqualTo(ParquetFooterParser.parse(PositionalReader.ofBytes(data), data.length, name));
        }
    }

    @Test
    void testPageHeaderClaimingAHugeSizeIsRefused()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        byte[] huge = PageHeaderRewriter.rewriteFirstPageHeader(data, header -> header.setUncompressed_page_size(Integer.MAX_VALUE));
        // the footer alone is sound: only the page check finds it
        ParquetFooterParser.parse(PositionalReader.ofBytes(huge), huge.length, "huge.parquet");
        assertRefused(huge, "page of 2147483647 bytes");

        assertRefused(PageHeaderRewriter.rewriteFirstPageHeader(data, header -> header.setUncompressed_page_size(-1)), "negative size");
        assertRefused(PageHeaderRewriter.rewriteFirstPageHeader(data, header -> header.setCompressed_page_size(header.getCompressed_page_size() + 2_000_000)), "larger than the 1048576 bytes allowed");
        assertRefused(PageHeaderRewriter.rewriteFirstPageHeader(data, header -> header.setCompressed_page_size(header.getCompressed_page_size() + 1000)), "run past the end of the chunk");
        assertRefused(PageHeaderRewriter.rewriteFirstPageHeader(data, header -> {
            if (header.getType() == PageType.DICTIONARY_PAGE) {
                header.getDictionary_page_header().setNum_values(Integer.MAX_VALUE);
            }
            else {
                header.getData_page_header().setNum_values(-5);
            }
        }), "page");
        // pages of fewer values than the chunk holds: the chunk ends first
        assertRefused(PageHeaderRewriter.rewriteFirstPageHeader(fixture("all_types_none_v1_plain.parquet"), header -> header.getData_page_header().setNum_values(0)), "the chunk ends after");
    }

    @Test
    void testFooterCountsAreBoundedByItsBytes()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        assertThatThrownBy(() -> ParquetFooterParser.parse(PositionalReader.ofBytes(data), data.length, "small", new ParquetLimits(100, 1 << 20)))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("larger than the 100 bytes allowed");

        // FileMetaData{1: version=1, 2: schema=list<struct> claiming 2^31-1 elements}: Thrift would size a list of 2^31-1 first
        byte[] footer = {0x15, 0x02, 0x19, (byte) 0xFC, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0x00};
        assertFooterRefused(footer, "corrupt footer");
        // a string claiming 100MB
        byte[] string = {0x15, 0x02, 0x48, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x30, 0x00};
        assertFooterRefused(string, "corrupt footer");
        // structs nested deeper than any real footer
        ByteArrayOutputStream deep = new ByteArrayOutputStream();
        for (int i = 0; i < 10_000; i++) {
            deep.write(0x1C);
        }
        assertFooterRefused(deep.toByteArray(), "nested deeper than 64");
        // many one-byte empty structs decode to 60-byte objects: bounded by the expansion limit
        ByteArrayOutputStream wide = new ByteArrayOutputStream();
        wide.writeBytes(new byte[] {0x15, 0x02, 0x39, (byte) 0xFC});
        int count = 200_000;
        for (int value = count; ; value >>>= 7) {
            wide.write(value > 0x7F ? (value & 0x7F) | 0x80 : value);
            if (value <= 0x7F) {
                break;
            }
        }
        wide.writeBytes(new byte[count]);
        wide.write(0);
        assertThatThrownBy(() -> parseFooterBytes(wide.toByteArray(), new ParquetLimits(count + 100, 1 << 20)))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining("decodes to more than");
    }

    private static void assertFooterRefused(byte[] footer, String message)
    {
        assertThatThrownBy(() -> parseFooterBytes(footer, LIMITS))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining(message);
    }

    private static ParquetFileSummary parseFooterBytes(byte[] footer, ParquetLimits limits)
            throws InvalidParquetFileException
    {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes("PAR1".getBytes(US_ASCII));
        file.writeBytes(footer);
        file.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.length).array());
        file.writeBytes("PAR1".getBytes(US_ASCII));
        byte[] data = file.toByteArray();
        return ParquetFooterParser.parse(PositionalReader.ofBytes(data), data.length, "crafted", limits);
    }

    private static void assertRefused(byte[] data, String message)
    {
        assertThatThrownBy(() -> ParquetFooterParser.parseAndValidatePages(PositionalReader.ofBytes(data), data.length, "crafted.parquet", LIMITS))
                .isInstanceOf(InvalidParquetFileException.class)
                .hasMessageContaining(message);
    }

    static byte[] fixture(String name)
            throws IOException
    {
        URL resource = Resources.getResource("parquet/" + name);
        return Resources.toByteArray(resource);
    }

    static FileMetaData footer(byte[] data)
            throws IOException
    {
        int length = ByteBuffer.wrap(data, data.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new java.io.ByteArrayInputStream(data, data.length - 8 - length, length));
    }
}
