package io.nsc.parquet;

import io.nsc.parquet.scan.FileColumn;
import io.nsc.parquet.scan.ParquetScanReader;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.Page;
import io.trino.spi.block.ArrayBlockBuilder;
import io.trino.spi.block.Block;
import io.trino.spi.block.BlockBuilder;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import io.trino.spi.type.ArrayType;
import io.trino.spi.type.DecimalType;
import io.trino.spi.type.Type;
import org.apache.parquet.format.BoundaryOrder;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnIndex;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.OffsetIndex;
import org.apache.parquet.format.PageLocation;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.LongFunction;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateType.DATE;
import static io.trino.spi.type.DoubleType.DOUBLE;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.RealType.REAL;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The page indexes {@link FixedRowGroupParquetWriter} writes: read back as any Parquet reader
 * reads them, they locate every data page and bound every page's values, and a scan with a range
 * on a sorted column decodes only the pages that may hold it.
 */
final class TestPageIndexes
{
    // trino-parquet closes a page at 60,000 values: a row group this large has several
    private static final int ROWS = 200_000;
    private static final DecimalType PRICE = DecimalType.createDecimalType(9, 2);
    private static final List<String> NAMES = List.of("id", "shuffled", "name", "score", "price", "day", "ratio", "nothing");
    private static final List<Type> TYPES = List.of(BIGINT, INTEGER, VARCHAR, DOUBLE, PRICE, DATE, REAL, BIGINT);
    private static final ParquetReaderOptions WITH_PAGE_INDEXES = ParquetReaderOptions.builder().build();
    private static final ParquetReaderOptions WITHOUT_PAGE_INDEXES = ParquetReaderOptions.builder().withUseColumnIndex(false).build();

    @TempDir
    Path directory;

    @Test
    void offsetIndexesLocateEveryDataPage()
            throws IOException
    {
        Path file = writeTable("located.parquet");
        byte[] bytes = Files.readAllBytes(file);
        FileMetaData footer = footer(bytes);
        assertThat(footer.getRow_groups()).hasSize(2);
        for (RowGroup rowGroup : footer.getRow_groups()) {
            for (ColumnChunk chunk : rowGroup.getColumns()) {
                OffsetIndex index = offsetIndex(bytes, chunk);
                List<PageLocation> pages = index.getPage_locations();
                assertThat(pages.size()).isGreaterThan(1);
                assertThat(pages.getFirst().getOffset()).isEqualTo(chunk.getMeta_data().getData_page_offset());
                assertThat(pages.getFirst().getFirst_row_index()).isZero();
                long chunkStart = chunk.getMeta_data().isSetDictionary_page_offset() ? chunk.getMeta_data().getDictionary_page_offset() : chunk.getMeta_data().getData_page_offset();
                for (int page = 1; page < pages.size(); page++) {
                    // pages follow one another without a gap, each starting later in the rows
                    assertThat(pages.get(page).getOffset()).isEqualTo(pages.get(page - 1).getOffset() + pages.get(page - 1).getCompressed_page_size());
                    assertThat(pages.get(page).getFirst_row_index()).isGreaterThan(pages.get(page - 1).getFirst_row_index());
                }
                PageLocation last = pages.getLast();
                assertThat(last.getOffset() + last.getCompressed_page_size()).isEqualTo(chunkStart + chunk.getMeta_data().getTotal_compressed_size());
                assertThat(last.getFirst_row_index()).isLessThan(rowGroup.getNum_rows());
            }
        }
    }

