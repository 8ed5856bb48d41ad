package io.nsc.tests;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a BI tool asks on every connect, timed over JDBC against a running Trino with the nsc
 * catalog: {@code information_schema.columns} and {@code .tables}, {@code SHOW TABLES}, and
 * {@link DatabaseMetaData#getTables} and {@link DatabaseMetaData#getColumns} over the whole
 * catalog, after creating (when missing) a schema of many tables of many columns, a few of them
 * with rows and comments. Each call runs {@code --warmups} times to warm up, then {@code --runs} times; the client's
 * wall time of each run (the statement and every row read) is printed, then min, median and max.
 *
 * <pre>
 * BenchmarkBiMetadata --url jdbc:trino://127.0.0.1:8580/nsc --tables 1000 --columns 20 --runs 7 --warmups 5
 * </pre>
 * {@code benchmarks/bi-metadata/run.sh} starts the cluster and runs this.
 */
public final class BenchmarkBiMetadata
{
    private static final String SCHEMA = "bi";
    private static final String[] TYPES = {"bigint", "varchar", "double", "date", "decimal(12, 2)", "timestamp(3)", "boolean", "integer"};
    private static final int TABLES_WITH_ROWS = 5;

    private BenchmarkBiMetadata() {}

    private interface Call
    {
        long rows(Connection connection)
                throws SQLException;
    }

    private record Measured(String name, Call call) {}

    public static void main(String[] args)
            throws Exception
    {
        Map<String, String> options = options(args);
        String url = options.getOrDefault("url", "jdbc:trino://127.0.0.1:8580/nsc");
        int tables = Integer.parseInt(options.getOrDefault("tables", "1000"));
        int columns = Integer.parseInt(options.getOrDefault("columns", "20"));
        int runs = Integer.parseInt(options.getOrDefault("runs", "7"));
        int warmups = Integer.parseInt(options.getOrDefault("warmups", "5"));
        Properties properties = new Properties();
        properties.setProperty("user", "benchmark");

        long started = System.nanoTime();
        int created = createTables(url, properties, tables, columns);
        System.out.printf(Locale.ROOT, "setup: schema nsc.%s with %,d tables of %d columns (%,d created now, %d with rows) in %.1f s%n",
                SCHEMA, tables, columns, created, TABLES_WITH_ROWS, (System.nanoTime() - started) / 1e9);

        String probe = "t%04d".formatted(tables / 2);
        List<Measured> calls = List.of(
                new Measured("information_schema.columns, whole catalog", connection -> count(connection, "SELECT table_schema, table_name, column_name, data_type, comment FROM nsc.information_schema.columns")),
                new Measured("information_schema.columns, schema bi", connection -> count(connection, "SELECT table_name, column_name, data_type FROM nsc.information_schema.columns WHERE table_schema = 'bi'")),
                new Measured("information_schema.columns, one table", connection -> count(connection, "SELECT column_name, data_type FROM nsc.information_schema.columns WHERE table_schema = 'bi' AND table_name = '" + probe + "'")),
                new Measured("information_schema.tables, whole catalog", connection -> count(connection, "SELECT table_schema, table_name, table_type FROM nsc.information_schema.tables")),
                new Measured("SHOW TABLES FROM nsc.bi", connection -> count(connection, "SHOW TABLES FROM nsc.bi")),
                new Measured("system.metadata.table_comments, catalog nsc", connection -> count(connection, "SELECT schema_name, table_name, comment FROM system.metadata.table_comments WHERE catalog_name = 'nsc'")),
                new Measured("DatabaseMetaData.getTables(nsc, null, null, null)", connection -> count(connection.getMetaData().getTables("nsc", null, null, null))),
                new Measured("DatabaseMetaData.getColumns(nsc, null, null, null)", connection -> count(connection.getMetaData().getColumns("nsc", null, null, null))),
                new Measured("DatabaseMetaData.getColumns(nsc, bi, %s, null)".formatted(probe), connection -> count(connection.getMetaData().getColumns("nsc", SCHEMA, probe, null))));

        System.out.printf(Locale.ROOT, "runs: %d warm-ups, then %d per call; wall ms seen by the JDBC client, every row read%n", warmups, runs);
        List<String> summary = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            for (Measured measured : calls) {
                // Trino's JIT warmed alike however many statements the setup ran
                long rows = measured.call().rows(connection);
                for (int warmup = 1; warmup < warmups; warmup++) {
                    measured.call().rows(connection);
                }
                List<Double> millis = new ArrayList<>();
                for (int run = 0; run < runs; run++) {
                    long start = System.nanoTime();
                    long runRows = measured.call().rows(connection);
                    millis.add((System.nanoTime() - start) / 1e6);
                    if (runRows != rows) {
                        throw new IllegalStateException("%s: %s rows, then %s".formatted(measured.name(), rows, runRows));
                    }
                }
                System.out.printf(Locale.ROOT, "raw\t%s\trows %d\t%s%n", measured.name(), rows,
                        String.join(" ", millis.stream().map(value -> "%.1f".formatted(value)).toList()));
                List<Double> sorted = millis.stream().sorted().toList();
                summary.add("%-52s %8d %10.1f %10.1f %10.1f".formatted(measured.name(), rows, sorted.getFirst(), median(sorted), sorted.getLast()));
            }
        }
        System.out.printf(Locale.ROOT, "%-52s %8s %10s %10s %10s%n", "call", "rows", "min ms", "median ms", "max ms");
        summary.forEach(System.out::println);
    }

    /** Creates the tables the schema lacks, four at a time; returns how many it created. */
    private static int createTables(String url, Properties properties, int tables, int columns)
            throws Exception
    {
        Set<String> existing = new HashSet<>();
        try (Connection connection = DriverManager.getConnection(url, properties);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS nsc." + SCHEMA);
            try (ResultSet names = statement.executeQuery("SELECT table_name FROM nsc.information_schema.tables WHERE table_schema = '%s'".formatted(SCHEMA))) {
                while (names.next()) {
                    existing.add(names.getString(1));
                }
            }
        }
        ExecutorService executor = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int table = 0; table < tables; table++) {
                int number = table;
                if (!existing.contains("t%04d".formatted(number))) {
                    futures.add(executor.submit(() -> createTable(url, properties, number, columns)));
                }
            }
            for (Future<?> future : futures) {
                future.get();
            }
            return futures.size();
        }
        finally {
            executor.shutdownNow();
        }
    }

    private static Void createTable(String url, Properties properties, int number, int columns)
            throws SQLException
    {
        String name = "nsc.%s.t%04d".formatted(SCHEMA, number);
        try (Connection connection = DriverManager.getConnection(url, properties);
                Statement statement = connection.createStatement()) {
            List<String> definitions = new ArrayList<>();
            for (int column = 0; column < columns; column++) {
                String comment = column % 5 == 0 ? " COMMENT 'column %d of table %d'".formatted(column, number) : "";
                definitions.add("c%02d %s%s".formatted(column, TYPES[column % TYPES.length], comment));
            }
            String tableComment = number % 10 == 0 ? " COMMENT 'table %d, as a BI tool lists it'".formatted(number) : "";
            statement.execute("CREATE TABLE %s (%s)%s".formatted(name, String.join(", ", definitions), tableComment));
            if (number < TABLES_WITH_ROWS) {
                statement.execute("INSERT INTO %s (c00, c01) VALUES (1, 'one'), (2, 'two')".formatted(name));
            }
            return null;
        }
    }

    private static long count(Connection connection, String sql)
            throws SQLException
    {
        try (Statement statement = connection.createStatement();
                ResultSet resultSet = statement.executeQuery(sql)) {
            return count(resultSet);
        }
    }

    private static long count(ResultSet resultSet)
            throws SQLException
    {
        try (resultSet) {
            int columnCount = resultSet.getMetaData().getColumnCount();
            long rows = 0;
            while (resultSet.next()) {
                for (int column = 1; column <= columnCount; column++) {
                    resultSet.getObject(column);
                }
                rows++;
            }
            return rows;
        }
    }

    private static double median(List<Double> sorted)
    {
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    private static Map<String, String> options(String[] args)
    {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 == args.length) {
                throw new IllegalArgumentException("options are --name value pairs: --url, --tables, --columns, --runs, --warmups; got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
