package io.nsc.parquet.scan;

import io.nsc.parquet.LocalParquetDataSource;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.reader.MetadataReader;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.Range;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.predicate.ValueSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.airlift.slice.Slices.utf8Slice;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Page indexes in a file written by pyarrow ({@code page_index.parquet} of nsc-protocol's
 * fixtures: ids 0 to 19,999 sorted, the same ids shuffled, a name per id; 2 row groups of 10,000
 * rows in pages of about 4 KB, with column and offset indexes): a predicate on the sorted column
 * decodes only the pages that may match, and the rows that match are all there.
 */
final class TestParquetScanReaderPageIndexes
{
    private static final int ROWS = 20_000;
    private static final ParquetReaderOptions WITH_PAGE_INDEXES = ParquetReaderOptions.builder().build();
    private static final ParquetReaderOptions WITHOUT_PAGE_INDEXES = ParquetReaderOptions.builder().withUseColumnIndex(false).build();
    private static final List<FileColumn> COLUMNS = List.of(new FileColumn(0, BIGINT), new FileColumn(1, BIGINT), new FileColumn(2, VARCHAR));

    @TempDir
    Path directory;

    @Test
    void rangeOnTheSortedColumnDecodesOnlyItsPages()
            throws IOException
    {
        TupleDomain<Integer> idRange = TupleDomain.withColumnDomains(Map.of(0, between(12_340, 12_345)));
        Scan scan = scan(List.of(0, 1), COLUMNS, idRange, WITH_PAGE_INDEXES);
        assertThat(scan.matchingIds(12_340, 12_345)).containsExactly(12_340L, 12_341L, 12_342L, 12_343L, 12_344L, 12_345L);
        // a page of ~4 KB of plain bigints holds about 500 rows: a few pages of one row group
        assertThat(scan.rowsDecoded()).isPositive().isLessThan(ROWS / 10);
        // every column of a row decoded belongs to that row
        assertThat(scan.rowsAligned()).isTrue();

        assertThat(scan(List.of(0, 1), COLUMNS, idRange, WITHOUT_PAGE_INDEXES).rowsDecoded()).isEqualTo(ROWS);
        // a row group the range misses entirely, asked for anyway, gives no row
        assertThat(scan(List.of(0), COLUMNS, idRange, WITH_PAGE_INDEXES).rowsDecoded()).isZero();
    }

    @Test
    void domainsThePageIndexCannotAnswerSkipNothing()
            throws IOException
    {
        // the shuffled column's pages each span nearly all ids: every page may match
        TupleDomain<Integer> shuffledPoint = TupleDomain.withColumnDomains(Map.of(1, Domain.singleValue(BIGINT, 777L)));
        Scan shuffled = scan(List.of(0, 1), COLUMNS, shuffledPoint, WITH_PAGE_INDEXES);
        assertThat(shuffled.rowsDecoded()).isEqualTo(ROWS);
        assertThat(shuffled.rowsWhere(1, 777)).hasSize(1);
        // its indexes are read (the statistics cannot tell), but declare its pages unordered: the
        // page filter is not started
        assertThat(shuffled.indexesLoaded()).containsExactly(0, 1);

        // a domain on a computed value (a position past the file's columns) is not the file's
        TupleDomain<Integer> computed = TupleDomain.withColumnDomains(Map.of(3, between(0, 1)));
        assertThat(scan(List.of(0, 1), COLUMNS, computed, WITH_PAGE_INDEXES).rowsDecoded()).isEqualTo(ROWS);

        // row positions count the rows read: no page is skipped when they are asked for
        List<FileColumn> withPositions = List.of(new FileColumn(0, BIGINT), FileColumn.rowPosition());
        TupleDomain<Integer> idRange = TupleDomain.withColumnDomains(Map.of(0, between(12_340, 12_345)));
        Scan positions = scan(List.of(0, 1), withPositions, idRange, WITH_PAGE_INDEXES);
        assertThat(positions.rowsDecoded()).isEqualTo(ROWS);
        assertThat(positions.rowsAligned()).isTrue();
    }

