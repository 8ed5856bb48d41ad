package io.nsc.metadata.catalog;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog on the embedded H2 database, and what only H2 has: data directories left by
 * earlier releases.
 */
final class TestCatalogOnH2
        extends AbstractTestCatalog
{
    @TempDir
    Path dataDir;

    @Override
    protected CatalogDatabase newDatabase()
    {
        return H2CatalogDatabase.open(dataDir.resolve("catalog"));
    }

    @Override
    protected CatalogDatabase reopenDatabase()
    {
        return H2CatalogDatabase.open(dataDir.resolve("catalog"));
    }

    @Override
    protected CatalogDatabase newOtherDatabase()
    {
        return H2CatalogDatabase.open(dataDir.resolve("other"));
    }

    @Test
    void testUpgradeFromSchemaVersion1()
            throws Exception
    {
        database.close();
        Path directory = dataDir.resolve("old");
        FileEntry committed = file(10, "node-a");
        FileEntry allocated = file(20, "node-a");
        // a catalog as the first release of the service left it
        try (CatalogDatabase old = H2CatalogDatabase.openAtSchemaVersion(directory, 1)) {
            old.inTransaction(handle -> {
                handle.execute("INSERT INTO schemas VALUES ('tpch', 1)");
                handle.execute("INSERT INTO tables (table_id, schema_name, table_name, version, created_millis, row_count, file_count, size_bytes) VALUES (7, 'tpch', 'lineitem', 1, 1, 10, 1, 1010)");
                handle.execute("INSERT INTO columns VALUES (7, 0, 'l_orderkey', 'bigint')");
                handle.execute("INSERT INTO nodes VALUES ('node-a', '127.0.0.1:7001', 1000, 900, 1, 1)");
                handle.execute("INSERT INTO files VALUES (?, 7, 1, 0, 1010, 10, 0, ?)", committed.fileId(), committed.compactStats().toByteArray());
                return handle.execute("INSERT INTO allocations VALUES (?, ?, 'node-a')", allocated.fileId(), clock.millis());
            });
            assertThat(old.schemaVersion()).isEqualTo(1);
            assertThat(countRows(old, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'TABLE_PROPERTIES'")).isZero();
        }

        use(H2CatalogDatabase.open(directory));
        assertThat(database.schemaVersion()).isEqualTo(CatalogSchema.VERSION).isEqualTo(15);
        assertThat(cluster.clusterId()).matches(UUID_PATTERN);
        TableEntry table = tables.getTable(LINEITEM).orElseThrow();
        assertThat(table.tableId()).isEqualTo(7);
        assertThat(table.properties()).isEmpty();
        // the old open allocation is still open, the committed file still claimed
        assertThat(allocations.findOrphans("node-a", List.of(committed.fileId(), allocated.fileId()))).isEmpty();
        assertThat(commits.commit(commit(LINEITEM, List.of(new TableColumn("l_orderkey", "bigint")), false, List.of(allocated), OptionalLong.of(1))).version()).isEqualTo(2);
        tables.createTable(new SchemaTableName("tpch", "orders"), LINEITEM_COLUMNS, PROPERTIES, false);
        assertThat(tables.getTable(new SchemaTableName("tpch", "orders")).orElseThrow().properties()).isEqualTo(PROPERTIES);
        assertThat(tables.dropTable(LINEITEM, false)).contains(new DroppedTable(7, 2));
    }

    @Test
    void testUpgradeFromSchemaVersion2()
            throws Exception
    {
        database.close();
        Path directory = dataDir.resolve("v2");
        FileEntry committed = file(10, "node-a");
        // a catalog as the release before cluster ids left it
        try (CatalogDatabase old = H2CatalogDatabase.openAtSchemaVersion(directory, 2)) {
            // the node as that release registered it (today's registration reads newer columns)
            old.inTransaction(handle -> handle.execute("INSERT INTO nodes (node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis) VALUES ('node-a', '127.0.0.1:7001', 1000, 900, 0, 1)"));
            TestingCatalog.create(old, clock).tables().createSchema("tpch", false);
            // the table and its file as that release wrote them (today's commit writes newer columns)
            old.inTransaction(handle -> {
                handle.execute("INSERT INTO tables (table_id, schema_name, table_name, version, created_millis, row_count, file_count, size_bytes) VALUES (7, 'tpch', 'lineitem', 1, 1, 10, 1, 1010)");
                handle.execute("INSERT INTO columns VALUES (7, 0, 'l_orderkey', 'bigint')");
                PROPERTIES.forEach((name, value) -> handle.execute("INSERT INTO table_properties VALUES (7, ?, ?)", name, value));
                handle.execute("INSERT INTO files VALUES (?, 7, 1, 0, 1010, 10, 0, ?)", committed.fileId(), committed.compactStats().toByteArray());
                return handle.execute("INSERT INTO file_replicas VALUES (?, 'node-a', 0)", committed.fileId());
            });
            assertThat(old.schemaVersion()).isEqualTo(2);
            assertThat(countRows(old, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'CLUSTER'")).isZero();
        }

        use(H2CatalogDatabase.open(directory));
        assertThat(database.schemaVersion()).isEqualTo(CatalogSchema.VERSION).isEqualTo(15);
        String clusterId = cluster.clusterId();
        assertThat(clusterId).matches(UUID_PATTERN);
        // the catalog is as it was
        assertThat(tables.getTable(LINEITEM).orElseThrow().properties()).isEqualTo(PROPERTIES);
        // tables and columns from before comments have none
        assertThat(tables.getTable(LINEITEM).orElseThrow().comment()).isEmpty();
        assertThat(tables.getTable(LINEITEM).orElseThrow().columns()).containsExactly(new TableColumn("l_orderkey", "bigint"));
        assertThat(allocations.findOrphans("node-a", List.of(committed.fileId()))).isEmpty();
        // a file committed before sketches existed has none
        long tableId = tables.getTable(LINEITEM).orElseThrow().tableId();
        assertThat(tables.getTableFiles(tableId).orElseThrow().files().getFirst().columnSketches()).isEqualTo(ByteString.EMPTY);

        // assigned once by the upgrade, then kept
        database.close();
        use(H2CatalogDatabase.open(directory));
        assertThat(cluster.clusterId()).isEqualTo(clusterId);
    }
}
