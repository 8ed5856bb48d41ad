package io.nsc.metadata.catalog;

import io.airlift.units.Duration;
import io.nsc.metadata.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.IntStream;

import static io.grpc.Status.Code.NOT_FOUND;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static java.util.concurrent.TimeUnit.HOURS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Listing many tables' definitions at once, as information_schema and JDBC metadata ask for
 * them: pages in name order hold every table of the schema (or of the catalog, or of the names
 * asked for) once, each exactly as {@link TableCatalog#getTable} reads it. Each subclass runs
 * these tests on one catalog backend.
 */
abstract class AbstractTestTableDefinitionListing
{
    private static final int TABLES_IN_A = 23;
    private static final int TABLES_IN_B = 4;

    private final TestingClock clock = new TestingClock(1_750_000_000_000L);
    private CatalogDatabase database;
    private TableCatalog tables;

    /** A new, empty database for one test. */
    protected abstract CatalogDatabase newDatabase();

    @BeforeEach
    void setUp()
    {
        database = newDatabase();
        tables = TestingCatalog.create(database, clock, new Duration(1, HOURS), new Duration(1, HOURS)).tables();
        tables.createSchema("a", false);
        tables.createSchema("b", false);
        tables.createSchema("empty", false);
        for (int i = 0; i < TABLES_IN_A; i++) {
            createTable(new SchemaTableName("a", "t%02d".formatted(i)), i);
        }
        for (int i = 0; i < TABLES_IN_B; i++) {
            createTable(new SchemaTableName("b", "u%d".formatted(i)), i);
        }
        // a dropped column keeps its slot; a comment set later is read like one given at creation
        tables.alterColumn(new SchemaTableName("a", "t03"), OptionalLong.empty(), new ColumnChange.Drop("c1"), Optional.empty());
        tables.setComment(new SchemaTableName("b", "u1"), Optional.of("c0"), Optional.of("set later"));
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    @Test
    void testEveryTableOnceInPagesAsGetTableReadsIt()
    {
        for (int limit : new int[] {1, 5, TABLES_IN_A + TABLES_IN_B, 1000}) {
            List<List<TableEntry>> pages = pages(Optional.empty(), List.of(), limit, true);
            assertThat(pages).allSatisfy(page -> assertThat(page).hasSizeLessThanOrEqualTo(limit));
            List<TableEntry> listed = pages.stream().flatMap(List::stream).toList();
            assertThat(listed).as("limit %s", limit).isEqualTo(getEach(tables.listTables(Optional.empty())));
        }
        assertThat(pages(Optional.of("b"), List.of(), 3, true).stream().flatMap(List::stream).toList())
                .isEqualTo(getEach(tables.listTables(Optional.of("b"))));
        assertThat(tables.listTableDefinitions(Optional.of("empty"), List.of(), Optional.empty(), 10, true)).isEmpty();
    }

    @Test
    void testDefinitions()
    {
        TableEntry dropped = only(tables.listTableDefinitions(Optional.of("a"), List.of(new SchemaTableName("a", "t03")), Optional.empty(), 10, true));
        assertThat(dropped.columns()).extracting(TableColumn::dropped).containsExactly(false, true, false);
        assertThat(dropped.comment()).contains("table 3");
        assertThat(dropped.properties()).isEqualTo(Map.of("sorted_by", "c0", "row_group_size", "3MB"));

        TableEntry commented = only(tables.listTableDefinitions(Optional.empty(), List.of(new SchemaTableName("b", "u1")), Optional.empty(), 10, true));
        assertThat(commented.columns().getFirst().comment()).contains("set later");
        assertThat(commented).isEqualTo(tables.getTable(new SchemaTableName("b", "u1")).orElseThrow());
    }

    @Test
    void testNamedTables()
    {
        List<SchemaTableName> names = List.of(
                new SchemaTableName("b", "u2"),
                new SchemaTableName("a", "t10"),
                new SchemaTableName("a", "missing"),
                new SchemaTableName("a", "t01"));
        // in name order, those that exist
        assertThat(tables.listTableDefinitions(Optional.empty(), names, Optional.empty(), 10, true))
                .isEqualTo(getEach(List.of(new SchemaTableName("a", "t01"), new SchemaTableName("a", "t10"), new SchemaTableName("b", "u2"))));
        assertThat(tables.listTableDefinitions(Optional.of("b"), names, Optional.empty(), 10, true))
                .isEqualTo(getEach(List.of(new SchemaTableName("b", "u2"))));
        assertThat(pages(Optional.empty(), names, 1, true)).hasSize(4);
    }

    @Test
    void testWithoutColumns()
    {
        List<TableEntry> definitions = tables.listTableDefinitions(Optional.empty(), List.of(), Optional.empty(), 1000, false);
        List<TableEntry> expected = getEach(tables.listTables(Optional.empty())).stream()
                .map(table -> new TableEntry(table.tableId(), table.name(), table.version(), table.createdMillis(), List.of(), table.properties(),
                        table.rowCount(), table.fileCount(), table.sizeBytes(), table.comment()))
                .toList();
        assertThat(definitions).isEqualTo(expected);
    }

    @Test
    void testMissingSchema()
    {
        assertStatus(() -> tables.listTableDefinitions(Optional.of("missing"), List.of(), Optional.empty(), 10, true), NOT_FOUND, "Schema missing does not exist");
    }

    private void createTable(SchemaTableName name, int number)
    {
        List<TableColumn> columns = IntStream.range(0, 3)
                .mapToObj(column -> new TableColumn("c" + column, column == 1 ? "varchar" : "bigint", column == 2 ? Optional.of("column 2 of " + name) : Optional.empty()))
                .toList();
        Map<String, String> properties = number % 2 == 1 ? Map.of("sorted_by", "c0", "row_group_size", number + "MB") : Map.of();
        Optional<String> comment = number % 3 == 0 ? Optional.of("table " + number) : Optional.empty();
        tables.createTable(name, columns, properties, comment, TableCatalog.ExistingTable.FAIL);
    }

    /** Every page of a listing, as a client pages: each after the last table of the one before, until a page is not full. */
    private List<List<TableEntry>> pages(Optional<String> schemaName, List<SchemaTableName> names, int limit, boolean withColumns)
    {
        List<List<TableEntry>> pages = new ArrayList<>();
        Optional<SchemaTableName> after = Optional.empty();
        while (true) {
            List<TableEntry> page = tables.listTableDefinitions(schemaName, names, after, limit, withColumns);
            pages.add(page);
            if (page.size() < limit) {
                return pages;
            }
            after = Optional.of(page.getLast().name());
        }
    }

    private List<TableEntry> getEach(List<SchemaTableName> names)
    {
        return names.stream().map(name -> tables.getTable(name).orElseThrow()).toList();
    }

    private static TableEntry only(List<TableEntry> entries)
    {
        assertThat(entries).hasSize(1);
        return entries.getFirst();
    }
}
