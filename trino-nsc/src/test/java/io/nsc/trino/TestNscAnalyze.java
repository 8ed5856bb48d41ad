package io.nsc.trino;

import io.nsc.tools.load.LoadOptions;
import io.nsc.tools.load.ParquetLoader;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.apache.parquet.format.CompressionCodec;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.trino.plugin.tpch.ColumnNaming.SIMPLIFIED;
import static java.util.stream.Collectors.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * ANALYZE and SHOW STATS through SQL. Tables loaded without verification have no column sketches,
 * so their distinct counts are unknown until ANALYZE computes them; tables written through SQL have
 * sketches, which ANALYZE's counts replace at the version analyzed. Later writes scale an analyzed
 * key's count with its rows and keep any other column's (see NscTableStatistics); a renamed column
 * keeps its count, a dropped one loses it.
 */
final class TestNscAnalyze
        extends AbstractTestQueryFramework
{
    private static final String SCHEMA = "analyze";

    private TestingNscCluster cluster;
    private Path files;

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        cluster = closeAfterClass(TestingNscCluster.start(2));
        files = Files.createDirectories(cluster.root().resolve("analyze-files"));
        QueryRunner queryRunner = NscQueryRunner.builder(cluster).setTpchColumnNaming(SIMPLIFIED).build();
        queryRunner.execute("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
        return queryRunner;
    }

    @Test
    void testAnalyzeComputesUnknownDistinctCounts()
    {
        loadWithoutSketches("unknown", "SELECT orderkey AS k, orderstatus AS s, IF(orderkey % 3 = 0, NULL, custkey) AS c, CAST(NULL AS bigint) AS n FROM tpch.tiny.orders", "k", "s", "c", "n");
        assertThat(distinctCounts("unknown")).containsExactly(null, null, null, null);

        assertUpdate("ANALYZE nsc.analyze.unknown", 15000);
        Map<String, MaterializedRow> stats = showStats("unknown");
        assertThat(stats.get(null).getField(4)).isEqualTo(15000.0);
        assertThat(distinct(stats, "k")).isCloseTo(15000, within(15000 * 0.05));
        assertThat(distinct(stats, "s")).isEqualTo(3.0);
        // nulls: from the compact stats; distinct values: among the non-null ones
        long custkeys = (long) computeScalar("SELECT count(DISTINCT custkey) FROM tpch.tiny.orders WHERE orderkey % 3 <> 0");
        assertThat(distinct(stats, "c")).isCloseTo(custkeys, within(custkeys * 0.05));
        assertThat((double) stats.get("c").getField(3)).isCloseTo(1.0 / 3, within(0.01));
        assertThat(distinct(stats, "n")).isEqualTo(0.0);
        assertThat(stats.get("n").getField(3)).isEqualTo(1.0);
        // exactly what approx_distinct says of the same rows, but never more than the values it counted
        assertThat(distinct(stats, "k")).isEqualTo(Math.min(15000.0, (Long) computeScalar("SELECT approx_distinct(k) FROM nsc.analyze.unknown")));
    }

    @Test
    void testColumnList()
    {
        loadWithoutSketches("listed", "SELECT orderkey AS k, orderstatus AS s, orderpriority AS p FROM tpch.tiny.orders", "k", "s", "p");
        assertUpdate("ANALYZE nsc.analyze.listed WITH (columns = ARRAY['s', 'P'])", 15000);
        assertThat(distinctCounts("listed")).containsExactly(null, 3.0, 5.0);
        // a later ANALYZE of other columns keeps what the first one stored
        assertUpdate("ANALYZE nsc.analyze.listed WITH (columns = ARRAY['k'])", 15000);
        assertThat(distinctCounts("listed").get(1)).isEqualTo(3.0);
        assertThat(distinctCounts("listed").get(0)).isCloseTo(15000, within(15000 * 0.05));

        assertQueryFails("ANALYZE nsc.analyze.listed WITH (columns = ARRAY['k', 'nope'])", "\\QInvalid columns specified for analysis: [nope]\\E");
        assertQueryFails("ANALYZE nsc.analyze.listed WITH (columns = ARRAY[])", "Cannot specify empty list of columns for analysis");
        assertQueryFails("ANALYZE nsc.analyze.listed WITH (columns = ARRAY['k', NULL])", ".*Invalid null value in analyze columns property.*");
        assertQueryFails("ANALYZE nsc.analyze.listed WITH (nope = 1)", ".*nope.*does not exist.*");
    }

    @Test
    void testLaterWrites()
    {
        loadWithoutSketches("grown", "SELECT orderkey AS k, orderstatus AS s FROM tpch.tiny.orders WHERE orderkey < 30000", "k", "s");
        long before = (long) computeScalar("SELECT count(*) FROM nsc.analyze.grown");
        assertUpdate("ANALYZE nsc.analyze.grown", before);
        double keys = distinctCounts("grown").get(0);
        double statuses = distinctCounts("grown").get(1);
        assertThat(keys / before).isGreaterThan(0.9);

        assertUpdate("INSERT INTO nsc.analyze.grown SELECT orderkey, orderstatus FROM tpch.tiny.orders WHERE orderkey >= 30000", 15000 - before);
        // the loaded file has no sketches: the analysis stands, a key grown with its rows, the rest as it was
        assertThat(showStats("grown").get(null).getField(4)).isEqualTo(15000.0);
        assertThat(distinctCounts("grown").get(0)).isCloseTo(keys * 15000 / before, within(1e-6));
        assertThat(distinctCounts("grown").get(1)).isEqualTo(statuses);

        // an ADD COLUMN moves the table on without a row: the same counts
        assertUpdate("ALTER TABLE nsc.analyze.grown ADD COLUMN x bigint");
        assertThat(distinctCounts("grown").subList(0, 2)).containsExactly(keys * 15000 / before, statuses);

        // the DELETE rewrites the loaded file's survivors with sketches: now every file has them
        assertUpdate("DELETE FROM nsc.analyze.grown WHERE k >= 100", 15000 - 27);
        assertThat(distinctCounts("grown").get(0)).isCloseTo(27, within(1.0));
        assertUpdate("ANALYZE nsc.analyze.grown", 27);
        assertThat(distinctCounts("grown").get(0)).isCloseTo(27, within(1.0));
    }

    @Test
    void testSketchesOfLaterWritesWinOverAnOlderAnalysis()
    {
        long before = (long) computeScalar("SELECT count(*) FROM tpch.tiny.orders WHERE orderkey < 30000");
        assertUpdate("CREATE TABLE nsc.analyze.written AS SELECT orderkey AS k, orderstatus AS s FROM tpch.tiny.orders WHERE orderkey < 30000", before);
        // written through SQL: the files' sketches give distinct counts before any ANALYZE
        assertThat(distinctCounts("written")).doesNotContainNull();
        assertUpdate("ANALYZE nsc.analyze.written", before);
        assertThat(distinctCounts("written").get(0)).isEqualTo((double) Math.min(before, (Long) computeScalar("SELECT approx_distinct(k) FROM nsc.analyze.written")));
        // every file of the new version has sketches: they describe it, the analysis does not
        assertUpdate("INSERT INTO nsc.analyze.written SELECT orderkey, orderstatus FROM tpch.tiny.orders WHERE orderkey >= 30000", 15000 - before);
        assertThat(distinctCounts("written").get(0)).isCloseTo(15000, within(15000 * 0.05));
        assertThat(distinctCounts("written").get(1)).isEqualTo(3.0);
    }

    @Test
    void testColumnChanges()
    {
        loadWithoutSketches("changed", "SELECT orderkey AS k, orderstatus AS s, orderpriority AS p FROM tpch.tiny.orders", "k", "s", "p");
        assertUpdate("ANALYZE nsc.analyze.changed", 15000);
        // a rename keeps the column's slot, and so its statistics
        assertUpdate("ALTER TABLE nsc.analyze.changed RENAME COLUMN s TO status");
        Map<String, MaterializedRow> stats = showStats("changed");
        assertThat(distinct(stats, "status")).isEqualTo(3.0);
        assertThat(distinct(stats, "p")).isEqualTo(5.0);
        // a dropped column's values, and its statistics, are gone; added again it has none
        assertUpdate("ALTER TABLE nsc.analyze.changed DROP COLUMN p");
        assertThat(showStats("changed")).doesNotContainKey("p");
        assertUpdate("ALTER TABLE nsc.analyze.changed ADD COLUMN p varchar");
        stats = showStats("changed");
        assertThat(stats.get("p").getField(2)).isNull();
        assertThat(distinct(stats, "status")).isEqualTo(3.0);
        assertUpdate("ANALYZE nsc.analyze.changed", 15000);
        assertThat(distinct(showStats("changed"), "p")).isEqualTo(0.0);
    }

    @Test
    void testEmptyTable()
    {
        assertUpdate("CREATE TABLE nsc.analyze.empty (a bigint, b varchar)");
        assertUpdate("ANALYZE nsc.analyze.empty", 0);
        Map<String, MaterializedRow> stats = showStats("empty");
        assertThat(stats.get(null).getField(4)).isEqualTo(0.0);
        assertThat(distinct(stats, "a")).isEqualTo(0.0);
        assertThat(distinct(stats, "b")).isEqualTo(0.0);
        // the first rows, written with sketches: they count the new version's values
        assertUpdate("INSERT INTO nsc.analyze.empty VALUES (1, 'x'), (2, 'y')", 2);
        assertThat(showStats("empty").get(null).getField(4)).isEqualTo(2.0);
        assertThat(distinctCounts("empty")).containsExactly(2.0, 2.0);
        assertUpdate("ANALYZE nsc.analyze.empty", 2);
        assertThat(distinctCounts("empty")).containsExactly(2.0, 2.0);
    }

    private void loadWithoutSketches(String table, String sql, String... names)
    {
        try {
            MaterializedResult rows = computeActual(sql);
            Path file = files.resolve(table + ".parquet");
            TrinoParquetFiles.write(file, Arrays.asList(names), rows, CompressionCodec.ZSTD);
            new ParquetLoader(cluster.clientSecurity()).load(cluster.metadataAddress(), SCHEMA, table, List.of(file), LoadOptions.defaults().withVerify(false));
        }
        catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private Map<String, MaterializedRow> showStats(String table)
    {
        // columns of SHOW STATS: column_name, data_size, distinct_values_count, nulls_fraction, row_count, low_value, high_value
        Map<String, MaterializedRow> stats = new HashMap<>();
        for (MaterializedRow row : computeActual("SHOW STATS FOR nsc.analyze." + table).getMaterializedRows()) {
            stats.put((String) row.getField(0), row);
        }
        return stats;
    }

    private List<Double> distinctCounts(String table)
    {
        return computeActual("SHOW STATS FOR nsc.analyze." + table).getMaterializedRows().stream()
                .filter(row -> row.getField(0) != null)
                .map(row -> (Double) row.getField(2))
                .collect(toList());
    }

    private static Double distinct(Map<String, MaterializedRow> stats, String column)
    {
        return (Double) stats.get(column).getField(2);
    }
}
