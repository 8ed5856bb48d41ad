package io.nsc.tests;

import io.trino.jdbc.TrinoResultSet;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plain JDBC, the way a BI tool talks to the cluster.
 */
public final class Jdbc
{
    private Jdbc() {}

    public record QueryResult(String queryId, List<List<Object>> rows) {}

    public static List<List<Object>> rows(Connection connection, String sql)
            throws SQLException
    {
        return query(connection, sql).rows();
    }

    /**
     * Runs each check, a query whose {@code %s} names a TPC-H schema, on {@code nsc.tpch} and on
     * Trino's {@code tpch.tiny}, and asserts the same rows.
     */
    public static void assertChecksMatchTpch(Connection connection, List<String> checks)
            throws SQLException
    {
        for (String check : checks) {
            List<List<Object>> actual = rows(connection, check.replace("%s", "nsc.tpch"));
            List<List<Object>> expected = rows(connection, check.replace("%s", "tpch.tiny"));
            assertThat(sameRows(actual, expected)).as("%s%nnsc:  %s%ntpch: %s", check, actual, expected).isTrue();
        }
    }

    /**
     * Asserts that two relations (tables or parenthesised queries) hold the same {@code rows}
     * rows in all and the same distinct rows, values compared exactly.
     */
    public static void assertSameRows(Connection connection, String actual, String expected, long rows)
            throws SQLException
    {
        assertThat(rows(connection, "SELECT count(*) FROM " + actual)).as(actual).containsExactly(List.of(rows));
        // EXCEPT compares with IS NOT DISTINCT FROM, so NULLs and -0.0 compare exactly as stored
        assertThat(rows(connection, "SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s)".formatted(actual, expected))).as(actual).containsExactly(List.of(0L));
        assertThat(rows(connection, "SELECT count(*) FROM (SELECT * FROM %s EXCEPT SELECT * FROM %s)".formatted(expected, actual))).as(actual).containsExactly(List.of(0L));
    }

    public static QueryResult query(Connection connection, String sql)
            throws SQLException
    {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            int columns = resultSet.getMetaData().getColumnCount();
            while (resultSet.next()) {
                List<Object> row = new ArrayList<>(columns);
                for (int column = 1; column <= columns; column++) {
                    row.add(resultSet.getObject(column));
                }
                rows.add(row);
            }
            return new QueryResult(resultSet.unwrap(TrinoResultSet.class).getQueryId(), rows);
        }
    }

    /**
     * Row lists equal, doubles within a relative 1e-9: sums over doubles may differ in the last
     * bits between two catalogs that add in another order.
     */
    public static boolean sameRows(List<List<Object>> actual, List<List<Object>> expected)
    {
        if (actual.size() != expected.size()) {
            return false;
        }
        for (int row = 0; row < actual.size(); row++) {
            List<Object> left = actual.get(row);
            List<Object> right = expected.get(row);
            if (left.size() != right.size()) {
                return false;
            }
            for (int column = 0; column < left.size(); column++) {
                if (!sameValue(left.get(column), right.get(column))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean sameValue(Object left, Object right)
    {
        if (left instanceof Double a && right instanceof Double b) {
            return a.equals(b) || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
        }
        return left == null ? right == null : left.equals(right);
    }
}
