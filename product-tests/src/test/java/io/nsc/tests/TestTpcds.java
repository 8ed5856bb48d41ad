package io.nsc.tests;

import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TPC-DS at hand: the cluster's Trino carries Trino's {@code tpcds} catalog beside {@code tpch},
 * every one of its tables copies into nsc with CTAS (types nsc stores at another precision, such
 * as {@code dbgen_version}'s {@code time(3)}, are coerced), and TPC-DS queries give the same rows
 * on the copy as on the source.
 */
@ExtendWith(NscClusterExtension.class)
final class TestTpcds
{
    // TPC-DS query 3 and query 55, at the tiny scale's dates and ids
    private static final List<String> QUERIES = List.of(
            """
            SELECT dt.d_year, item.i_brand_id brand_id, item.i_brand brand, sum(ss_ext_sales_price) sum_agg
            FROM %1$s.date_dim dt, %1$s.store_sales, %1$s.item
            WHERE dt.d_date_sk = store_sales.ss_sold_date_sk
              AND store_sales.ss_item_sk = item.i_item_sk
              AND item.i_manufact_id = 128
              AND dt.d_moy = 11
            GROUP BY dt.d_year, item.i_brand, item.i_brand_id
            ORDER BY dt.d_year, sum_agg DESC, brand_id
            LIMIT 100
            """,
            """
            SELECT i_brand_id brand_id, i_brand brand, sum(ss_ext_sales_price) ext_price
            FROM %1$s.date_dim, %1$s.store_sales, %1$s.item
            WHERE d_date_sk = ss_sold_date_sk
              AND ss_item_sk = i_item_sk
              AND i_manager_id = 28
              AND d_moy = 11
              AND d_year = 1999
            GROUP BY i_brand, i_brand_id
            ORDER BY ext_price DESC, i_brand_id
            LIMIT 100
            """);

    // dbgen_version's date and time are when the generator ran, which is each time it is read
    private static final String DBGEN_VERSION_STABLE_COLUMNS = "dv_version, dv_cmdline_args";

    @Test
    void testEveryTpcdsTableCopiesWithCtasAndAnswersTheSame(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            List<String> tables = Jdbc.rows(connection, "SHOW TABLES FROM tpcds.tiny").stream()
                    .map(row -> (String) row.getFirst())
                    .toList();
            assertThat(tables).hasSize(25).contains("dbgen_version", "store_sales", "date_dim", "item");

            statement.execute("CREATE SCHEMA nsc.product_tpcds");
            for (String table : tables) {
                statement.execute("CREATE TABLE nsc.product_tpcds.%1$s AS SELECT * FROM tpcds.tiny.%1$s".formatted(table));
                String columns = table.equals("dbgen_version") ? DBGEN_VERSION_STABLE_COLUMNS : "*";
                long rows = (long) Jdbc.rows(connection, "SELECT count(*) FROM tpcds.tiny." + table).getFirst().getFirst();
                Jdbc.assertSameRows(connection, "(SELECT %s FROM nsc.product_tpcds.%s)".formatted(columns, table), "(SELECT %s FROM tpcds.tiny.%s)".formatted(columns, table), rows);
            }
            // time(3) is stored at the next precision nsc has: the column is there, with a value
            assertThat(Jdbc.rows(connection, "SELECT data_type FROM nsc.information_schema.columns WHERE table_schema = 'product_tpcds' AND column_name = 'dv_create_time'"))
                    .containsExactly(List.of("time(6)"));
            assertThat(Jdbc.rows(connection, "SELECT count(dv_create_time), count(dv_create_date) FROM nsc.product_tpcds.dbgen_version")).containsExactly(List.of(1L, 1L));

            for (String query : QUERIES) {
                List<List<Object>> copy = Jdbc.rows(connection, query.formatted("nsc.product_tpcds"));
                List<List<Object>> source = Jdbc.rows(connection, query.formatted("tpcds.tiny"));
                assertThat(copy).isNotEmpty();
                assertThat(Jdbc.sameRows(copy, source)).as("%s%nnsc:    %s%ntpcds:  %s", query, copy, source).isTrue();
            }

            for (String table : tables) {
                statement.execute("DROP TABLE nsc.product_tpcds." + table);
            }
            statement.execute("DROP SCHEMA nsc.product_tpcds");
        }
    }
}