    @Test
    void indexesAreNotReadWhereTheStatisticsShowEveryRowMayMatch()
            throws IOException
    {
        // the range holds all of the sorted column's values: no page can be skipped
        Scan everything = scan(List.of(0, 1), COLUMNS, TupleDomain.withColumnDomains(Map.of(0, between(-5, 1_000_000))), WITH_PAGE_INDEXES);
        assertThat(everything.rowsDecoded()).isEqualTo(ROWS);
        assertThat(everything.indexesLoaded()).isEmpty();

        // the second row group (ids 10,000 to 19,999) lies wholly inside, the first only partly
        Scan partly = scan(List.of(0, 1), COLUMNS, TupleDomain.withColumnDomains(Map.of(0, between(9_000, 1_000_000))), WITH_PAGE_INDEXES);
        assertThat(partly.indexesLoaded()).containsExactly(0);
        assertThat(partly.matchingIds(9_000, 1_000_000)).hasSize(11_000);
        assertThat(partly.rowsDecoded()).isLessThan(ROWS * 6 / 10);
        assertThat(partly.rowsAligned()).isTrue();

        // options that turn page indexes off read none
        assertThat(scan(List.of(0, 1), COLUMNS, TupleDomain.withColumnDomains(Map.of(0, between(12_340, 12_345))), WITHOUT_PAGE_INDEXES).indexesLoaded()).isEmpty();
    }

    @Test
    void rangeOnTheStringColumnUsesItsPageIndex()
            throws IOException
    {
        Domain names = Domain.create(ValueSet.ofRanges(Range.range(VARCHAR, utf8Slice("name-04000"), true, utf8Slice("name-04003"), true)), false);
        Scan scan = scan(List.of(0, 1), COLUMNS, TupleDomain.withColumnDomains(Map.of(2, names)), WITH_PAGE_INDEXES);
        assertThat(scan.matchingIds(4_000, 4_003)).containsExactly(4_000L, 4_001L, 4_002L, 4_003L);
        assertThat(scan.rowsDecoded()).isLessThan(ROWS / 10);
    }

    private static Domain between(long low, long high)
    {
        return Domain.create(ValueSet.ofRanges(Range.range(BIGINT, low, true, high, true)), false);
    }

    private Scan scan(List<Integer> rowGroups, List<FileColumn> columns, TupleDomain<Integer> predicate, ParquetReaderOptions options)
            throws IOException
    {
        Path file = fixture();
        List<long[]> rows = new ArrayList<>();
        List<Integer> indexesLoaded = new ArrayList<>();
        boolean aligned = true;
        try (LocalParquetDataSource source = LocalParquetDataSource.open(file, options)) {
            ParquetMetadata footer = MetadataReader.readFooter(source, Optional.empty());
            PageIndexLoader reading = PageIndexLoader.reading(source);
            PageIndexLoader counting = (rowGroup, block, columnPaths) -> {
                indexesLoaded.add(rowGroup);
                return reading.load(rowGroup, block, columnPaths);
            };
            try (ParquetScanReader reader = ParquetScanReader.create(source, footer, rowGroups, columns, predicate, counting, options, newSimpleAggregatedMemoryContext(), e -> e)) {
                for (SourcePage page = reader.nextPage(); page != null; page = reader.nextPage()) {
                    Block ids = page.getBlock(0);
                    Block second = page.getBlock(1);
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        long id = BIGINT.getLong(ids, position);
                        long other = BIGINT.getLong(second, position);
                        rows.add(new long[] {id, other});
                        if (columns.get(1).isRowPosition()) {
                            // the fixture's ids are the rows' places in the file
                            aligned &= other == id;
                        }
                        else if (columns.size() > 2) {
                            aligned &= VARCHAR.getSlice(page.getBlock(2), position).toStringUtf8().equals("name-%05d".formatted(id));
                        }
                    }
                }
            }
        }
        return new Scan(rows, aligned, indexesLoaded);
    }

    private Path fixture()
            throws IOException
    {
        Path file = directory.resolve("page_index.parquet");
        if (!Files.exists(file)) {
            try (InputStream in = requireNonNull(getClass().getResourceAsStream("/parquet/page_index.parquet"), "fixture page_index.parquet of nsc-protocol's test jar")) {
                Files.copy(in, file);
            }
        }
        return file;
    }

    private record Scan(List<long[]> rows, boolean rowsAligned, List<Integer> indexesLoaded)
    {
        long rowsDecoded()
        {
            return rows.size();
        }

        List<Long> matchingIds(long low, long high)
        {
            return rows.stream().map(row -> row[0]).filter(id -> id >= low && id <= high).toList();
        }

        List<long[]> rowsWhere(int column, long value)
        {
            return rows.stream().filter(row -> row[column] == value).toList();
        }
    }
}
