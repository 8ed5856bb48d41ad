package io.nsc.tests;

import com.google.common.io.Resources;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS;

/**
 * Every TPC-DS query answers on the TPC-DS tables copied into nsc exactly as Trino's {@code tpcds}
 * catalog answers at scale tiny (its tables copied once into Trino's {@code memory} catalog where
 * the cluster has one, which answers the same far faster than regenerating them for every query),
 * so that no pushdown rule breaks a standard query: the n-th query (from 0) in {@code AUTO} (the
 * default mode), {@code FILTER}, {@code RAW} or {@code NONE} as n mod 4 is 0, 1, 2 or 3, so that
 * each mode runs a quarter of the queries, the heavy ones spread among them. The build runs that
 * (206 query runs with the reference answers); {@code -Dnsc.tpcds.allModes=true} runs every query
 * in all four modes (515), for a change to pushdown. The query texts are the ones Trino's product tests
 * ran (a test dependency); their table names are unqualified, so one text runs on both catalogs.
 */
@ExtendWith(NscClusterExtension.class)
@TestInstance(PER_CLASS)
final class TestTpcdsQueries
{
    private static final String SCHEMA = "product_tpcds_queries";
    private static final String QUERIES = "sql-tests/testcases/tpcds/";
    // the values of the session property nsc.pushdown: per split by estimates, storage scans, raw byte ranges, nothing pushed or pruned
    private static final List<String> PUSHDOWN_MODES = List.of("AUTO", "FILTER", "RAW", "NONE");
    private static final boolean ALL_MODES = Boolean.getBoolean("nsc.tpcds.allModes");
    // the 99 queries; 14, 23, 24 and 39 come in two parts
    private static final List<String> QUERY_NAMES = List.of(
            "q01", "q02", "q03", "q04", "q05", "q06", "q07", "q08", "q09", "q10",
            "q11", "q12", "q13", "q14_1", "q14_2", "q15", "q16", "q17", "q18", "q19", "q20",
            "q21", "q22", "q23_1", "q23_2", "q24_1", "q24_2", "q25", "q26", "q27", "q28", "q29", "q30",
            "q31", "q32", "q33", "q34", "q35", "q36", "q37", "q38", "q39_1", "q39_2", "q40",
            "q41", "q42", "q43", "q44", "q45", "q46", "q47", "q48", "q49", "q50",
            "q51", "q52", "q53", "q54", "q55", "q56", "q57", "q58", "q59", "q60",
            "q61", "q62", "q63", "q64", "q65", "q66", "q67", "q68", "q69", "q70",
            "q71", "q72", "q73", "q74", "q75", "q76", "q77", "q78", "q79", "q80",
            "q81", "q82", "q83", "q84", "q85", "q86", "q87", "q88", "q89", "q90",
            "q91", "q92", "q93", "q94", "q95", "q96", "q97", "q98", "q99");
    // all but dbgen_version, which no query reads
    private static final List<String> TABLES = List.of(
            "call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer", "customer_address",
            "customer_demographics", "date_dim", "household_demographics", "income_band", "inventory", "item",
            "promotion", "reason", "ship_mode", "store", "store_returns", "store_sales", "time_dim", "warehouse",
            "web_page", "web_returns", "web_sales", "web_site");
    // an ORDER BY of the whole query: the last one, outside every parenthesis
    private static final Pattern ORDERED = Pattern.compile("(?is).*\\bORDER\\s+BY\\b[^()]*$");

    // where the expected answers come from: tpcds.tiny copied into the memory catalog, or tpcds.tiny itself
    private String reference = "tpcds/tiny";

