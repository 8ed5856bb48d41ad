package io.nsc.metadata.catalog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

final class TestStatisticsCatalogOnH2
        extends AbstractTestStatisticsCatalog
{
    @TempDir
    Path dataDir;

    @Override
    protected CatalogDatabase newDatabase()
    {
        return reopenDatabase();
    }

    @Override
    protected CatalogDatabase reopenDatabase()
    {
        return H2CatalogDatabase.open(dataDir.resolve("catalog"));
    }

    @Test
    void testUpgradeFromSchemaVersion13()
    {
        Path directory = dataDir.resolve("old");
        SchemaTableName name = new SchemaTableName("old", "t");
        // a catalog as the release before ANALYZE left it, with a table
        try (CatalogDatabase old = H2CatalogDatabase.openAtSchemaVersion(directory, 13)) {
            TableCatalog tables = TestingCatalog.create(old, Clock.systemUTC()).tables();
            tables.createSchema("old", false);
            tables.createTable(name, List.of(new TableColumn("x", "bigint")), Map.of(), false);
        }
        try (CatalogDatabase upgraded = H2CatalogDatabase.open(directory)) {
            assertThat(upgraded.schemaVersion()).isEqualTo(CatalogSchema.VERSION);
            long tableId = TestingCatalog.create(upgraded, Clock.systemUTC()).tables().getTable(name).orElseThrow().tableId();
            StatisticsCatalog statistics = new StatisticsCatalog(upgraded, Clock.systemUTC());
            assertThat(statistics.getColumnStatistics(tableId)).contains(List.of());
            statistics.setColumnStatistics(name, OptionalLong.empty(), 1, 0, List.of(new StatisticsCatalog.ColumnCounts(0, 0, 0)));
            assertThat(statistics.getColumnStatistics(tableId).orElseThrow()).hasSize(1);
        }
    }
}
