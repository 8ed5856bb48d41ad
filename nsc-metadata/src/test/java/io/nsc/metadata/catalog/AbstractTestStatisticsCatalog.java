package io.nsc.metadata.catalog;

import io.nsc.metadata.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.grpc.Status.Code.ABORTED;
import static io.grpc.Status.Code.INVALID_ARGUMENT;
import static io.grpc.Status.Code.NOT_FOUND;
import static io.grpc.Status.Code.OUT_OF_RANGE;
import static io.nsc.metadata.StatusAssertions.assertStatus;
import static io.nsc.metadata.StatusAssertions.assertStatusContains;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ANALYZE's column statistics in the catalog, the same on every backend
 * ({@link TestStatisticsCatalogOnH2}, {@link TestStatisticsCatalogOnPostgreSql}): kept durably
 * per column slot with the version they describe, the latest analysis winning, following a
 * renamed column, forgotten with a dropped column or table.
 */
abstract class AbstractTestStatisticsCatalog
{
    private static final SchemaTableName TABLE = new SchemaTableName("s", "t");
    private static final List<TableColumn> COLUMNS = List.of(new TableColumn("a", "bigint"), new TableColumn("b", "varchar"));

    private final TestingClock clock = new TestingClock(1_750_000_000_000L);
    private CatalogDatabase database;
    private TableCatalog tables;
    private StatisticsCatalog statistics;

    /** A new, empty database for one test. */
    protected abstract CatalogDatabase newDatabase();

    /** The database of the test, opened again after it was closed. */
    protected abstract CatalogDatabase reopenDatabase();

    @BeforeEach
    void setUp()
    {
        use(newDatabase());
        tables.createSchema("s", false);
    }

    @AfterEach
    void tearDown()
    {
        database.close();
    }

    private void use(CatalogDatabase database)
    {
        this.database = database;
        tables = TestingCatalog.create(database, clock).tables();
        statistics = new StatisticsCatalog(database, clock);
    }

    private long createTable()
    {
        tables.createTable(TABLE, COLUMNS, Map.of(), false);
        return tables.getTable(TABLE).orElseThrow().tableId();
    }

    @Test
    void testStoredPerSlotAndDurable()
    {
        long tableId = createTable();
        assertThat(statistics.getColumnStatistics(tableId)).contains(List.of());
        int stored = statistics.setColumnStatistics(TABLE, OptionalLong.of(tableId), 1, 100,
                List.of(new StatisticsCatalog.ColumnCounts(0, 90, 80), new StatisticsCatalog.ColumnCounts(1, 100, 3)));
        assertThat(stored).isEqualTo(2);
        List<AnalyzedColumn> expected = List.of(
                new AnalyzedColumn(0, 1, clock.millis(), 100, 90, 80),
                new AnalyzedColumn(1, 1, clock.millis(), 100, 100, 3));
        assertThat(statistics.getColumnStatistics(tableId)).contains(expected);
        // storing them made no version
        assertThat(tables.getTable(TABLE).orElseThrow().version()).isEqualTo(1);

        database.close();
        use(reopenDatabase());
        assertThat(statistics.getColumnStatistics(tableId)).contains(expected);
        assertThat(statistics.getColumnStatistics(tableId + 1)).isEmpty();
    }