    @BeforeAll
    void copyTables(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            copyTables(statement, "nsc");
            // tpcds generates a table's rows anew on every scan: a copy in memory answers the same in a fraction of the time
            if (hasCatalog(statement, "memory")) {
                copyTables(statement, "memory");
                reference = "memory/" + SCHEMA;
            }
        }
    }

    @AfterAll
    void dropTables(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            dropTables(statement, "nsc");
            if (reference.startsWith("memory/")) {
                dropTables(statement, "memory");
            }
        }
    }

    private static void copyTables(Statement statement, String catalog)
            throws SQLException
    {
        statement.execute("CREATE SCHEMA IF NOT EXISTS %s.%s".formatted(catalog, SCHEMA));
        for (String table : TABLES) {
            statement.execute("CREATE TABLE IF NOT EXISTS %s.%s.%s AS SELECT * FROM tpcds.tiny.%3$s".formatted(catalog, SCHEMA, table));
        }
    }

    private static void dropTables(Statement statement, String catalog)
            throws SQLException
    {
        for (String table : TABLES) {
            statement.execute("DROP TABLE IF EXISTS %s.%s.%s".formatted(catalog, SCHEMA, table));
        }
        statement.execute("DROP SCHEMA IF EXISTS %s.%s".formatted(catalog, SCHEMA));
    }

    private static boolean hasCatalog(Statement statement, String catalog)
            throws SQLException
    {
        try (ResultSet catalogs = statement.executeQuery("SHOW CATALOGS LIKE '%s'".formatted(catalog))) {
            return catalogs.next();
        }
    }

    static Stream<Arguments> queries()
    {
        return IntStream.range(0, QUERY_NAMES.size())
                .mapToObj(index -> Arguments.of(QUERY_NAMES.get(index), pushdownModes(index)));
    }

    /** The index's turn of the four modes, or all four with -Dnsc.tpcds.allModes=true. */
    static List<String> pushdownModes(int queryIndex)
    {
        if (ALL_MODES) {
            return PUSHDOWN_MODES;
        }
        return List.of(PUSHDOWN_MODES.get(queryIndex % PUSHDOWN_MODES.size()));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @MethodSource("queries")
    void testQueryMatchesTpcdsCatalogInItsPushdownModes(String query, List<String> modes, NscCluster cluster)
            throws IOException, SQLException
    {
        String sql = queryText(query);
        boolean ordered = ORDERED.matcher(sql).matches();
        try (Connection tpcds = cluster.connect(reference);
                Connection nsc = cluster.connect("nsc/" + SCHEMA);
                Statement session = nsc.createStatement()) {
            Answer expected = Answer.of(tpcds, sql, ordered);
            for (String mode : modes) {
                session.execute("SET SESSION nsc.pushdown = '%s'".formatted(mode));
                Answer actual = Answer.of(nsc, sql, ordered);
                assertThat(actual.error()).as("%s in mode %s", query, mode).isEqualTo(expected.error());
                assertThat(Jdbc.sameRows(actual.rows(), expected.rows())).as("%s in mode %s%nnsc:   %s%ntpcds: %s", query, mode, actual.rows(), expected.rows()).isTrue();
            }
        }
    }

    /**
     * A query's rows, or its error: at scale tiny some queries divide by a sum that is zero, and
     * then nsc must fail as Trino's own catalog does.
     */
    private record Answer(List<List<Object>> rows, Optional<String> error)
    {
        static Answer of(Connection connection, String sql, boolean ordered)
        {
            try {
                return new Answer(inOrder(Jdbc.rows(connection, sql), ordered), Optional.empty());
            }
            catch (SQLException e) {
                // the message names the query id, which differs from run to run
                return new Answer(List.of(), Optional.of(e.getMessage().replaceFirst("^Query failed \\(#[^)]*\\): ", "")));
            }
        }
    }

    /** The query without the product tests' header comment and closing semicolon. */
    private static String queryText(String query)
            throws IOException
    {
        String text = Resources.toString(Resources.getResource(QUERIES + query + ".sql"), UTF_8);
        return String.join("\n", text.lines().filter(line -> !line.startsWith("--")).toList())
                .strip()
                .replaceFirst(";$", "");
    }

    private static List<List<Object>> inOrder(List<List<Object>> rows, boolean ordered)
    {
        return ordered ? rows : rows.stream().sorted(Comparator.comparing(Object::toString)).toList();
    }
}
