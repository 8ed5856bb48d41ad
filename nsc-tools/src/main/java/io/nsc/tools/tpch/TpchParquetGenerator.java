package io.nsc.tools.tpch;

import com.google.common.base.Stopwatch;
import com.google.common.collect.ImmutableList;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.lang.Math.min;
import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Writes the TPC-H tables as Parquet files nsc can load: {@code DIR/<table>/<table>-NNN.parquet}.
 *
 * <p>Values come from the same generator library and calls as Trino's {@code tpch} connector
 * ({@code TpchTable.createGenerator(scale, 1, 1)}), and names and types are the connector's
 * (see {@link TpchColumns}), so nsc and the {@code tpch} catalog answer queries identically.
 * lineitem is sorted by {@code l_shipdate} and orders by {@code o_orderdate} (stable, so rows of
 * one day stay in generator order), which gives their row groups narrow date ranges to prune on.
 */
public final class TpchParquetGenerator
{
    // Row counts at scale 1, to size the in-memory buffers of the sorted tables up front
    private static final long LINEITEM_ROWS_SF1 = 6_001_215;
    private static final long ORDERS_ROWS_SF1 = 1_500_000;
    private static final int MAX_STREAMING_BUFFER_ROWS = 1 << 20;

    private final Consumer<String> progress;

    public TpchParquetGenerator()
    {
        this(_ -> {});
    }

    /** @param progress receives one line per table written */
    public TpchParquetGenerator(Consumer<String> progress)
    {
        this.progress = requireNonNull(progress, "progress is null");
    }

    public void generate(double scale, Path outputDir, TpchGeneratorOptions options)
            throws IOException
    {
        checkArgument(scale > 0 && Double.isFinite(scale), "scale must be a positive number: %s", scale);
        requireNonNull(outputDir, "outputDir is null");
        requireNonNull(options, "options is null");
        List<TpchTable<?>> tables = resolveTables(options.tables());

        // refuse before writing anything, rather than after the first tables are done
        for (TpchTable<?> table : tables) {
            checkNoParquetFiles(outputDir.resolve(table.getTableName()));
        }
        for (TpchTable<?> table : tables) {
            generateTable(table, scale, outputDir.resolve(table.getTableName()), options);
        }
    }

