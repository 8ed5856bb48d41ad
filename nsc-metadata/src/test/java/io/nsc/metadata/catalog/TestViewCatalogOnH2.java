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

    @Test
    void testUpgradeFromSchemaVersion14KeepsViewsPlain()
    {
        Path directory = dataDir.resolve("before-materialized");
        // a catalog as the release before materialized views left it, with a view
        try (CatalogDatabase old = H2CatalogDatabase.openAtSchemaVersion(directory, 14)) {
            TestingCatalog.create(old, Clock.systemUTC()).tables().createSchema("old", false);
            // as that release wrote it: without the column this one adds
            old.inTransaction(handle -> handle.execute("INSERT INTO views (schema_name, view_name, definition, version, created_millis) VALUES ('old', 'v', '{}', 1, 0)"));
        }
        try (CatalogDatabase upgraded = H2CatalogDatabase.open(directory)) {
            assertThat(upgraded.schemaVersion()).isEqualTo(CatalogSchema.VERSION);
            ViewCatalog views = new ViewCatalog(upgraded, Clock.systemUTC());
            assertThat(views.listViews(Optional.of("old"))).containsExactly(new SchemaTableName("old", "v"));
            assertThat(views.listViews(Optional.of("old"), true)).isEmpty();
            views.createView(new SchemaTableName("old", "m"), "{}", Optional.empty(), false, true);
            assertThat(views.listViews(Optional.of("old"), true)).containsExactly(new SchemaTableName("old", "m"));
        }
    }
}
