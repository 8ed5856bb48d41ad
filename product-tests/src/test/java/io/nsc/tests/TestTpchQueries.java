package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Locale.ENGLISH;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * All 22 TPC-H queries over JDBC: nsc.tpch (TPC-H scale 0.01 loaded by the cluster) answers
 * each exactly as Trino's own tpch.tiny does.
 */
@ExtendWith(NscClusterExtension.class)
final class TestTpchQueries
{
    static Stream<String> queries()
    {
        return IntStream.rangeClosed(1, 22).mapToObj("q%02d"::formatted);
    }

    @ParameterizedTest
    @MethodSource("queries")
    void testQueryMatchesTpchCatalog(String query, NscCluster cluster)
            throws IOException, SQLException
    {
        String sql = tpchQuery(query);
        try (Connection nsc = cluster.connect("nsc/tpch");
                Connection tpch = cluster.connect("tpch/tiny")) {
            List<List<Object>> expected = Jdbc.rows(tpch, sql);
            List<List<Object>> actual = Jdbc.rows(nsc, sql);
            if (!sql.toLowerCase(ENGLISH).contains("order by")) {
                actual = sorted(actual);
                expected = sorted(expected);
            }
            assertThat(Jdbc.sameRows(actual, expected)).as("%s%nnsc:  %s%ntpch: %s", query, actual, expected).isTrue();
        }
    }

    /** The query texts the connector tests use, so both suites run the same 22 queries. */
    static String tpchQuery(String name)
            throws IOException
    {
        return Files.readString(NscCommand.repositoryRoot().resolve(Path.of("trino-nsc/src/test/resources/tpch", name + ".sql")), UTF_8);
    }

    private static List<List<Object>> sorted(List<List<Object>> rows)
    {
        return rows.stream().sorted((left, right) -> left.toString().compareTo(right.toString())).toList();
    }
}
