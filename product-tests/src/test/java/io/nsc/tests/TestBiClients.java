package io.nsc.tests;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nsc.tests.cluster.NscCluster;
import io.nsc.tests.cluster.NscClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What BI tools call before any query: JDBC {@link DatabaseMetaData} as Tableau or DBeaver
 * browse a catalog, and SQLAlchemy through the trino Python client as notebooks and Superset do,
 * against the real server: schemas, tables, columns with their types, comments as remarks, no
 * primary key.
 */
@ExtendWith(NscClusterExtension.class)
final class TestBiClients
{
    private static final String SCHEMA = "product_bi";
    private static final String TABLE = "sales";
    private static final String TABLE_COMMENT = "Orders, as BI tools see them";
    private static final String PRICE_COMMENT = "Total price in USD, 'quoted'";

    @BeforeAll
    static void createTable(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA nsc." + SCHEMA);
            statement.execute("""
                    CREATE TABLE nsc.%s.%s AS
                    SELECT o_orderkey AS order_id, o_orderstatus AS status, CAST(o_totalprice AS decimal(12, 2)) AS price,
                           o_orderdate AS order_date, CAST(o_orderdate AS timestamp(3)) AS booked_at, o_totalprice > 100000 AS large
                    FROM tpch.tiny.orders
                    """.formatted(SCHEMA, TABLE));
            statement.execute("COMMENT ON TABLE nsc.%s.%s IS '%s'".formatted(SCHEMA, TABLE, TABLE_COMMENT));
            statement.execute("COMMENT ON COLUMN nsc.%s.%s.price IS '%s'".formatted(SCHEMA, TABLE, PRICE_COMMENT.replace("'", "''")));
        }
    }

    @AfterAll
    static void dropTable(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE nsc.%s.%s".formatted(SCHEMA, TABLE));
            statement.execute("DROP SCHEMA nsc." + SCHEMA);
        }
    }

    @Test
    void testJdbcDatabaseMetaData(NscCluster cluster)
            throws SQLException
    {
        try (Connection connection = cluster.connect("nsc")) {
            DatabaseMetaData metaData = connection.getMetaData();
            assertThat(column(metaData.getCatalogs(), "TABLE_CAT")).contains("nsc", "tpch", "tpcds");
            assertThat(column(metaData.getSchemas("nsc", null), "TABLE_SCHEM")).contains(SCHEMA, "tpch", "information_schema");
            assertThat(column(metaData.getSchemas("nsc", "product\\_b%"), "TABLE_SCHEM")).containsExactly(SCHEMA);

            List<Map<String, Object>> tables = rows(metaData.getTables("nsc", SCHEMA, "%", null));
            assertThat(tables).hasSize(1);
            assertThat(tables.getFirst()).containsEntry("TABLE_CAT", "nsc").containsEntry("TABLE_SCHEM", SCHEMA)
                    .containsEntry("TABLE_NAME", TABLE).containsEntry("TABLE_TYPE", "TABLE");
            // Trino 476 answers getTables with no remarks for any connector: tools read a table's comment here
            assertThat(tables.getFirst().get("REMARKS")).isNull();
            assertThat(Jdbc.rows(connection, "SELECT comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc' AND schema_name = '%s' AND table_name = '%s'"
                    .formatted(SCHEMA, TABLE))).containsExactly(List.of(TABLE_COMMENT));
            assertThat(rows(metaData.getTables("nsc", SCHEMA, "%", new String[] {"VIEW"}))).isEmpty();

            List<Map<String, Object>> columns = rows(metaData.getColumns("nsc", SCHEMA, TABLE, "%"));
            assertThat(columns).extracting(column -> column.get("COLUMN_NAME"))
                    .containsExactly("order_id", "status", "price", "order_date", "booked_at", "large");
            assertThat(columns).extracting(column -> column.get("TYPE_NAME"))
                    .containsExactly("bigint", "varchar(1)", "decimal(12,2)", "date", "timestamp(3)", "boolean");
            assertThat(columns).extracting(column -> number(column.get("DATA_TYPE")))
                    .containsExactly(Types.BIGINT, Types.VARCHAR, Types.DECIMAL, Types.DATE, Types.TIMESTAMP, Types.BOOLEAN);
            assertThat(columns).extracting(column -> number(column.get("ORDINAL_POSITION"))).containsExactly(1, 2, 3, 4, 5, 6);
            assertThat(columns).extracting(column -> column.get("IS_NULLABLE")).containsOnly("YES");
            assertThat(columns).extracting(column -> column.get("REMARKS")).containsExactly(null, null, PRICE_COMMENT, null, null, null);
            Map<String, Object> price = columns.get(2);
            assertThat(number(price.get("COLUMN_SIZE"))).isEqualTo(12);
            assertThat(number(price.get("DECIMAL_DIGITS"))).isEqualTo(2);
            // one column by exact name, as a tool asks when it builds a query
            assertThat(rows(metaData.getColumns("nsc", SCHEMA, TABLE, "price"))).hasSize(1);

            assertThat(rows(metaData.getPrimaryKeys("nsc", SCHEMA, TABLE))).isEmpty();

            // what the tool then runs
            assertThat(Jdbc.rows(connection, "SELECT count(*), min(order_id), max(price) FROM nsc.%s.%s".formatted(SCHEMA, TABLE)))
                    .isEqualTo(Jdbc.rows(connection, "SELECT count(*), min(o_orderkey), CAST(max(o_totalprice) AS decimal(12, 2)) FROM tpch.tiny.orders"));
        }
    }

    /** A view, as a BI tool lists it beside the tables: by the JDBC type VIEW, with its columns. */
    @Test
    void testJdbcSeesViews(NscCluster cluster)
            throws SQLException
    {
        String schema = "product_bi_views";
        try (Connection connection = cluster.connect("nsc");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA nsc." + schema);
            try {
                statement.execute("CREATE TABLE nsc.%s.orders AS SELECT o_orderkey AS order_id, o_totalprice AS price FROM tpch.tiny.orders".formatted(schema));
                statement.execute("CREATE VIEW nsc.%s.large_orders COMMENT 'Orders over 100,000' AS SELECT order_id, price FROM nsc.%s.orders WHERE price > 100000".formatted(schema, schema));
                DatabaseMetaData metaData = connection.getMetaData();

                List<Map<String, Object>> views = rows(metaData.getTables("nsc", schema, "%", new String[] {"VIEW"}));
                assertThat(views).hasSize(1);
                assertThat(views.getFirst()).containsEntry("TABLE_CAT", "nsc").containsEntry("TABLE_SCHEM", schema)
                        .containsEntry("TABLE_NAME", "large_orders").containsEntry("TABLE_TYPE", "VIEW");
                assertThat(column(metaData.getTables("nsc", schema, "%", new String[] {"TABLE"}), "TABLE_NAME")).containsExactly("orders");
                assertThat(column(metaData.getTables("nsc", schema, "%", null), "TABLE_NAME")).containsExactlyInAnyOrder("orders", "large_orders");
                assertThat(column(metaData.getColumns("nsc", schema, "large_orders", "%"), "COLUMN_NAME")).containsExactly("order_id", "price");

                assertThat(Jdbc.rows(connection, "SELECT count(*) FROM nsc.%s.large_orders".formatted(schema)))
                        .isEqualTo(Jdbc.rows(connection, "SELECT count(*) FROM tpch.tiny.orders WHERE o_totalprice > 100000"));
            }
            finally {
                statement.execute("DROP SCHEMA nsc.%s CASCADE".formatted(schema));
            }
        }
    }

    @Test
    void testSqlAlchemyThroughTheTrinoPythonClient(NscCluster cluster)
            throws Exception
    {
        PythonClients.Result result = PythonClients.run(cluster.trinoAccess(), "sqlalchemy_catalog.py", SCHEMA, TABLE);
        assertThat(result.exitCode()).as("sqlalchemy_catalog.py failed:%n%s", result.stderr()).isZero();
        JsonNode report = new ObjectMapper().readTree(result.stdout());

        assertThat(texts(report.get("schemas"))).contains(SCHEMA, "tpch");
        assertThat(texts(report.get("tables"))).containsExactly(TABLE);
        List<String> columns = new ArrayList<>();
        report.get("columns").forEach(column -> columns.add(column.get("name").asText() + " " + column.get("type").asText()));
        assertThat(columns).containsExactly("order_id BIGINT", "status VARCHAR(1)", "price DECIMAL(12, 2)", "order_date DATE", "booked_at TIMESTAMP", "large BOOLEAN");
        assertThat(report.get("primary_key")).isEmpty();
        assertThat(report.get("table_comment").asText()).isEqualTo(TABLE_COMMENT);
        List<String> comments = new ArrayList<>();
        report.get("columns").forEach(column -> comments.add(column.get("comment").isNull() ? null : column.get("comment").asText()));
        assertThat(comments).containsExactly(null, null, PRICE_COMMENT, null, null, null);
        assertThat(report.get("row_count").asLong()).isEqualTo(15000);
        assertThat(report.get("smallest_first_column").asText()).isEqualTo("1");
    }

    // the driver answers numbers as the JDBC spec types them or as bigint: compare the values
    private static int number(Object value)
    {
        return ((Number) value).intValue();
    }

    private static List<String> texts(JsonNode array)
    {
        List<String> texts = new ArrayList<>();
        array.forEach(node -> texts.add(node.asText()));
        return texts;
    }

    private static List<Object> column(ResultSet resultSet, String name)
            throws SQLException
    {
        return rows(resultSet).stream().map(row -> row.get(name)).toList();
    }

    private static List<Map<String, Object>> rows(ResultSet resultSet)
            throws SQLException
    {
        try (resultSet) {
            int columns = resultSet.getMetaData().getColumnCount();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (resultSet.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int column = 1; column <= columns; column++) {
                    row.put(resultSet.getMetaData().getColumnLabel(column), resultSet.getObject(column));
                }
                rows.add(row);
            }
            return rows;
        }
    }
}