    @Test
    void testLatestAnalysisWins()
    {
        long tableId = createTable();
        tables.alterColumn(TABLE, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("c", "bigint")), Optional.empty());
        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 2, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 10, 10)));
        long analyzedMillis = clock.millis();
        clock.advance(1, SECONDS);
        // an analysis of an older version (an ANALYZE that began before) keeps the newer one
        assertThat(statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 5, List.of(
                new StatisticsCatalog.ColumnCounts(0, 5, 5),
                new StatisticsCatalog.ColumnCounts(1, 5, 1)))).isEqualTo(1);
        assertThat(statistics.getColumnStatistics(tableId)).contains(List.of(
                new AnalyzedColumn(0, 2, analyzedMillis, 10, 10, 10),
                new AnalyzedColumn(1, 1, clock.millis(), 5, 5, 1)));
        // the same version again replaces (a second ANALYZE of an unchanged table)
        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 2, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 10, 9)));
        assertThat(statistics.getColumnStatistics(tableId).orElseThrow().getFirst().distinctCount()).isEqualTo(9);
    }

    @Test
    void testColumnChanges()
    {
        long tableId = createTable();
        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 100, List.of(
                new StatisticsCatalog.ColumnCounts(0, 100, 100),
                new StatisticsCatalog.ColumnCounts(1, 50, 7)));
        // a rename keeps the slot, and so its statistics
        tables.alterColumn(TABLE, OptionalLong.empty(), new ColumnChange.Rename("b", "bb"), Optional.empty());
        assertThat(statistics.getColumnStatistics(tableId).orElseThrow()).extracting(AnalyzedColumn::ordinal).containsExactly(0, 1);
        // a dropped column's values are gone, and its statistics with them
        tables.alterColumn(TABLE, OptionalLong.empty(), new ColumnChange.Drop("bb"), Optional.empty());
        assertThat(statistics.getColumnStatistics(tableId).orElseThrow()).extracting(AnalyzedColumn::ordinal).containsExactly(0);
        assertStatus(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 3, 100, List.of(new StatisticsCatalog.ColumnCounts(1, 1, 1))),
                NOT_FOUND, "Table s.t has no live column at place 1");
        // added again: a new slot, without statistics
        tables.alterColumn(TABLE, OptionalLong.empty(), new ColumnChange.Add(new TableColumn("bb", "varchar")), Optional.empty());
        assertThat(statistics.getColumnStatistics(tableId).orElseThrow()).extracting(AnalyzedColumn::ordinal).containsExactly(0);
    }

    @Test
    void testRefusalsChangeNothing()
    {
        long tableId = createTable();
        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 10, 10)));
        List<AnalyzedColumn> before = statistics.getColumnStatistics(tableId).orElseThrow();
        List<StatisticsCatalog.ColumnCounts> counts = List.of(new StatisticsCatalog.ColumnCounts(1, 10, 2), new StatisticsCatalog.ColumnCounts(0, 10, 4));
        assertStatus(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 2, 10, counts), OUT_OF_RANGE, "Table s.t is at version 1, not yet at 2");
        assertStatusContains(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 0, 10, counts), INVALID_ARGUMENT, "versions start at 1");
        assertStatus(() -> statistics.setColumnStatistics(TABLE, OptionalLong.of(tableId + 1), 1, 10, counts), ABORTED,
                "Table s.t was dropped and created again since ANALYZE began; no statistics were stored");
        assertStatus(() -> statistics.setColumnStatistics(new SchemaTableName("s", "missing"), OptionalLong.empty(), 1, 10, counts), NOT_FOUND, "Table s.missing does not exist");
        assertStatusContains(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 5, 6))),
                INVALID_ARGUMENT, "6 distinct of 5 non-null values in 10 rows");
        assertStatusContains(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 11, 1))),
                INVALID_ARGUMENT, "are inconsistent");
        // a bad column among good ones stores none of them
        assertStatus(() -> statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 10, 1), new StatisticsCatalog.ColumnCounts(2, 10, 1))),
                NOT_FOUND, "Table s.t has no live column at place 2");
        assertThat(statistics.getColumnStatistics(tableId).orElseThrow()).isEqualTo(before);
    }

    @Test
    void testDropAndTruncateForgetThem()
    {
        long tableId = createTable();
        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 10, List.of(new StatisticsCatalog.ColumnCounts(0, 10, 10)));
        TableCatalog.TruncatedTable truncated = tables.truncateTable(TABLE, OptionalLong.of(tableId));
        long newTableId = truncated.table().tableId();
        assertThat(statistics.getColumnStatistics(tableId)).isEmpty();
        assertThat(statistics.getColumnStatistics(newTableId)).contains(List.of());

        statistics.setColumnStatistics(TABLE, OptionalLong.empty(), 1, 0, List.of(new StatisticsCatalog.ColumnCounts(0, 0, 0)));
        tables.dropTable(TABLE, false);
        assertThat(statistics.getColumnStatistics(newTableId)).isEmpty();
        // a table of the same name starts without any
        assertThat(statistics.getColumnStatistics(createTable())).contains(List.of());
    }
}
