package io.nsc.parquet;

import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.type.Type;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jol.info.GraphLayout;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The footer caches weigh a parsed footer by {@link FooterRetainedSize}; this measures (JOL walks
 * the parsed objects) that the weight covers what footers of every shape really retain, and does
 * not overstate it so much that a cache would hold a fraction of what it could.
 */
final class TestFooterRetainedSize
{
    @TempDir
    private Path directory;

    @Test
    void testEstimateCoversWhatAParsedFooterRetains()
            throws Exception
    {
        // row groups, integer columns, string columns (whose min/max stats are long), names of one character (1) or more
        int[][] shapes = {{1, 1, 0, 0}, {1, 2, 2, 0}, {20, 12, 0, 0}, {20, 4, 8, 0}, {60, 16, 4, 0}, {5, 100, 0, 0}, {20, 9, 0, 1}, {60, 4, 0, 1}};
        for (int[] shape : shapes) {
            Path path = directory.resolve("shape-%s-%s-%s-%s.parquet".formatted(shape[0], shape[1], shape[2], shape[3]));
            writeFile(path, shape[0], shape[1], shape[2], shape[3] == 1);
            ParquetMetadata metadata;
            try (LocalParquetDataSource source = LocalParquetDataSource.open(path, ParquetReaderOptions.builder().build())) {
                metadata = MetadataReader.readFooter(source, Optional.empty());
            }
            // what the scanner caches after a scan: the metadata with its row groups decoded once
            metadata.getBlocks();
            long measured = GraphLayout.parseInstance(metadata).totalSize();
            long estimated = FooterRetainedSize.estimate(metadata);
            assertThat(measured).as("shape %s", java.util.Arrays.toString(shape)).isLessThanOrEqualTo(estimated);
            assertThat(estimated).as("shape %s", java.util.Arrays.toString(shape)).isLessThan(6 * measured);
        }
    }

    private static void writeFile(Path path, int rowGroups, int longColumns, int stringColumns, boolean shortNames)
            throws Exception
    {
        List<String> names = new ArrayList<>();
        List<Type> types = new ArrayList<>();
        for (int column = 0; column < longColumns + stringColumns; column++) {
            names.add(shortNames ? String.valueOf((char) ('a' + column)) : "column_number_" + column);
            types.add(column < longColumns ? BIGINT : VARCHAR);
        }
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(path, names, types, CompressionCodec.SNAPPY)) {
            for (int rowGroup = 0; rowGroup < rowGroups; rowGroup++) {
                Block[] blocks = new Block[types.size()];
                for (int column = 0; column < blocks.length; column++) {
                    BlockBuilder values = types.get(column).createBlockBuilder(null, 3);
                    for (int row = 0; row < 3; row++) {
                        if (types.get(column) == BIGINT) {
                            BIGINT.writeLong(values, rowGroup * 1000L + row);
                        }
                        else {
                            VARCHAR.writeSlice(values, utf8Slice("a string value of some length, %s %s".formatted(rowGroup, row)));
                        }
                    }
                    blocks[column] = values.build();
                }
                writer.writeRowGroup(new Page(blocks));
            }
        }
    }
}
