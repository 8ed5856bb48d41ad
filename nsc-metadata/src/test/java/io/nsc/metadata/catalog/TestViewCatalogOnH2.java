package io.nsc.metadata.catalog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

final class TestViewCatalogOnH2
        extends AbstractTestViewCatalog
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
    void testUpgradeFromSchemaVersion11()
    {
        Path directory = dataDir.resolve("old");
        // a catalog as the release before views left it
        try (CatalogDatabase old = H2CatalogDatabase.openAtSchemaVersion(directory, 11)) {
            TestingCatalog.create(old, Clock.systemUTC()).tables().createSchema("old", false);
        }
        try (CatalogDatabase upgraded = H2CatalogDatabase.open(directory)) {
            assertThat(upgraded.schemaVersion()).isEqualTo(CatalogSchema.VERSION);
            TableCatalog tables = TestingCatalog.create(upgraded, Clock.systemUTC()).tables();
            ViewCatalog views = new ViewCatalog(upgraded, Clock.systemUTC());
            tables.createTable(new SchemaTableName("old", "t"), List.of(new TableColumn("x", "bigint")), Map.of(), false);
            views.createView(new SchemaTableName("old", "v"), "{}", Optional.empty(), false);
            assertThat(views.listViews(Optional.of("old"))).containsExactly(new SchemaTableName("old", "v"));
        }
    }
}
