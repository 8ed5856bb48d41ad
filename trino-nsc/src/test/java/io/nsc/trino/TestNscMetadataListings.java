package io.nsc.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;

import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

import static io.trino.spi.type.VarcharType.VARCHAR;
import static io.trino.testing.MaterializedResult.resultBuilder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.parallel.ExecutionMode.SAME_THREAD;

/**
 * What BI tools list on every connect, {@code information_schema.columns} and table comments
 * over a schema or the whole catalog, costs the metadata service a page of table definitions
 * per few hundred tables, not a lookup per table: the service's counters stay the same for a
 * schema of 40 tables as for one of 3. Trino's access control sees the names first, and only the
 * tables it keeps are read.
 */
// the tests compare the metadata service's counters before and after their queries
@Execution(SAME_THREAD)
final class TestNscMetadataListings
        extends AbstractTestQueryFramework
{
    private static final int MANY = 40;
    private static final int FEW = 3;
    private static final int COLUMNS = 5;

    private TestingNscCluster cluster;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        return NscQueryRunner.builder(cluster).setWorkerCount(0).build();
    }

    @BeforeAll
    void createTables()
    {
        assertUpdate("CREATE SCHEMA nsc.many");
        assertUpdate("CREATE SCHEMA nsc.few");
        for (int table = 0; table < MANY; table++) {
            createTable("many", table);
        }
        for (int table = 0; table < FEW; table++) {
            createTable("few", table);
        }
    }

    private void createTable(String schema, int table)
    {
        String columns = String.join(", ", IntStream.range(0, COLUMNS)
                .mapToObj(column -> "c%s %s%s".formatted(column, column % 2 == 0 ? "bigint" : "varchar", column == 2 ? " COMMENT 'third of %s'".formatted(table) : ""))
                .toList());
        assertUpdate("CREATE TABLE nsc.%s.t%02d (%s) COMMENT 'table %s'".formatted(schema, table, columns, table));
    }

    @Test
    void testColumnsOfASchemaInOneListing()
    {
        Counted many = counted("SELECT table_name, column_name, data_type, comment FROM nsc.information_schema.columns WHERE table_schema = 'many'");
        assertThat(many.result().getRowCount()).isEqualTo(MANY * COLUMNS);
        Counted few = counted("SELECT table_name, column_name, data_type, comment FROM nsc.information_schema.columns WHERE table_schema = 'few'");
        assertThat(few.result().getRowCount()).isEqualTo(FEW * COLUMNS);

        assertThat(many.lookups()).isZero();
        assertThat(many.pages()).isEqualTo(1).isEqualTo(few.pages());
        assertThat(many.listed()).isEqualTo(MANY);
        assertThat(few.listed()).isEqualTo(FEW);

        assertQuery("SELECT table_name, column_name, data_type, comment FROM nsc.information_schema.columns WHERE table_schema = 'few' AND column_name IN ('c1', 'c2')",
                "VALUES ('t00', 'c1', 'varchar', NULL), ('t00', 'c2', 'bigint', 'third of 0'), " +
                        "('t01', 'c1', 'varchar', NULL), ('t01', 'c2', 'bigint', 'third of 1'), " +
                        "('t02', 'c1', 'varchar', NULL), ('t02', 'c2', 'bigint', 'third of 2')");
    }

    @Test
    void testWholeCatalog()
    {
        Counted catalog = counted("SELECT table_schema, table_name, column_name FROM nsc.information_schema.columns");
        // beside information_schema's own columns, which are Trino's
        assertThat(catalog.result().getMaterializedRows().stream().filter(row -> Set.of("many", "few").contains(row.getField(0))).count()).isEqualTo((MANY + FEW) * COLUMNS);
        assertThat(catalog.lookups()).isZero();
        // one listing of the catalog; Trino may also list a schema at a time
        assertThat(catalog.pages()).isBetween(1L, 3L);

        Counted jdbc = counted("SELECT table_schem, table_name, column_name, remarks FROM system.jdbc.columns WHERE table_cat = 'nsc'");
        assertThat(jdbc.result().getMaterializedRows().stream().filter(row -> Set.of("many", "few").contains(row.getField(0))).count()).isEqualTo((MANY + FEW) * COLUMNS);
        assertThat(jdbc.lookups()).isZero();
        assertThat(jdbc.pages()).isBetween(1L, 3L);
    }

    @Test
    void testTableComments()
    {
        Counted comments = counted("SELECT table_name, comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'few'");
        assertThat(comments.result()).containsExactlyInAnyOrderElementsOf(resultBuilder(getSession(), VARCHAR, VARCHAR)
                .row("t00", "table 0")
                .row("t01", "table 1")
                .row("t02", "table 2")
                .build());
        assertThat(comments.lookups()).isZero();
        assertThat(comments.pages()).isEqualTo(1);

        Counted many = counted("SELECT table_name, comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = 'many'");
        assertThat(many.result().getRowCount()).isEqualTo(MANY);
        assertThat(many.lookups()).isZero();
        assertThat(many.pages()).isEqualTo(1);
    }

    @Test
    void testAccessControlNarrowsTheListingFirst()
    {
        Set<String> visible = Set.of("t01", "t17", "t33");
        // the predicate names the tables kept
        getQueryRunner().getAccessControl().denyTables(table -> !table.getSchemaName().equals("many") || visible.contains(table.getTableName()));
        try {
            Counted narrowed = counted("SELECT DISTINCT table_name FROM nsc.information_schema.columns WHERE table_schema = 'many'");
            assertThat(narrowed.result().getOnlyColumnAsSet()).isEqualTo(visible);
            assertThat(narrowed.lookups()).isZero();
            assertThat(narrowed.pages()).isEqualTo(1);
            // only the kept tables were read
            assertThat(narrowed.listed()).isEqualTo(visible.size());
        }
        finally {
            getQueryRunner().getAccessControl().reset();
        }
    }

    private record Counted(MaterializedResult result, long lookups, long pages, long listed) {}

    private Counted counted(String sql)
    {
        Map<String, Long> before = cluster.metadataMetrics();
        MaterializedResult result = computeActual(sql);
        Map<String, Long> after = cluster.metadataMetrics();
        return new Counted(
                result,
                after.get("table_lookups") - before.get("table_lookups"),
                after.get("table_definition_pages") - before.get("table_definition_pages"),
                after.get("table_definitions_listed") - before.get("table_definitions_listed"));
    }
}
