package io.nsc.parquet.scan;

import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.parquet.LocalParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.type.Type;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row positions, the place of each row in its file, whatever row groups a scan reads and however
 * its pages are cut and filtered: a DELETE names the rows it deletes by them, so a position off by
 * one deletes the wrong row.
 */
final class TestParquetScanReaderRowPositions
{
    // far more rows than one reader page holds, so that row groups span several pages
    private static final int[] ROW_GROUP_ROWS = {3, 20_000, 1, 9_000};
    private static final ParquetReaderOptions OPTIONS = ParquetReaderOptions.builder().withUseColumnIndex(false).build();

    @TempDir
    Path directory;

    @Test
    void positionsCountEveryRowOfTheFileBeforeThem()
            throws IOException
    {
        Path file = writeFile();
        // the id column holds each row's place in the file: the positions must equal it
        List<FileColumn> columns = List.of(new FileColumn(0, BIGINT), FileColumn.rowPosition(), new FileColumn(5, VARCHAR));
        for (List<Integer> rowGroups : List.of(List.of(0, 1, 2, 3), List.of(1, 3), List.of(3), List.of(2))) {
            List<Page> pages = read(file, rowGroups, columns, page -> page);
            long rows = 0;
            for (Page page : pages) {
                for (int position = 0; position < page.getPositionCount(); position++) {
                    assertThat(BIGINT.getLong(page.getBlock(1), position)).isEqualTo(BIGINT.getLong(page.getBlock(0), position));
                    assertThat(page.getBlock(2).isNull(position)).as("a column the file lacks").isTrue();
                }
                rows += page.getPositionCount();
            }
            assertThat(rows).isEqualTo(rowGroups.stream().mapToLong(rowGroup -> ROW_GROUP_ROWS[rowGroup]).sum());
        }
    }

    @Test
    void positionsFollowTheRowsASelectionKeeps()
            throws IOException
    {
        Path file = writeFile();
        List<FileColumn> columns = List.of(FileColumn.rowPosition(), new FileColumn(0, BIGINT), new FileColumn(7, BIGINT));
        // keep every third row, then every other of those: the positions still name their rows
        List<Page> pages = read(file, List.of(1, 2, 3), columns, page -> {
            page.selectPositions(everyNth(page.getPositionCount(), 3), 0, (page.getPositionCount() + 2) / 3);
            int left = page.getPositionCount();
            page.selectPositions(everyNth(left, 2), 0, (left + 1) / 2);
            return page;
        });
        List<Long> positions = new ArrayList<>();
        for (Page page : pages) {
            for (int position = 0; position < page.getPositionCount(); position++) {
                assertThat(BIGINT.getLong(page.getBlock(0), position)).isEqualTo(BIGINT.getLong(page.getBlock(1), position));
                positions.add(BIGINT.getLong(page.getBlock(0), position));
            }
        }
        assertThat(positions).isNotEmpty().isSorted().doesNotHaveDuplicates();
        assertThat(positions).allMatch(position -> position >= 3);
    }

    @Test
    void positionsWithoutAnyDecodedColumn()
            throws IOException
    {
        Path file = writeFile();
        List<Page> pages = read(file, List.of(0, 2, 3), List.of(FileColumn.rowPosition(), new FileColumn(9, VARCHAR)), page -> page);
        List<Long> positions = new ArrayList<>();
        for (Page page : pages) {
            Block block = page.getBlock(0);
            for (int position = 0; position < page.getPositionCount(); position++) {
                positions.add(BIGINT.getLong(block, position));
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long row = 0; row < 3; row++) {
            expected.add(row);
        }
        expected.add(20_003L);
        for (long row = 20_004; row < 29_004; row++) {
            expected.add(row);
        }
        assertThat(positions).isEqualTo(expected);
    }

    private static int[] everyNth(int count, int n)
    {
        int[] positions = new int[(count + n - 1) / n];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = i * n;
        }
        return positions;
    }

    private static List<Page> read(Path file, List<Integer> rowGroups, List<FileColumn> columns, Function<SourcePage, SourcePage> select)
            throws IOException
    {
        List<Page> pages = new ArrayList<>();
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, OPTIONS)) {
            ParquetMetadata footer = MetadataReader.readFooter(source, Optional.empty());
            try (ParquetScanReader reader = ParquetScanReader.create(source, footer, rowGroups, columns, OPTIONS, newSimpleAggregatedMemoryContext(), e -> e)) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    pages.add(select.apply(page).getPage());
                }
            }
        }
        return pages;
    }

    /** A file of an id (its row's place in the file) and a name, in row groups of {@link #ROW_GROUP_ROWS} rows. */
    private Path writeFile()
            throws IOException
    {
        Path file = directory.resolve("positions.parquet");
        List<Type> types = List.of(BIGINT, VARCHAR);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, List.of("id", "name"), types, CompressionCodec.ZSTD)) {
            long id = 0;
            for (int rows : ROW_GROUP_ROWS) {
                BlockBuilder ids = BIGINT.createFixedSizeBlockBuilder(rows);
                BlockBuilder names = VARCHAR.createBlockBuilder(null, rows);
                for (int row = 0; row < rows; row++, id++) {
                    BIGINT.writeLong(ids, id);
                    VARCHAR.writeString(names, "name-" + id);
                }
                writer.writeRowGroup(new Page(ids.build(), names.build()));
            }
        }
        return file;
    }
}
