package io.nsc.trino;

import com.google.common.io.Resources;
import io.trino.Session;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedResult;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static io.nsc.trino.NscSessionProperties.STATS_PRUNING_ENABLED;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_PRUNED_BY_STATS;
import static io.nsc.trino.split.RowGroupPlanner.ROW_GROUPS_TOTAL;
import static io.nsc.trino.split.RowGroupPlanner.SPLITS;
import static io.trino.testing.QueryAssertions.assertEqualsIgnoreOrder;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Locale.ENGLISH;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The read path through SQL: TPC-H tiny loaded into nsc answers every query exactly as Trino's
 * tpch catalog does, metadata and statistics are what a client expects, and the coordinator's
 * pruning shows in the counters.
 *
 * <p>In nsc-tools rather than next to the connector because the data comes from the tools' TPC-H
 * generator and loader, and nsc-tools depends on trino-nsc (not the other way round).
 */
final class TestNscConnectorQueries
        extends AbstractTestQueryFramework
{
    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(3));
        TpchTiny.load(cluster);
        return NscQueryRunner.create(cluster, Map.of());
    }

    static Stream<Arguments> tpchQueries()
    {
        return IntStream.rangeClosed(1, 22).mapToObj("q%02d"::formatted)
                .flatMap(query -> Stream.of(PushdownMode.values()).map(mode -> Arguments.of(query, mode)));
    }

    @ParameterizedTest
    @MethodSource("tpchQueries")
    void testTpchQueryMatchesTpchCatalog(String query, PushdownMode mode)
            throws IOException
    {
        String sql = Resources.toString(Resources.getResource("tpch/" + query + ".sql"), UTF_8);
        MaterializedResult expected = computeActual(tpchSession(), sql);
        MaterializedResult actual = computeActual(pushdown(mode), sql);
        // rows only: tpch declares varchar(n) where Parquet files carry plain strings
        if (sql.toLowerCase(ENGLISH).contains("order by")) {
            assertThat(actual.getMaterializedRows()).containsExactlyElementsOf(expected.getMaterializedRows());
        }
        else {
            assertEqualsIgnoreOrder(actual.getMaterializedRows(), expected.getMaterializedRows());
        }
    }

    @Test
    void testMetadata()
    {
        assertThat(computeActual("SHOW SCHEMAS FROM nsc").getOnlyColumnAsSet()).contains("tpch", "information_schema");
        assertThat(computeActual("SHOW TABLES FROM nsc.tpch").getOnlyColumnAsSet())
                .containsExactlyInAnyOrderElementsOf(TpchTiny.TPCH_TABLES);
        assertThat(query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'tpch' AND table_name = 'region'"))
                .skippingTypesCheck()
                .matches("VALUES ('r_regionkey', 'bigint'), ('r_name', 'varchar'), ('r_comment', 'varchar')");
        assertThat(computeActual("DESCRIBE nsc.tpch.lineitem").getMaterializedRows())
                .extracting(row -> row.getField(0) + " " + row.getField(1))
                .contains("l_shipdate date", "l_extendedprice double", "l_orderkey bigint", "l_comment varchar");
        assertQueryFails("SELECT * FROM nsc.tpch.no_such_table", ".*Table 'nsc.tpch.no_such_table' does not exist");
        assertQueryFails("SELECT * FROM nsc.no_such_schema.t", ".*Schema 'no_such_schema' does not exist");
        // the metadata service's NOT_FOUND names the table: its status must not outgrow gRPC's trailer limit
        String longName = "a".repeat(10_000);
        assertQueryFails("SELECT * FROM nsc.tpch." + longName, ".*Table 'nsc.tpch.%s' does not exist".formatted(longName));
    }

    @Test
    void testStatistics()
    {
        // columns of SHOW STATS: column_name, data_size, distinct_values_count, nulls_fraction, row_count, low_value, high_value
        Map<Object, MaterializedRow> stats = computeActual("SHOW STATS FOR lineitem").getMaterializedRows().stream()
                .collect(toMap(row -> String.valueOf(row.getField(0)), row -> row));
        assertThat(stats.get("null").getField(4)).isEqualTo(60175.0);
        MaterializedRow quantity = stats.get("l_quantity");
        assertThat(List.of(quantity.getField(3), quantity.getField(5), quantity.getField(6))).containsExactly(0.0, "1.0", "50.0");
        MaterializedRow shipdate = stats.get("l_shipdate");
        assertThat(List.of(shipdate.getField(5), shipdate.getField(6))).containsExactly("1992-01-04", "1998-11-29");
        assertThat((Double) stats.get("l_comment").getField(1)).isPositive();
        // distinct counts from the loader's sketches: estimates within a few percent
        assertThat((Double) stats.get("l_returnflag").getField(2)).isEqualTo(3.0);
        assertThat((Double) stats.get("l_orderkey").getField(2)).isBetween(15000 * 0.9, 15000 * 1.1);
        assertThat((Double) stats.get("l_shipdate").getField(2)).isBetween(2000.0, 2600.0);
    }

    @Test
    void testStatisticsOfAFilteredScanCountTheRowsThatPass()
    {
        // about 22% of lineitem; in AUTO and FILTER the connector enforces the predicate, so Trino keeps no filter of its own
        // above the scan whose statistics it could estimate: without the connector's estimate a join over this scan was
        // planned for all 60,175 rows
        String query = "SELECT l_orderkey, l_shipdate, l_quantity, l_returnflag FROM lineitem WHERE l_shipdate < DATE '1993-08-01' AND l_quantity > 10 AND l_returnflag = 'R'";
        long actual = (long) computeActual("SELECT count(*) FROM (" + query + ")").getOnlyValue();
        for (PushdownMode mode : PushdownMode.values()) {
            Map<Object, MaterializedRow> stats = computeActual(pushdown(mode), "SHOW STATS FOR (" + query + ")").getMaterializedRows().stream()
                    .collect(toMap(row -> String.valueOf(row.getField(0)), row -> row));
            double rows = (Double) stats.get("null").getField(4);
            assertThat(rows).as("estimated rows in %s, %s rows pass", mode, actual).isBetween(actual / 2.0, actual * 2.0);
            MaterializedRow shipdate = stats.get("l_shipdate");
            assertThat(shipdate.getField(6)).as("highest ship date in %s", mode).isIn("1993-07-31", "1993-08-01");
            MaterializedRow returnflag = stats.get("l_returnflag");
            assertThat((Double) returnflag.getField(2)).as("distinct return flags in %s", mode).isEqualTo(1.0);
            assertThat((Double) stats.get("l_orderkey").getField(2)).as("distinct order keys in %s", mode).isLessThanOrEqualTo(rows);
        }
        // nothing passes: no row estimated
        double none = (Double) computeActual(pushdown(PushdownMode.AUTO), "SHOW STATS FOR (SELECT * FROM lineitem WHERE l_shipdate > DATE '2100-01-01')")
                .getMaterializedRows().stream().filter(row -> row.getField(0) == null).findFirst().orElseThrow().getField(4);
        assertThat(none).isZero();
    }

    @Test
    void testSelectiveDatePredicatePrunesRowGroups()
    {
        // about 1% of lineitem: 25 of ~2500 ship dates; lineitem is sorted by l_shipdate
        String sql = "SELECT count(*), sum(l_extendedprice) FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-06-01' AND DATE '1995-06-25'";
        QueryCounters unpruned = QueryCounters.run(getDistributedQueryRunner(), withoutPruning(), sql);
        // raw reads: the bytes received are the pruned row groups' chunks, not a scan's answer
        QueryCounters pruned = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), sql);
        assertThat(pruned.result().getMaterializedRows()).isEqualTo(computeActual(tpchSession(), sql).getMaterializedRows());

        long total = pruned.splitMetric(ROW_GROUPS_TOTAL);
        long scanned = total - pruned.splitMetric(ROW_GROUPS_PRUNED_BY_STATS);
        assertThat(total).isGreaterThanOrEqualTo(60);
        assertThat(scanned).isBetween(1L, 3L);

        assertThat(unpruned.result().getMaterializedRows()).isEqualTo(pruned.result().getMaterializedRows());
        assertThat(unpruned.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isZero();
        assertThat(pruned.physicalInputBytes()).isPositive();
        // a worker that has not read this file yet also fetches its footer (about 300 kB here),
        // whichever query it runs first: compare the bytes of the rows, 3 of 60 row groups' chunks
        assertThat(pruned.physicalInputBytesOfRows() * 4).isLessThan(unpruned.physicalInputBytesOfRows());
    }

    @Test
    void testPredicateMatchingNothingCreatesNoSplit()
    {
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), getSession(),
                "SELECT count(*) FROM lineitem WHERE l_shipdate > DATE '2001-01-01'");
        assertThat(counters.result().getOnlyValue()).isEqualTo(0L);
        assertThat(counters.splitMetric(SPLITS)).isZero();
        assertThat(counters.splitMetric(ROW_GROUPS_PRUNED_BY_STATS)).isEqualTo(counters.splitMetric(ROW_GROUPS_TOTAL));
        assertThat(counters.physicalInputBytes()).isZero();
    }

    @Test
    void testCountStarReadsNoColumnData()
    {
        QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), getSession(), "SELECT count(*) FROM lineitem");
        assertThat(counters.result().getOnlyValue()).isEqualTo(60175L);
        assertThat(counters.physicalInputBytes()).isZero();
    }

    @Test
    void testPredicatesOnUnsortedColumns()
    {
        // correctness, not pruning: these columns are not sorted, so most row groups survive
        assertMatchesTpch("SELECT count(*), sum(l_quantity) FROM %s.lineitem WHERE l_returnflag = 'R' AND l_quantity > 45");
        assertMatchesTpch("SELECT count(*) FROM %s.orders WHERE o_orderdate < DATE '1993-01-01' OR o_totalprice > 400000");
        assertMatchesTpch("SELECT count(*) FROM %s.customer WHERE c_name LIKE 'Customer#00000012%%'");
        assertMatchesTpch("SELECT c_custkey FROM %s.customer WHERE c_name IN ('Customer#000000001', 'Customer#000001500', 'nobody')");
        assertMatchesTpch("SELECT count(*) FROM %s.orders WHERE o_comment IS NULL OR o_orderpriority >= '5-LOW'");
    }

    private void assertMatchesTpch(String sqlTemplate)
    {
        assertThat(query(sqlTemplate.formatted("nsc.tpch"))).matches(sqlTemplate.formatted("tpch.tiny"));
    }

    private Session tpchSession()
    {
        return Session.builder(getSession()).setCatalog("tpch").setSchema("tiny").build();
    }

    private Session pushdown(PushdownMode mode)
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name()).build();
    }

    private Session withoutPruning()
    {
        return Session.builder(pushdown(PushdownMode.RAW)).setCatalogSessionProperty("nsc", STATS_PRUNING_ENABLED, "false").build();
    }
}
