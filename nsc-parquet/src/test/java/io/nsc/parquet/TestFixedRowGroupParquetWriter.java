package io.nsc.parquet;

import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.protocol.stats.FilterValueType;
import io.trino.parquet.writer.ParquetSchemaConverter;
import io.trino.spi.Page;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.apache.parquet.column.values.bloomfilter.BlockSplitBloomFilter;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.io.api.Binary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestFixedRowGroupParquetWriter
{
    private static final List<String> NAMES = List.of("id", "name");
    private static final List<Type> TYPES = List.of(BIGINT, VARCHAR);

    @TempDir
    Path directory;

    @Test
    void eachCallIsOneRowGroup()
            throws Exception
    {
        Path file = directory.resolve("groups.parquet");
        List<List<Object>> expected = new ArrayList<>();
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, NAMES, TYPES, CompressionCodec.SNAPPY)) {
            // far below any byte threshold: trino-parquet alone would put all of it in one row group
            writer.writeRowGroup(page(0, 3, expected));
            writer.writeRowGroup(page(3, 1, expected));
            writer.writeRowGroup(page(4, 20_000, expected));
            assertThat(file).doesNotExist();
        }
        ParquetFileSummary summary = ParquetFooterParser.parse(file);
        assertThat(summary.rowCount()).isEqualTo(20_004);
        assertThat(summary.stats().rowGroupCount()).isEqualTo(3);
        assertThat(summary.stats().rowGroupRowCount(0)).isEqualTo(3);
        assertThat(summary.stats().rowGroupRowCount(1)).isEqualTo(1);
        assertThat(summary.stats().rowGroupRowCount(2)).isEqualTo(20_000);
        assertThat(ParquetRows.readRows(file, NAMES, TYPES)).isEqualTo(expected);
        try (var files = Files.list(directory)) {
            assertThat(files.toList()).containsExactly(file);
        }
    }

    @Test
    void writesAFileWithoutRows()
            throws Exception
    {
        Path file = directory.resolve("empty.parquet");
        new FixedRowGroupParquetWriter(file, NAMES, TYPES, CompressionCodec.ZSTD).close();
        ParquetFileSummary summary = ParquetFooterParser.parse(file);
        assertThat(summary.rowCount()).isZero();
        assertThat(summary.columns()).hasSize(2);
    }

    @Test
    void abortLeavesNothingBehind()
            throws Exception
    {
        Path file = directory.resolve("aborted.parquet");
        FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, NAMES, TYPES, CompressionCodec.ZSTD);
        writer.writeRowGroup(page(0, 10, new ArrayList<>()));
        writer.abort();
        try (var files = Files.list(directory)) {
            assertThat(files.toList()).isEmpty();
        }
    }

    @Test
    void failedMoveLeavesNoTemporaryFile()
            throws Exception
    {
        // a directory that is not empty cannot be replaced by the finished file
        Path file = Files.createDirectory(directory.resolve("taken.parquet"));
        Files.createFile(file.resolve("other"));
        FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, NAMES, TYPES, CompressionCodec.ZSTD);
        writer.writeRowGroup(page(0, 10, new ArrayList<>()));
        assertThatThrownBy(writer::close).isInstanceOf(IOException.class);
        try (var files = Files.list(directory)) {
            assertThat(files.toList()).containsExactly(file);
        }
        // closed for good: nothing to abort or close again
        writer.abort();
        writer.close();
    }

    @Test
    void encodingMemoryIsMeasured()
            throws Exception
    {
        Path file = directory.resolve("measured.parquet");
        ParquetSchemaConverter schema = new ParquetSchemaConverter(TYPES, NAMES, false, false);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, schema.getMessageType(), schema.getPrimitiveTypes(), CompressionCodec.ZSTD, 4096, Set.of())) {
            assertThat(writer.outputBufferBytes()).isEqualTo(4096);
            assertThat(writer.peakEncodingBytes()).isZero();
            writer.writeRowGroup(page(0, 20_000, new ArrayList<>()));
            long large = writer.peakEncodingBytes();
            // at least the encoded row group itself
            assertThat(large).isGreaterThanOrEqualTo(writer.writtenBytes() - 4);
            writer.writeRowGroup(page(20_000, 10, new ArrayList<>()));
            assertThat(writer.peakEncodingBytes()).isEqualTo(large);
        }
    }

    @Test
    void bloomFiltersFollowTheirRowGroupsAndReachTheCompactStats()
            throws Exception
    {
        Path file = directory.resolve("filtered.parquet");
        ParquetSchemaConverter schema = new ParquetSchemaConverter(TYPES, NAMES, false, false);
        List<List<Object>> expected = new ArrayList<>();
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, schema.getMessageType(), schema.getPrimitiveTypes(), CompressionCodec.ZSTD, 4096, Set.of("id", "name"))) {
            writer.writeRowGroup(page(0, 5_000, expected));
            writer.writeRowGroup(page(5_000, 40_000, expected));
            writer.writeRowGroup(page(45_000, 3, expected));
        }
        // the filters sit between the row groups: the data still reads back
        assertThat(ParquetRows.readRows(file, NAMES, TYPES)).isEqualTo(expected);

        CompactFileStats stats = ParquetFooterParser.parse(file).stats();
        assertThat(stats.filterCount()).isEqualTo(6);
        // Parquet's own hashing (parquet-mr) finds every value written, and few others
        BlockSplitBloomFilter hashing = new BlockSplitBloomFilter(BlockSplitBloomFilter.LOWER_BOUND_BYTES);
        int[][] ranges = {{0, 5_000}, {5_000, 45_000}, {45_000, 45_003}};
        for (int rowGroup = 0; rowGroup < ranges.length; rowGroup++) {
            int ids = stats.filterIndex(rowGroup, 0);
            int names = stats.filterIndex(rowGroup, 1);
            assertThat(stats.filterValueType(ids)).isEqualTo(FilterValueType.INT64);
            assertThat(stats.filterValueType(names)).isEqualTo(FilterValueType.BYTE_ARRAY);
            int falsePositives = 0;
            for (long id = 0; id < 50_000; id++) {
                boolean written = id >= ranges[rowGroup][0] && id < ranges[rowGroup][1];
                boolean idFound = stats.filterMightContain(ids, hashing.hash(id));
                boolean nameFound = stats.filterMightContain(names, hashing.hash(Binary.fromString("name-" + id)));
                if (written) {
                    assertThat(idFound).as("id %s in row group %s", id, rowGroup).isTrue();
                    assertThat(nameFound).as("name-%s in row group %s", id, rowGroup).isTrue();
                }
                else {
                    falsePositives += (idFound ? 1 : 0) + (nameFound ? 1 : 0);
                }
            }
            int absent = 2 * (50_000 - (ranges[rowGroup][1] - ranges[rowGroup][0]));
            // folded to a rate of at most 1% for random values; 2% leaves room for chance
            assertThat(falsePositives).as("false positives in row group %s", rowGroup).isLessThan(absent / 50);
        }
        // folded: 40,000 distinct values at 1% need 64KB at most, the 3-row group one block
        assertThat(stats.filterLength(stats.filterIndex(1, 0))).isLessThanOrEqualTo(64 * 1024);
        assertThat(stats.filterLength(stats.filterIndex(2, 0))).isEqualTo(32);
    }

    private static Page page(long start, int rows, List<List<Object>> expected)
    {
        BlockBuilder ids = BIGINT.createFixedSizeBlockBuilder(rows);
        BlockBuilder names = VARCHAR.createBlockBuilder(null, rows);
        for (long id = start; id < start + rows; id++) {
            BIGINT.writeLong(ids, id);
            VARCHAR.writeString(names, "name-" + id);
            expected.add(List.of(id, "name-" + id));
        }
        return new Page(ids.build(), names.build());
    }
}