    static List<TpchTable<?>> resolveTables(List<String> names)
    {
        if (names.isEmpty()) {
            return TpchTable.getTables();
        }
        ImmutableList.Builder<TpchTable<?>> tables = ImmutableList.builder();
        for (String name : names) {
            String normalized = name.trim().toLowerCase(Locale.ENGLISH);
            tables.add(TpchTable.getTables().stream()
                    .filter(table -> table.getTableName().equals(normalized))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("Unknown TPC-H table '%s'; the tables are %s".formatted(
                            name,
                            TpchTable.getTables().stream().map(TpchTable::getTableName).collect(toImmutableList())))));
        }
        List<TpchTable<?>> result = tables.build();
        checkArgument(result.stream().distinct().count() == result.size(), "A table is listed more than once: %s", names);
        return result;
    }

    private static void checkNoParquetFiles(Path tableDir)
            throws IOException
    {
        if (!Files.isDirectory(tableDir)) {
            return;
        }
        try (Stream<Path> files = Files.list(tableDir)) {
            Optional<Path> existing = files.filter(file -> file.getFileName().toString().endsWith(".parquet")).findFirst();
            if (existing.isPresent()) {
                // old files would mix with new ones (a smaller scale leaves stale higher-numbered files)
                throw new IllegalArgumentException("%s already holds Parquet files (%s): delete them or choose another output directory".formatted(tableDir, existing.get().getFileName()));
            }
        }
    }

    private <E extends TpchEntity> void generateTable(TpchTable<E> table, double scale, Path tableDir, TpchGeneratorOptions options)
            throws IOException
    {
        Stopwatch stopwatch = Stopwatch.createStarted();
        Files.createDirectories(tableDir);
        RowGroupSource source = TpchColumns.sortColumn(table)
                .map(column -> sortedSource(table, scale, column))
                .orElseGet(() -> streamingSource(table, scale, options.rowsPerRowGroup()));

        List<String> names = TpchColumns.names(table);
        List<Type> types = TpchColumns.types(table);
        FixedRowGroupParquetWriter writer = null;
        int files = 0;
        long rows = 0;
        long bytes = 0;
        try {
            while (true) {
                if (writer != null && writer.rowCount() == options.rowsPerFile()) {
                    writer.close();
                    bytes += Files.size(fileName(tableDir, table, files - 1));
                    writer = null;
                }
                long leftInFile = options.rowsPerFile() - (writer == null ? 0 : writer.rowCount());
                Page page = source.next(toIntExact(min(options.rowsPerRowGroup(), leftInFile)));
                if (page == null) {
                    break;
                }
                if (writer == null) {
                    writer = new FixedRowGroupParquetWriter(fileName(tableDir, table, files), names, types, options.compression());
                    files++;
                }
                writer.writeRowGroup(page);
                rows += page.getPositionCount();
            }
            if (writer != null) {
                writer.close();
                bytes += Files.size(fileName(tableDir, table, files - 1));
            }
        }
        catch (IOException | RuntimeException e) {
            if (writer != null) {
                writer.abort();
            }
            throw e;
        }
        progress.accept("%s: %s rows in %s file%s, %.1f MB, %.1f s".formatted(
                table.getTableName(), rows, files, files == 1 ? "" : "s", bytes / 1e6, stopwatch.elapsed(MILLISECONDS) / 1e3));
    }

    private static Path fileName(Path tableDir, TpchTable<?> table, int index)
    {
        return tableDir.resolve("%s-%03d.parquet".formatted(table.getTableName(), index));
    }

    /** Hands out the table's rows, one row group at a time. */
    private interface RowGroupSource
    {
        /** The next at most {@code maxRows} rows, or null when there are none left. */
        Page next(int maxRows);
    }

    private static <E extends TpchEntity> RowGroupSource streamingSource(TpchTable<E> table, double scale, int rowsPerRowGroup)
    {
        Iterator<E> rows = table.createGenerator(scale, 1, 1).iterator();
        TpchRowBuffer<E> buffer = new TpchRowBuffer<>(table, min(rowsPerRowGroup, MAX_STREAMING_BUFFER_ROWS));
        return maxRows -> {
            buffer.clear();
            while (buffer.rowCount() < maxRows && rows.hasNext()) {
                buffer.append(rows.next());
            }
            return buffer.rowCount() == 0 ? null : buffer.page(null, 0, buffer.rowCount());
        };
    }

    private static <E extends TpchEntity> RowGroupSource sortedSource(TpchTable<E> table, double scale, String sortColumn)
    {
        TpchRowBuffer<E> buffer = new TpchRowBuffer<>(table, expectedRows(table, scale));
        for (E row : table.createGenerator(scale, 1, 1)) {
            buffer.append(row);
        }
        int[] order = buffer.stableOrderBy(sortColumn);
        return new RowGroupSource()
        {
            private int next;

            @Override
            public Page next(int maxRows)
            {
                if (next == order.length) {
                    return null;
                }
                int end = min(order.length, next + maxRows);
                Page page = buffer.page(order, next, end);
                next = end;
                return page;
            }
        };
    }

    private static int expectedRows(TpchTable<?> table, double scale)
    {
        long rowsAtScaleOne = switch (table.getTableName()) {
            case "lineitem" -> LINEITEM_ROWS_SF1;
            case "orders" -> ORDERS_ROWS_SF1;
            default -> 0;
        };
        // a little slack: lineitem's count is only proportional to the scale on average
        return (int) min(Integer.MAX_VALUE - 8, (long) Math.ceil(rowsAtScaleOne * scale * 1.01));
    }
}
