package io.nsc.trino;

import com.google.common.io.Resources;
import io.nsc.trino.read.ReadMetrics;
import io.trino.Session;
import io.trino.sql.planner.plan.FilterNode;
import io.trino.sql.planner.plan.ProjectNode;
import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.MaterializedRow;
import io.trino.testing.QueryRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.nsc.trino.split.RowGroupPlanner.SPLITS_RAW;
import static io.trino.testing.QueryAssertions.assertEqualsIgnoreOrder;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Arithmetic and casts computed next to the data: in filters, in projections and in aggregate
 * arguments, with Trino's results and Trino's errors. Every expression is run with nothing
 * pushed (Trino computes it) and then in the modes that push it (storage nodes compute it; in
 * {@code auto}, workers compute it too for the splits they decode), and the rows, or the
 * failure's message, must be the same. The edge values are each type's limits, zero, -1, NULL,
 * NaN, infinities and -0.0.
 */
@TestInstance(PER_CLASS)
final class TestNscExpressionPushdown
        extends AbstractTestQueryFramework
{
    // expressions nsc computes, over the columns of table edges
    private static final List<String> COMPUTED = List.of(
            "t + t", "t - CAST(1 AS tinyint)", "t * t", "t / CAST(-1 AS tinyint)", "t % CAST(3 AS tinyint)", "-t",
            "s + s", "s * s", "s / s", "-s",
            "i + i", "i - 1", "i * 2", "i / -1", "i / i", "i % 7", "-i",
            "b + b", "b - 1", "b * 3", "b / -1", "b / b", "b % b", "-b", "b + 1",
            "r + r", "r * r", "r / r", "-r",
            "d + d", "d * d", "d / d", "d % 2.5E0", "-d", "d / 0.0E0",
            "sd + sd", "sd * sd", "sd / sd", "sd % CAST(0.07 AS decimal(5, 2))", "-sd", "sd / CAST(3 AS decimal(5, 2))",
            "md + md", "md * md", "md / sd", "md * sd", "md - ld",
            "ld + ld", "ld * ld", "ld / md", "ld0 + ld0", "ld0 * 2", "-ld0", "ld0 / CAST(7 AS decimal(38, 0))",
            // quotients past 10^38 and past 2^127 (Trino's 128-bit arithmetic)
            "CAST(ld AS decimal(20, 19)) / CAST(DECIMAL '0.0000000000000000001' AS decimal(20, 19))",
            "CAST(ld + ld AS decimal(20, 19)) / CAST(DECIMAL '0.0000000000000000001' AS decimal(20, 19))",
            "CAST(t AS bigint)", "CAST(b AS integer)", "CAST(i AS smallint)", "CAST(s AS tinyint)",
            "CAST(b AS double)", "CAST(i AS real)", "CAST(r AS double)", "CAST(d AS real)",
            "CAST(b AS decimal(19, 0))", "CAST(i AS decimal(5, 2))", "CAST(t AS decimal(38, 36))",
            "CAST(sd AS decimal(4, 1))", "CAST(md AS decimal(10, 2))", "CAST(ld AS decimal(18, 4))", "CAST(ld0 AS decimal(20, 0))",
            "CAST(sd AS double)", "CAST(ld AS double)", "CAST(md AS real)", "CAST(d AS decimal(10, 4))", "CAST(r AS decimal(38, 2))",
            "CAST(sd AS bigint)", "CAST(md AS integer)", "CAST(ld0 AS bigint)", "CAST(ld AS smallint)",
            "CAST(i AS bigint) * b", "d * (1 - CAST(sd AS double))");

    // one or two of each kind above, in filters and aggregate arguments
    private static final List<String> COMPUTED_IN_FILTERS = List.of(
            "t / CAST(-1 AS tinyint)", "s * s", "i % 7", "b + b", "-b", "r * r", "d / d", "d % 2.5E0",
            "sd / CAST(3 AS decimal(5, 2))", "md * sd", "ld + ld", "ld0 * 2",
            "CAST(b AS integer)", "CAST(i AS real)", "CAST(t AS decimal(38, 36))", "CAST(ld AS double)", "CAST(md AS integer)", "d * (1 - CAST(sd AS double))");

    // expressions nsc leaves to Trino: other functions, and casts whose rounding it does not reproduce
    private static final List<String> NOT_COMPUTED = List.of("abs(b)", "CAST(d AS bigint)", "CAST(r AS integer)", "CAST(b AS varchar)");

    @Override
    protected QueryRunner createQueryRunner()
            throws Exception
    {
        TestingNscCluster cluster = closeAfterClass(TestingNscCluster.start(3));
        TpchTiny.load(cluster);
        return NscQueryRunner.create(cluster, Map.of());
    }

    @BeforeAll
    void createEdgeValues()
    {
        assertUpdate("""
                CREATE TABLE edges WITH (row_group_size = '4') AS SELECT * FROM (VALUES
                    (1, TINYINT '0', SMALLINT '0', 0, BIGINT '0', REAL '0', DOUBLE '0', DECIMAL '0.00', CAST(0 AS decimal(18, 4)), CAST(0 AS decimal(38, 10)), CAST(0 AS decimal(38, 0))),
                    (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                    (3, TINYINT '127', SMALLINT '32767', 2147483647, BIGINT '9223372036854775807', REAL '3.4028235e38', DOUBLE '1.7976931348623157e308', DECIMAL '999.99',
                        CAST('99999999999999.9999' AS decimal(18, 4)), CAST('9999999999999999999999999999.9999999999' AS decimal(38, 10)), CAST('99999999999999999999999999999999999999' AS decimal(38, 0))),
                    (4, TINYINT '-128', SMALLINT '-32768', -2147483648, BIGINT '-9223372036854775808', REAL '-3.4028235e38', DOUBLE '-1.7976931348623157e308', DECIMAL '-999.99',
                        CAST('-99999999999999.9999' AS decimal(18, 4)), CAST('-9999999999999999999999999999.9999999999' AS decimal(38, 10)), CAST('-99999999999999999999999999999999999999' AS decimal(38, 0))),
                    (5, TINYINT '-1', SMALLINT '-1', -1, BIGINT '-1', REAL '-1', DOUBLE '-1', DECIMAL '-1.00', CAST(-1 AS decimal(18, 4)), CAST(-1 AS decimal(38, 10)), CAST(-1 AS decimal(38, 0))),
                    (6, TINYINT '7', SMALLINT '300', 100000, BIGINT '10000000000', REAL '1.5', DOUBLE '2.5', DECIMAL '12.35',
                        CAST('1234.5678' AS decimal(18, 4)), CAST('1.0000000005' AS decimal(38, 10)), CAST(12345 AS decimal(38, 0))),
                    (7, TINYINT '3', SMALLINT '3', 3, BIGINT '3', CAST(nan() AS real), nan(), DECIMAL '0.05', CAST('0.0005' AS decimal(18, 4)), CAST('0.0000000005' AS decimal(38, 10)), CAST(5 AS decimal(38, 0))),
                    (8, TINYINT '-7', SMALLINT '-300', -100000, BIGINT '-10000000000', CAST(-infinity() AS real), infinity(), DECIMAL '-0.05',
                        CAST('-0.0005' AS decimal(18, 4)), CAST('-0.0000000005' AS decimal(38, 10)), CAST(-5 AS decimal(38, 0))),
                    (9, TINYINT '2', SMALLINT '2', 2, BIGINT '2', REAL '-0.0', DOUBLE '-0.0', DECIMAL '0.01', CAST('0.0001' AS decimal(18, 4)), CAST('0.5' AS decimal(38, 10)), CAST(2 AS decimal(38, 0))))
                AS v (id, t, s, i, b, r, d, sd, md, ld, ld0)""", 9);
    }

    @Test
    void testTpchQ1AndQ6AsWrittenSendOnlyPartialStates()
            throws IOException
    {
        for (String query : List.of("q01", "q06")) {
            String sql = Resources.toString(Resources.getResource("tpch/" + query + ".sql"), UTF_8);
            String expected = sql.replace("lineitem", "tpch.tiny.lineitem");
            for (PushdownMode mode : PushdownMode.values()) {
                assertThat(query(pushdown(mode), sql)).as("%s in mode %s", query, mode).skippingTypesCheck().matches(expected);
            }
            // the aggregation is gone from the plan (Q1 keeps its ORDER BY)
            for (PushdownMode mode : List.of(PushdownMode.FILTER, PushdownMode.AUTO)) {
                assertThat(explain(pushdown(mode), sql)).as("%s in mode %s", query, mode).doesNotContain("Aggregate").doesNotContain("Project[");
            }
            assertThat(query(pushdown(PushdownMode.FILTER), sql.replace("ORDER BY\n    l_returnflag,\n    l_linestatus", ""))).isFullyPushedDown();
            assertThat(explain(pushdown(PushdownMode.NONE), sql)).contains("Aggregate[");

            // partial states, not rows, cross the network
            QueryCounters pushed = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), sql);
            QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), sql);
            long parts = pushed.connectorMetric(ReadMetrics.AGGREGATION_PARTS);
            assertThat(parts).as(query).isPositive();
            assertThat(pushed.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).as(query).isLessThanOrEqualTo(4 * parts);
            assertThat(pushed.physicalInputBytes() * 50).as(query).isLessThan(raw.physicalInputBytes());
        }
    }

    @Test
    void testFiltersOverComputedValuesAndColumnPairsRunAtStorage()
    {
        List<String> filters = List.of(
                "l_extendedprice * l_discount > 5000",
                "l_commitdate < l_receiptdate",
                "l_partkey + l_suppkey = 30",
                "l_orderkey % 7 = 3 AND l_linenumber * 2 > 9",
                "-l_quantity < -45",
                "CAST(l_linenumber AS double) / 2 > 3.0",
                "CAST(l_quantity AS decimal(12, 2)) * CAST(2 AS decimal(12, 2)) BETWEEN 10 AND 12",
                "l_shipdate > l_commitdate OR l_extendedprice / l_quantity < 905");
        for (String filter : filters) {
            String sql = "SELECT l_orderkey, l_linenumber FROM lineitem WHERE " + filter;
            List<MaterializedRow> expected = computeActual(sql.replace("FROM lineitem", "FROM tpch.tiny.lineitem")).getMaterializedRows();
            assertThat(expected).as(filter).isNotEmpty();
            for (PushdownMode mode : List.of(PushdownMode.FILTER, PushdownMode.AUTO)) {
                // up to 36,000 rows: compared as multisets, in linear time (AssertJ's containsExactlyInAnyOrder is quadratic)
                assertEqualsIgnoreOrder(computeActual(pushdown(mode), sql).getMaterializedRows(), expected, "%s in mode %s".formatted(filter, mode));
            }
            // the rows were compared above
            assertThat(query(pushdown(PushdownMode.FILTER), sql)).as(filter).skipResultsCorrectnessCheckForPushdown().isFullyPushedDown();
            assertThat(explain(pushdown(PushdownMode.RAW), sql)).as(filter).contains("filterPredicate");

            // only the matching rows cross the network
            QueryCounters counters = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), sql);
            assertThat(counters.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).as(filter).isEqualTo(expected.size());
        }
    }

    @Test
    void testProjectionsAreComputedWhereTheRowsAreRead()
    {
        String sql = "SELECT l_orderkey, l_extendedprice * (1 - l_discount) * (1 + l_tax), l_quantity + 1 FROM %s WHERE l_partkey < 100";
        List<MaterializedRow> expected = computeActual(sql.formatted("tpch.tiny.lineitem")).getMaterializedRows();
        for (PushdownMode mode : PushdownMode.values()) {
            assertThat(computeActual(pushdown(mode), sql.formatted("lineitem")).getMaterializedRows()).as("mode %s", mode).containsExactlyInAnyOrderElementsOf(expected);
        }
        assertThat(query(pushdown(PushdownMode.FILTER), sql.formatted("lineitem"))).isFullyPushedDown();
        assertThat(query(pushdown(PushdownMode.RAW), sql.formatted("lineitem"))).isNotFullyPushedDown(ProjectNode.class, FilterNode.class);
        // one computed value crosses the network instead of the three columns it is computed from
        QueryCounters computed = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT l_extendedprice * (1 - l_discount) * (1 + l_tax) FROM lineitem WHERE l_partkey < 100");
        QueryCounters columns = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), "SELECT l_extendedprice, l_discount, l_tax FROM lineitem WHERE l_partkey < 100");
        assertThat(computed.physicalInputBytes()).isLessThan(columns.physicalInputBytes());
        // auto decodes a scan without a predicate on the worker, which computes the value itself
        QueryCounters projected = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.AUTO), "SELECT l_quantity + 1, l_orderkey FROM lineitem");
        assertThat(projected.splitMetric(SPLITS_RAW)).isPositive();
        assertThat(projected.result().getRowCount()).isEqualTo(60175);
    }

    @Test
    void testGroupingByAComputedValueStaysInTrino()
    {
        // TPC-DS Q54's shape (SELECT DISTINCT d_month_seq + 1): the key is computed by the scan, the groups by Trino
        for (String sql : List.of(
                "SELECT DISTINCT l_linenumber + 1 FROM %s WHERE l_partkey < 500",
                "SELECT l_orderkey %% 10, count(*), sum(l_quantity) FROM %s WHERE l_partkey < 500 GROUP BY l_orderkey %% 10")) {
            List<MaterializedRow> expected = computeActual(sql.formatted("tpch.tiny.lineitem")).getMaterializedRows();
            assertThat(expected).hasSizeGreaterThan(2);
            for (PushdownMode mode : PushdownMode.values()) {
                assertThat(computeActual(pushdown(mode), sql.formatted("lineitem")).getMaterializedRows()).as("%s in mode %s", sql, mode).containsExactlyInAnyOrderElementsOf(expected);
            }
            assertThat(explain(pushdown(PushdownMode.FILTER), sql.formatted("lineitem"))).as(sql).contains("nsc_computed_").contains("Aggregate");
        }
        // keys that are columns are still grouped at the storage nodes
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT l_returnflag, count(*) FROM lineitem GROUP BY l_returnflag")).isFullyPushedDown();
    }

    @Test
    void testEdgeValuesInProjectionsGiveTrinosRowsOrTrinosError()
    {
        for (String expression : COMPUTED) {
            String sql = "SELECT id, " + expression + " FROM edges";
            // the outcomes are compared below, failures included
            assertThat(query(pushdown(PushdownMode.FILTER), sql)).as(expression).skipResultsCorrectnessCheckForPushdown().isFullyPushedDown();
            assertSameOutcomeInEveryMode(sql, expression);
        }
        for (String expression : NOT_COMPUTED) {
            assertThat(explain(pushdown(PushdownMode.FILTER), "SELECT id, " + expression + " FROM edges")).as(expression).doesNotContain("_nsc_computed_");
        }
    }

    @Test
    void testEdgeValuesInFiltersAndAggregatesGiveTrinosRowsOrTrinosError()
    {
        for (String expression : COMPUTED_IN_FILTERS) {
            assertSameOutcomeInEveryMode("SELECT id FROM edges WHERE " + expression + " > " + zeroOf(expression), expression);
            assertSameOutcomeInEveryMode("SELECT count(" + expression + "), min(" + expression + "), max(" + expression + ") FROM edges", expression);
        }
        // sums of integers and decimals are exact: the same in every mode, overflow included
        for (String expression : List.of("CAST(i AS bigint) * 2", "b / 2", "sd * sd", "md + md", "ld / md", "CAST(t AS decimal(38, 36))")) {
            assertSameOutcomeInEveryMode("SELECT sum(" + expression + ") FROM edges", expression);
        }
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT sum(sd * sd) FROM edges")).isFullyPushedDown();
        assertThat(explain(pushdown(PushdownMode.NONE), "SELECT sum(sd * sd) FROM edges")).contains("Aggregate[");
    }

    @Test
    void testSubstringsGiveTrinosValuesInEveryMode()
    {
        assertUpdate("""
                CREATE TABLE texts WITH (row_group_size = '3') AS SELECT * FROM (VALUES
                    (1, CAST('31-555-0101' AS varchar(15)), BIGINT '2'),
                    (2, NULL, NULL),
                    (3, '', BIGINT '0'),
                    (4, '\u00e3b\u00e7\u20ac\ud83d\ude00d', BIGINT '-2'),
                    (5, '13', BIGINT '9223372036854775807'),
                    (6, 'x', BIGINT '-9223372036854775808'))
                AS v (id, phone, n)""", 6);
        List<String> substrings = List.of(
                "substring(phone, 1, 2)", "substring(phone, 2)", "substring(phone, 0, 2)", "substring(phone, -2, 1)", "substring(phone, -9, 3)",
                "substring(phone, 3, 0)", "substring(phone, 2, -1)", "substring(phone, 6, 100)", "substring(phone, n)", "substring(phone, n, n)",
                "substring(phone, 2, n)", "substr(phone, 4, 3)");
        for (String expression : substrings) {
            String projection = "SELECT id, " + expression + " FROM texts";
            // the outcomes are compared below
            assertThat(query(pushdown(PushdownMode.FILTER), projection)).as(expression).skipResultsCorrectnessCheckForPushdown().isFullyPushedDown();
            assertSameOutcomeInEveryMode(projection, expression);
            assertSameOutcomeInEveryMode("SELECT id FROM texts WHERE " + expression + " IN ('31', '1-', '', 'b\u00e7', '\ud83d\ude00', 'x')", expression);
            assertSameOutcomeInEveryMode("SELECT id FROM texts WHERE " + expression + " > 'a'", expression);
            assertSameOutcomeInEveryMode("SELECT min(" + expression + "), max(" + expression + "), count(" + expression + ") FROM texts", expression);
        }
        assertThat(query(pushdown(PushdownMode.FILTER), "SELECT id FROM texts WHERE substring(phone, 1, 2) IN ('31', '13')")).matches("VALUES 1, 5").isFullyPushedDown();
        assertUpdate("DROP TABLE texts");
    }

    @Test
    void testTpchQ22sCountryCodesAreFilteredAtStorage()
            throws IOException
    {
        String sql = """
                SELECT c_custkey, substring(c_phone, 1, 2) FROM %s
                WHERE substring(c_phone, 1, 2) IN ('13', '31', '23', '29', '30', '18', '17') AND c_acctbal > 0.00""";
        List<MaterializedRow> expected = computeActual(sql.formatted("tpch.tiny.customer")).getMaterializedRows();
        assertThat(expected).hasSizeBetween(100, 1000);
        for (PushdownMode mode : PushdownMode.values()) {
            assertThat(computeActual(pushdown(mode), sql.formatted("customer")).getMaterializedRows()).as("mode %s", mode).containsExactlyInAnyOrderElementsOf(expected);
        }
        // the rows were compared above
        assertThat(query(pushdown(PushdownMode.FILTER), sql.formatted("customer"))).skipResultsCorrectnessCheckForPushdown().isFullyPushedDown();
        // only the customers of those countries cross the network, each with its two characters
        QueryCounters pushed = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.FILTER), sql.formatted("customer"));
        QueryCounters raw = QueryCounters.run(getDistributedQueryRunner(), pushdown(PushdownMode.RAW), sql.formatted("customer"));
        assertThat(pushed.connectorMetric(ReadMetrics.STORAGE_ROWS_RETURNED)).isEqualTo(expected.size());
        assertThat(pushed.physicalInputBytes() * 2).isLessThan(raw.physicalInputBytes());

        String q22 = Resources.toString(Resources.getResource("tpch/q22.sql"), UTF_8);
        String expectedQ22 = q22.replace("        customer\n", "        tpch.tiny.customer\n").replace("        orders\n", "        tpch.tiny.orders\n");
        assertThat(expectedQ22).contains("tpch.tiny.orders");
        for (PushdownMode mode : List.of(PushdownMode.AUTO, PushdownMode.FILTER)) {
            assertThat(query(pushdown(mode), q22)).as("Q22 in mode %s", mode).skippingTypesCheck().matches(expectedQ22);
        }
    }

    @Test
    void testFailuresAtStorageAreTrinosErrorsNotStorageErrors()
    {
        // each fails on one row, the same row in every mode
        Map<String, String> failures = Map.of(
                "SELECT b + 1 FROM edges WHERE id = 3", "bigint addition overflow: 9223372036854775807 \\+ 1",
                "SELECT i / (i - i) FROM edges WHERE id = 6", "Division by zero",
                "SELECT CAST(b AS integer) FROM edges WHERE id = 6", "Out of range for integer: 10000000000",
                "SELECT ld0 + ld0 FROM edges WHERE id = 3", "Decimal overflow",
                "SELECT CAST(sd AS decimal(3, 1)) FROM edges WHERE id = 3", "Cannot cast DECIMAL\\(5, 2\\) '999.99' to DECIMAL\\(3, 1\\)",
                "SELECT sum(t * t) FROM edges WHERE id = 3", "tinyint multiplication overflow: 127 \\* 127");
        failures.forEach((sql, message) -> {
            for (PushdownMode mode : PushdownMode.values()) {
                assertQueryFails(pushdown(mode), sql, message);
            }
            assertThat(query(pushdown(PushdownMode.FILTER), sql)).as(sql).skipResultsCorrectnessCheckForPushdown().isFullyPushedDown();
        });
    }

    private String zeroOf(String expression)
    {
        // a constant of the expression's type: comparisons push only between values of one type
        // row 2 is all NULL: every expression is NULL there, and none fails
        String type = (String) computeScalar("SELECT typeof(" + expression + ") FROM edges WHERE id = 2");
        return "CAST(0 AS " + type + ")";
    }

    /**
     * The same rows, or a failure with the same message, with nothing pushed (Trino computes) and
     * in every mode that pushes. When the whole table fails, each row is compared on its own: which
     * failing row a scan meets first depends on the order it reads them.
     */
    private void assertSameOutcomeInEveryMode(String sql, String what)
    {
        Outcome expected = outcome(pushdown(PushdownMode.NONE), sql);
        if (expected.failure().isPresent() && sql.contains("FROM edges") && !sql.contains("WHERE id =")) {
            for (int id = 1; id <= 9; id++) {
                String row = "id = " + id;
                String byRow = sql.contains(" WHERE ") ? sql.replace(" WHERE ", " WHERE " + row + " AND ") : sql + " WHERE " + row;
                assertSameOutcomeInEveryMode(byRow, what + " on row " + id);
            }
            return;
        }
        // raw pushes no computation: it is Trino's own
        for (PushdownMode mode : List.of(PushdownMode.FILTER, PushdownMode.AUTO)) {
            Outcome actual = outcome(pushdown(mode), sql);
            assertThat(actual.failure()).as("%s in mode %s: %s", what, mode, sql).isEqualTo(expected.failure());
            assertThat(actual.rows()).as("%s in mode %s: %s", what, mode, sql).containsExactlyInAnyOrderElementsOf(expected.rows());
        }
    }

    private record Outcome(List<MaterializedRow> rows, Optional<String> failure) {}

    private Outcome outcome(Session session, String sql)
    {
        try {
            return new Outcome(computeActual(session, sql).getMaterializedRows(), Optional.empty());
        }
        catch (RuntimeException e) {
            return new Outcome(List.of(), Optional.of(String.valueOf(e.getMessage())));
        }
    }

    private String explain(Session session, String sql)
    {
        return (String) computeActual(session, "EXPLAIN " + sql).getOnlyValue();
    }

    private Session pushdown(PushdownMode mode)
    {
        return Session.builder(getSession()).setCatalogSessionProperty("nsc", NscSessionProperties.PUSHDOWN, mode.name()).build();
    }
}