    @Test
    void columnIndexesBoundEveryPage()
            throws IOException
    {
        Path file = writeTable("bounded.parquet");
        byte[] bytes = Files.readAllBytes(file);
        RowGroup rowGroup = footer(bytes).getRow_groups().getFirst();

        ColumnIndex ids = columnIndex(bytes, rowGroup.getColumns().get(0)).orElseThrow();
        assertThat(ids.getBoundary_order()).isEqualTo(BoundaryOrder.ASCENDING);
        List<PageLocation> idPages = offsetIndex(bytes, rowGroup.getColumns().get(0)).getPage_locations();
        for (int page = 0; page < idPages.size(); page++) {
            long first = idPages.get(page).getFirst_row_index();
            long end = page + 1 < idPages.size() ? idPages.get(page + 1).getFirst_row_index() : rowGroup.getNum_rows();
            assertThat(int64(ids.getMin_values().get(page))).isEqualTo(first);
            assertThat(int64(ids.getMax_values().get(page))).isEqualTo(end - 1);
        }

        ColumnIndex shuffled = columnIndex(bytes, rowGroup.getColumns().get(1)).orElseThrow();
        assertThat(shuffled.getBoundary_order()).isEqualTo(BoundaryOrder.UNORDERED);
        assertThat(shuffled.getMin_values()).allSatisfy(min -> assertThat(int32(min)).isBetween(0, ROWS));

        // every seventh score is null; the counts add up to the row group's nulls
        ColumnIndex scores = columnIndex(bytes, rowGroup.getColumns().get(3)).orElseThrow();
        assertThat(scores.getNull_counts().stream().mapToLong(Long::longValue).sum()).isEqualTo(nullScores(0, ROWS));
        assertThat(scores.getNull_pages()).containsOnly(false);

        ColumnIndex names = columnIndex(bytes, rowGroup.getColumns().get(2)).orElseThrow();
        assertThat(new String(bytes(names.getMin_values().getFirst()), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("name-000000");

        // a column of nulls only: every page a null page
        ColumnIndex nothing = columnIndex(bytes, rowGroup.getColumns().get(7)).orElseThrow();
        assertThat(nothing.getNull_pages()).containsOnly(true);
        assertThat(nothing.getMin_values()).allSatisfy(min -> assertThat(min.remaining()).isZero());
    }

    @Test
    void valuesWithoutASafeBoundGetNoColumnIndex()
            throws IOException
    {
        Path file = directory.resolve("unbounded.parquet");
        List<String> names = List.of("ratio", "comment");
        List<Type> types = List.of(DOUBLE, VARCHAR);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, names, types, CompressionCodec.ZSTD)) {
            writer.writeRowGroup(new Page(
                    block(DOUBLE, 1_000, row -> row == 500 ? Double.doubleToLongBits(Double.NaN) : Double.doubleToLongBits(row)),
                    block(VARCHAR, 1_000, row -> "x".repeat(100) + row)));
        }
        byte[] bytes = Files.readAllBytes(file);
        RowGroup rowGroup = footer(bytes).getRow_groups().getFirst();
        // NaN has no agreed place in an order; a long maximum would need rounding up
        assertThat(columnIndex(bytes, rowGroup.getColumns().get(0))).isEmpty();
        assertThat(columnIndex(bytes, rowGroup.getColumns().get(1))).isEmpty();
        assertThat(offsetIndex(bytes, rowGroup.getColumns().get(0)).getPage_locations()).isNotEmpty();
        assertThat(offsetIndex(bytes, rowGroup.getColumns().get(1)).getPage_locations()).isNotEmpty();
    }

