package io.nsc.tools.tpch;

import com.google.common.base.Stopwatch;
import com.google.common.collect.ImmutableList;
import io.nsc.parquet.FixedRowGroupParquetWriter;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.tools.load.Lz4Reframing;
import io.trino.spi.Page;
import io.trino.spi.type.Type;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import org.apache.parquet.format.CompressionCodec;

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
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.util.Objects.requireNonNull;

/**
 * Writes the TPC-H tables as Parquet files nsc can load: {@code DIR/<table>/<table>-NNN.parquet}.
 *
 * <p>Values come from the same generator library and calls as Trino's {@code tpch} connector
 * ({@code TpchTable.createGenerator(scale, 1, 1)}), and names and types are the connector's
 * (see {@link TpchColumns}), so nsc and the {@code tpch} catalog answer queries identically.
 * lineitem is sorted by {@code l_shipdate} and orders by {@code o_orderdate} (stable, so rows of
 * one day stay in generator order), which gives their row groups narrow date ranges to prune on.
 * Memory does not grow with the scale: other tables stream a row group at a time, and the sorted
 * ones hold at most {@link TpchGeneratorOptions#sortRunRows()} rows, spilling sorted runs to a
 * hidden directory under the output directory and merging them ({@link SortedRowGroupSource}).
 */
public final class TpchParquetGenerator
{
    // Row counts at scale 1, to size the sort buffers of small tables up front
    private static final long LINEITEM_ROWS_SF1 = 6_001_215;
    private static final long ORDERS_ROWS_SF1 = 1_500_000;
    private static final int MAX_STREAMING_BUFFER_ROWS = 1 << 20;

    private final Consumer<String> progress;

    public TpchParquetGenerator()
    {
        this(_ -> {});
    }

    /**
     * @param progress receives one line per table written
     */
    public TpchParquetGenerator(Consumer<String> progress)
    {
        this.progress = requireNonNull(progress, "progress is null");
    }

    /** Writes the tables in the order of {@link TpchGeneratorOptions#tables()} (all eight if empty). */
    public List<GeneratedTable> generate(double scale, Path outputDir, TpchGeneratorOptions options)
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
        ImmutableList.Builder<GeneratedTable> generated = ImmutableList.builder();
        for (TpchTable<?> table : tables) {
            generated.add(generateTable(table, scale, outputDir, options));
        }
        return generated.build();
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

    private <E extends TpchEntity> GeneratedTable generateTable(TpchTable<E> table, double scale, Path outputDir, TpchGeneratorOptions options)
            throws IOException
    {
        Stopwatch stopwatch = Stopwatch.createStarted();
        Path tableDir = outputDir.resolve(table.getTableName());
        Files.createDirectories(tableDir);
        Optional<String> sortColumn = TpchColumns.sortColumn(table);
        Iterator<E> rows = table.createGenerator(scale, 1, 1).iterator();
        List<String> names = TpchColumns.names(table);
        List<Type> types = TpchColumns.types(table);
        FixedRowGroupParquetWriter writer = null;
        int files = 0;
        long rowCount = 0;
        long bytes = 0;
        // sorting takes every row before the first is written; it deletes its run files if it fails
        Optional<SortedRowGroupSource> sorted = sortColumn.isEmpty()
                ? Optional.empty()
                : Optional.of(SortedRowGroupSource.sort(table, rows, sortColumn.get(), options.sortRunRows(), SortedRowGroupSource.DEFAULT_MERGE_WIDTH, outputDir, expectedRows(table, scale)));
        try (RowGroupSource source = sorted.isPresent() ? sorted.get() : streamingSource(table, rows, options.rowsPerRowGroup())) {
            while (true) {
                if (writer != null && writer.rowCount() == options.rowsPerFile()) {
                    bytes += closeFile(writer, fileName(tableDir, table, files - 1), options);
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
                rowCount += page.getPositionCount();
            }
            if (writer != null) {
                bytes += closeFile(writer, fileName(tableDir, table, files - 1), options);
            }
        }
        catch (IOException | RuntimeException e) {
            if (writer != null) {
                try {
                    writer.abort();
                }
                catch (IOException | RuntimeException abortFailure) {
                    e.addSuppressed(abortFailure);
                }
            }
            throw e;
        }
        GeneratedTable generated = new GeneratedTable(table.getTableName(), rowCount, files, bytes, stopwatch.elapsed(), sorted.map(SortedRowGroupSource::statistics));
        progress.accept(describe(generated));
        return generated;
    }

    /**
     * Closes the file; LZ4 pages, which Trino's writer writes as bare LZ4 blocks that its reader
     * cannot decode, then get Hadoop's framing.
     *
     * @return the file's size
     */
    private static long closeFile(FixedRowGroupParquetWriter writer, Path file, TpchGeneratorOptions options)
            throws IOException
    {
        writer.close();
        if (options.compression() == CompressionCodec.LZ4) {
            Path framed = file.resolveSibling("." + file.getFileName() + ".framed");
            try {
                Lz4Reframing.reframe(file, ParquetFooterParser.readFooter(file), framed);
            }
            catch (InvalidParquetFileException e) {
                Files.deleteIfExists(framed);
                throw new IOException(e.getMessage(), e);
            }
            catch (IOException | RuntimeException e) {
                Files.deleteIfExists(framed);
                throw e;
            }
            Files.move(framed, file, REPLACE_EXISTING, ATOMIC_MOVE);
        }
        return Files.size(file);
    }

    private static String describe(GeneratedTable table)
    {
        String line = "%s: %s rows in %s file%s, %.1f MB, %.1f s".formatted(
                table.table(), table.rows(), table.files(), table.files() == 1 ? "" : "s", table.bytes() / 1e6, table.elapsed().toMillis() / 1e3);
        if (table.sort().isEmpty()) {
            return line;
        }
        SortStatistics sort = table.sort().get();
        if (sort.mergePasses() == 0) {
            return line + "; sorted in memory (%.1f MB)".formatted(sort.peakBufferBytes() / 1e6);
        }
        return line + "; sorted in %s runs of at most %s rows (%.1f MB in memory), %.1f MB spilled, %s merge pass%s".formatted(
                sort.runs(), sort.peakBufferedRows(), sort.peakBufferBytes() / 1e6, sort.spilledBytes() / 1e6, sort.mergePasses(), sort.mergePasses() == 1 ? "" : "es");
    }

    private static Path fileName(Path tableDir, TpchTable<?> table, int index)
    {
        return tableDir.resolve("%s-%03d.parquet".formatted(table.getTableName(), index));
    }

    private static <E extends TpchEntity> RowGroupSource streamingSource(TpchTable<E> table, Iterator<E> rows, int rowsPerRowGroup)
    {
        TpchRowBuffer<E> buffer = new TpchRowBuffer<>(table, min(rowsPerRowGroup, MAX_STREAMING_BUFFER_ROWS));
        return maxRows -> {
            buffer.clear();
            while (buffer.rowCount() < maxRows && rows.hasNext()) {
                buffer.append(rows.next());
            }
            return buffer.rowCount() == 0 ? null : buffer.page(null, 0, buffer.rowCount());
        };
    }

    private static long expectedRows(TpchTable<?> table, double scale)
    {
        long rowsAtScaleOne = switch (table.getTableName()) {
            case "lineitem" -> LINEITEM_ROWS_SF1;
            case "orders" -> ORDERS_ROWS_SF1;
            default -> 0;
        };
        // a little slack: lineitem's count is only proportional to the scale on average
        return (long) Math.ceil(rowsAtScaleOne * scale * 1.01);
    }
}
