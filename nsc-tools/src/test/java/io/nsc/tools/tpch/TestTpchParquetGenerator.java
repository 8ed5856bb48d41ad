package io.nsc.tools.tpch;

import io.nsc.parquet.ParquetRows;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.stats.CompactFileStats;
import io.trino.tpch.TpchTable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestTpchParquetGenerator
{
    private static final double SCALE = 0.01;
    private static final int ROWS_PER_ROW_GROUP = 7_000;
    private static final long ROWS_PER_FILE = 25_000;
    private static final Map<String, Long> ROW_COUNTS = Map.of(
            "lineitem", 60_175L,
            "orders", 15_000L,
            "customer", 1_500L,
            "part", 2_000L,
            "partsupp", 8_000L,
            "supplier", 100L,
            "nation", 25L,
            "region", 5L);

    @TempDir
    static Path outputDir;

    private static final List<String> progress = new ArrayList<>();
    private static List<GeneratedTable> generated;

    @BeforeAll
    static void generate()
            throws IOException
    {
        generated = new TpchParquetGenerator(progress::add).generate(SCALE, outputDir, options());
    }

    private static TpchGeneratorOptions options()
    {
        return TpchGeneratorOptions.defaults()
                .withRowsPerRowGroup(ROWS_PER_ROW_GROUP)
                .withRowsPerFile(ROWS_PER_FILE);
    }

    @Test
    void writesEveryTableWithTpchRowCounts()
            throws Exception
    {
        for (Map.Entry<String, Long> entry : ROW_COUNTS.entrySet()) {
            long rows = 0;
            for (Path file : files(entry.getKey())) {
                rows += ParquetFooterParser.parse(file).rowCount();
            }
            assertThat(rows).as(entry.getKey()).isEqualTo(entry.getValue());
        }
        assertThat(progress).hasSize(8);
    }

    @Test
    void filesAndRowGroupsHoldAtMostTheRequestedRows()
            throws Exception
    {
        List<Path> lineitem = files("lineitem");
        assertThat(lineitem).extracting(file -> file.getFileName().toString())
                .containsExactly("lineitem-000.parquet", "lineitem-001.parquet", "lineitem-002.parquet");
        for (String table : ROW_COUNTS.keySet()) {
            for (Path file : files(table)) {
                CompactFileStats stats = ParquetFooterParser.parse(file).stats();
                assertThat(stats.rowCount()).isLessThanOrEqualTo(ROWS_PER_FILE);
                for (int rowGroup = 0; rowGroup < stats.rowGroupCount(); rowGroup++) {
                    assertThat(stats.rowGroupRowCount(rowGroup)).as("%s row group %s", file, rowGroup)
                            .isPositive()
                            .isLessThanOrEqualTo(ROWS_PER_ROW_GROUP);
                }
            }
        }
        // 25,000 rows in groups of at most 7,000: 7,000 + 7,000 + 7,000 + 4,000
        CompactFileStats first = ParquetFooterParser.parse(lineitem.getFirst()).stats();
        assertThat(first.rowGroupCount()).isEqualTo(4);
        assertThat(first.rowGroupRowCount(0)).isEqualTo(7_000);
        assertThat(first.rowGroupRowCount(3)).isEqualTo(4_000);
    }

    @Test
    void columnsAreNamedAndTypedAsTrinoTpchShowsThem()
            throws Exception
    {
        // Trino's tpch catalog shows varchar(n); Parquet has no length, so nsc reads plain varchar
        assertThat(ParquetFooterParser.parse(files("lineitem").getFirst()).columns()).containsExactly(
                new ColumnSpec("l_orderkey", "bigint"),
                new ColumnSpec("l_partkey", "bigint"),
                new ColumnSpec("l_suppkey", "bigint"),
                new ColumnSpec("l_linenumber", "integer"),
                new ColumnSpec("l_quantity", "double"),
                new ColumnSpec("l_extendedprice", "double"),
                new ColumnSpec("l_discount", "double"),
                new ColumnSpec("l_tax", "double"),
                new ColumnSpec("l_returnflag", "varchar"),
                new ColumnSpec("l_linestatus", "varchar"),
                new ColumnSpec("l_shipdate", "date"),
                new ColumnSpec("l_commitdate", "date"),
                new ColumnSpec("l_receiptdate", "date"),
                new ColumnSpec("l_shipinstruct", "varchar"),
                new ColumnSpec("l_shipmode", "varchar"),
                new ColumnSpec("l_comment", "varchar"));
        assertThat(ParquetFooterParser.parse(files("customer").getFirst()).columns())
                .contains(new ColumnSpec("c_mktsegment", "varchar"), new ColumnSpec("c_acctbal", "double"));
        assertThat(ParquetFooterParser.parse(files("orders").getFirst()).columns())
                .contains(new ColumnSpec("o_orderdate", "date"), new ColumnSpec("o_shippriority", "integer"));
        assertThat(TpchColumns.types(TpchTable.CUSTOMER).get(6).getDisplayName()).isEqualTo("varchar(10)");
    }

    @Test
    void lineitemIsSortedByShipDateAcrossFiles()
    {
        List<List<Object>> rows = readTable(TpchTable.LINE_ITEM);
        int shipDate = TpchColumns.names(TpchTable.LINE_ITEM).indexOf("l_shipdate");
        List<Integer> dates = rows.stream().map(row -> (Integer) row.get(shipDate)).collect(toImmutableList());
        assertThat(dates).hasSize(60_175).isSorted();
    }

    @Test
    void ordersIsSortedByOrderDate()
    {
        List<List<Object>> rows = readTable(TpchTable.ORDERS);
        int orderDate = TpchColumns.names(TpchTable.ORDERS).indexOf("o_orderdate");
        assertThat(rows.stream().map(row -> (Integer) row.get(orderDate)).toList()).hasSize(15_000).isSorted();
    }

    @Test
    void sortedTablesHoldTheGeneratorRowsInStableDateOrder()
    {
        assertSameRows(TpchTable.LINE_ITEM, "l_shipdate");
        assertSameRows(TpchTable.ORDERS, "o_orderdate");
    }

    @Test
    void otherTablesHoldTheGeneratorRowsInGeneratorOrder()
    {
        for (TpchTable<?> table : List.of(TpchTable.CUSTOMER, TpchTable.PART, TpchTable.PART_SUPPLIER, TpchTable.SUPPLIER, TpchTable.NATION, TpchTable.REGION)) {
            assertThat(readTable(table)).as(table.getTableName()).isEqualTo(expectedRows(table));
        }
    }

    @Test
    void sortedTablesFitInOneRunAtTheDefaultRunSize()
    {
        Map<String, GeneratedTable> byName = generated.stream().collect(toImmutableMap(GeneratedTable::table, table -> table));
        assertThat(byName.get("lineitem").sort()).contains(new SortStatistics(1, 0, 60_175, byName.get("lineitem").sort().orElseThrow().peakBufferBytes(), 0));
        assertThat(byName.get("orders").sort().orElseThrow().mergePasses()).isZero();
        assertThat(byName.get("customer").sort()).isEmpty();
        assertThat(progress).anyMatch(line -> line.startsWith("lineitem: 60175 rows in 3 files") && line.contains("sorted in memory"));
    }

    @Test
    void sortingInRunsWritesTheSameFilesAsSortingInMemory(@TempDir Path spilledDir)
            throws IOException
    {
        List<String> lines = new ArrayList<>();
        List<GeneratedTable> spilled = new TpchParquetGenerator(lines::add)
                .generate(SCALE, spilledDir, options().withTables(List.of("lineitem", "orders")).withSortRunRows(5_000));

        // 60,175 lineitem rows in runs of 5,000, 15,000 orders
        assertThat(spilled).extracting(table -> table.sort().orElseThrow().runs()).containsExactly(13, 3);
        assertThat(lines.getFirst()).contains("sorted in 13 runs of at most 5000 rows");
        for (GeneratedTable table : spilled) {
            SortStatistics sort = table.sort().orElseThrow();
            SortStatistics inMemory = generated.stream().filter(other -> other.table().equals(table.table())).findFirst().orElseThrow().sort().orElseThrow();
            assertThat(sort.peakBufferedRows()).isEqualTo(5_000);
            assertThat(sort.peakBufferBytes()).isLessThan(inMemory.peakBufferBytes());
            assertThat(sort.mergePasses()).isEqualTo(1);
            assertThat(sort.spilledBytes()).isPositive();

            List<Path> expectedFiles = files(outputDir, table.table());
            List<Path> actualFiles = files(spilledDir, table.table());
            assertThat(actualFiles).extracting(Path::getFileName).isEqualTo(expectedFiles.stream().map(Path::getFileName).toList());
            for (int i = 0; i < expectedFiles.size(); i++) {
                // byte for byte: the same rows in the same order, cut into the same row groups
                assertThat(Files.mismatch(expectedFiles.get(i), actualFiles.get(i))).as(actualFiles.get(i).toString()).isEqualTo(-1);
            }
        }
        try (Stream<Path> entries = Files.list(spilledDir)) {
            assertThat(entries.map(entry -> entry.getFileName().toString())).containsExactlyInAnyOrder("lineitem", "orders");
        }
    }

    @Test
    void failedSortedTableLeavesNoRunFiles(@TempDir Path failingDir)
            throws IOException
    {
        // the writer's temporary name for the second lineitem file is a directory: writing it fails mid-merge
        Files.createDirectories(failingDir.resolve("lineitem/.lineitem-001.parquet.tmp"));
        TpchGeneratorOptions options = options().withTables(List.of("lineitem")).withSortRunRows(5_000);
        assertThatThrownBy(() -> new TpchParquetGenerator().generate(SCALE, failingDir, options))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(".lineitem-001.parquet.tmp");
        try (Stream<Path> entries = Files.list(failingDir)) {
            assertThat(entries.map(entry -> entry.getFileName().toString())).containsExactly("lineitem");
        }
    }

    @Test
    void refusesToMixWithExistingFiles()
    {
        TpchGeneratorOptions options = TpchGeneratorOptions.defaults().withTables(List.of("nation"));
        assertThatThrownBy(() -> new TpchParquetGenerator().generate(SCALE, outputDir, options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("already holds Parquet files");
    }

    @Test
    void refusesUnknownTables()
    {
        assertThatThrownBy(() -> TpchParquetGenerator.resolveTables(List.of("nation", "lineitems")))
                .hasMessageContaining("Unknown TPC-H table 'lineitems'");
    }

    private void assertSameRows(TpchTable<?> table, String sortColumn)
    {
        List<List<Object>> expected = TpchRows.stableSorted(table, expectedRows(table), sortColumn);
        List<List<Object>> actual = readTable(table);
        assertThat(actual).hasSameSizeAs(expected);
        for (int index : List.of(0, 1, 2, 777, 12_345, actual.size() / 2, actual.size() - 1)) {
            assertThat(actual.get(index)).as("%s row %s", table.getTableName(), index).isEqualTo(expected.get(index));
        }
        assertThat(actual).isEqualTo(expected);
    }

    private static List<List<Object>> expectedRows(TpchTable<?> table)
    {
        return TpchRows.generatorRows(table, SCALE);
    }

    private List<List<Object>> readTable(TpchTable<?> table)
    {
        List<List<Object>> rows = new ArrayList<>();
        for (Path file : files(table.getTableName())) {
            rows.addAll(ParquetRows.readRows(file, TpchColumns.names(table), TpchColumns.types(table)));
        }
        return rows;
    }

    private static List<Path> files(String table)
    {
        return files(outputDir, table);
    }

    private static List<Path> files(Path directory, String table)
    {
        try (Stream<Path> files = Files.list(directory.resolve(table))) {
            return files.sorted().collect(toImmutableList());
        }
        catch (IOException e) {
            throw new RuntimeException(e);
        }
    }
}