    @Test
    void nestedColumnsGetNoPageIndexes()
            throws IOException
    {
        Path file = directory.resolve("nested.parquet");
        ArrayType tags = new ArrayType(BIGINT);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, List.of("id", "tags"), List.of(BIGINT, tags), CompressionCodec.ZSTD)) {
            ArrayBlockBuilder arrays = (ArrayBlockBuilder) tags.createBlockBuilder(null, 10);
            for (int row = 0; row < 10; row++) {
                int values = row;
                arrays.buildEntry(element -> {
                    for (int value = 0; value < values; value++) {
                        BIGINT.writeLong(element, value);
                    }
                });
            }
            writer.writeRowGroup(new Page(block(BIGINT, 10, row -> row), arrays.build()));
        }
        byte[] bytes = Files.readAllBytes(file);
        for (ColumnChunk chunk : footer(bytes).getRow_groups().getFirst().getColumns()) {
            assertThat(chunk.isSetOffset_index_offset()).isFalse();
            assertThat(chunk.isSetColumn_index_offset()).isFalse();
        }
    }

    @Test
    void rangeOnTheSortedColumnDecodesOnlyItsPages()
            throws IOException
    {
        Path file = writeTable("scanned.parquet");
        TupleDomain<Integer> idRange = TupleDomain.withColumnDomains(Map.of(0, Domain.create(ValueSet.ofRanges(Range.range(BIGINT, 123_400L, true, 123_449L, true)), false)));
        List<Long> withIndexes = scanIds(file, idRange, WITH_PAGE_INDEXES);
        List<Long> withoutIndexes = scanIds(file, idRange, WITHOUT_PAGE_INDEXES);
        assertThat(withoutIndexes).hasSize(2 * ROWS);
        assertThat(withIndexes.size()).isPositive().isLessThan(ROWS / 2);
        assertThat(withIndexes.stream().filter(id -> id >= 123_400 && id <= 123_449).toList())
                .isEqualTo(withoutIndexes.stream().filter(id -> id >= 123_400 && id <= 123_449).toList())
                .hasSize(50);

        // a range on the string column, whose values sort as the ids do
        Domain names = Domain.create(ValueSet.ofRanges(Range.range(VARCHAR, utf8Slice("name-004000"), true, utf8Slice("name-004003"), true)), false);
        List<Long> byName = scanIds(file, TupleDomain.withColumnDomains(Map.of(1, names)), WITH_PAGE_INDEXES);
        assertThat(byName).contains(4_000L, 4_001L, 4_002L, 4_003L);
        // the first page of the first row group: the second row group's names all sort after the range
        assertThat(byName.size()).isPositive().isLessThan(ROWS / 2);
        assertThat(byName).allSatisfy(id -> assertThat(id).isLessThan(ROWS));
    }

    private Path writeTable(String name)
            throws IOException
    {
        Path file = directory.resolve(name);
        try (FixedRowGroupParquetWriter writer = new FixedRowGroupParquetWriter(file, NAMES, TYPES, CompressionCodec.ZSTD)) {
            writer.writeRowGroup(table(0));
            writer.writeRowGroup(table(ROWS));
        }
        return file;
    }

    /** Ids from {@code start}, sorted; the same ids shuffled; names that sort as the ids; and columns of each indexed type. */
    private static Page table(long start)
    {
        long[] shuffled = new long[ROWS];
        for (int row = 0; row < ROWS; row++) {
            shuffled[row] = row;
        }
        Random random = new Random(start);
        for (int row = ROWS - 1; row > 0; row--) {
            int other = random.nextInt(row + 1);
            long swap = shuffled[row];
            shuffled[row] = shuffled[other];
            shuffled[other] = swap;
        }
        BlockBuilder names = VARCHAR.createBlockBuilder(null, ROWS);
        BlockBuilder scores = DOUBLE.createBlockBuilder(null, ROWS);
        BlockBuilder nothing = BIGINT.createBlockBuilder(null, ROWS);
        for (int row = 0; row < ROWS; row++) {
            VARCHAR.writeSlice(names, utf8Slice("name-%06d".formatted(start + row)));
            if (isNullScore(start + row)) {
                scores.appendNull();
            }
            else {
                DOUBLE.writeDouble(scores, (start + row) / 3.0);
            }
            nothing.appendNull();
        }
        return new Page(
                block(BIGINT, ROWS, row -> start + row),
                block(INTEGER, ROWS, row -> shuffled[(int) row]),
                names.build(),
                scores.build(),
                block(PRICE, ROWS, row -> (start + row) % 100_000),
                block(DATE, ROWS, row -> 20_000 + row / 1_000),
                block(REAL, ROWS, row -> Float.floatToIntBits(row % 2 == 0 ? -0.0f : row)),
                nothing.build());
    }

    private static boolean isNullScore(long id)
    {
        return id % 7 == 0;
    }

    private static long nullScores(long from, long to)
    {
        return (to + 6) / 7 - (from + 6) / 7;
    }

    private static Block block(Type type, int rows, LongFunction<Object> value)
    {
        BlockBuilder builder = type.createBlockBuilder(null, rows);
        for (int row = 0; row < rows; row++) {
            Object written = value.apply(row);
            if (type == VARCHAR) {
                VARCHAR.writeSlice(builder, utf8Slice(String.valueOf(written)));
            }
            else if (type == DOUBLE) {
                DOUBLE.writeDouble(builder, Double.longBitsToDouble((Long) written));
            }
            else {
                type.writeLong(builder, ((Number) written).longValue());
            }
        }
        return builder.build();
    }

    /** The ids of the rows a scan of {@code id} and {@code name} decodes; the predicate's keys are those two's positions. */
    private static List<Long> scanIds(Path file, TupleDomain<Integer> predicate, ParquetReaderOptions options)
            throws IOException
    {
        List<FileColumn> columns = List.of(new FileColumn(0, BIGINT), new FileColumn(2, VARCHAR));
        List<Long> ids = new ArrayList<>();
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, options)) {
            ParquetMetadata footer = MetadataReader.readFooter(source, Optional.empty());
            try (ParquetScanReader reader = ParquetScanReader.create(source, footer, List.of(0, 1), columns, predicate, options, newSimpleAggregatedMemoryContext(), e -> e)) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    Block idBlock = page.getBlock(0);
                    Block nameBlock = page.getBlock(1);
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        long id = BIGINT.getLong(idBlock, position);
                        // the columns of a row decoded belong to that row
                        assertThat(VARCHAR.getSlice(nameBlock, position).toStringUtf8()).isEqualTo("name-%06d".formatted(id));
                        ids.add(id);
                    }
                }
            }
        }
        return ids;
    }

    private static FileMetaData footer(byte[] file)
            throws IOException
    {
        int length = ByteBuffer.wrap(file, file.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return Util.readFileMetaData(new ByteArrayInputStream(file, file.length - 8 - length, length));
    }

    private static OffsetIndex offsetIndex(byte[] file, ColumnChunk chunk)
            throws IOException
    {
        assertThat(chunk.isSetOffset_index_offset()).isTrue();
        return Util.readOffsetIndex(new ByteArrayInputStream(file, (int) chunk.getOffset_index_offset(), chunk.getOffset_index_length()));
    }

    private static Optional<ColumnIndex> columnIndex(byte[] file, ColumnChunk chunk)
            throws IOException
    {
        if (!chunk.isSetColumn_index_offset()) {
            return Optional.empty();
        }
        return Optional.of(Util.readColumnIndex(new ByteArrayInputStream(file, (int) chunk.getColumn_index_offset(), chunk.getColumn_index_length())));
    }

    private static long int64(ByteBuffer bound)
    {
        return bound.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static int int32(ByteBuffer bound)
    {
        return bound.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static byte[] bytes(ByteBuffer bound)
    {
        byte[] bytes = new byte[bound.remaining()];
        bound.duplicate().get(bytes);
        return bytes;
    }
}
