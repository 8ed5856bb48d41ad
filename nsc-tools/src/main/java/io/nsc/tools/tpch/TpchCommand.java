package io.nsc.tools.tpch;

import com.google.common.base.Splitter;
import com.google.common.base.Stopwatch;
import io.nsc.parquet.ParquetWriteCodec;
import io.nsc.tools.cli.Arguments;
import io.nsc.tools.cli.PeakMemory;
import io.nsc.tools.cli.UsageException;
import org.apache.parquet.format.CompressionCodec;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static io.nsc.tools.NscTool.EXIT_FAILED;
import static io.nsc.tools.NscTool.EXIT_OK;
import static io.nsc.tools.NscTool.EXIT_USAGE;
import static java.lang.Math.toIntExact;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/** {@code nsc tpch}: writes TPC-H tables as Parquet files. */
public final class TpchCommand
{
    public static final String USAGE = "nsc tpch --scale S --output DIR [--rows-per-row-group N] [--rows-per-file N] [--sort-run-rows N] [--tables a,b,...] [--compression zstd|lz4|snappy|gzip|none]";

    private TpchCommand() {}

    public static int run(List<String> args, PrintStream out, PrintStream err)
    {
        double scale;
        Path output;
        TpchGeneratorOptions options;
        try {
            Arguments arguments = Arguments.parse(args, Set.of("scale", "output", "rows-per-row-group", "rows-per-file", "sort-run-rows", "tables", "compression"), Set.of());
            if (!arguments.positionals().isEmpty()) {
                throw new UsageException("unexpected argument '%s'".formatted(arguments.positionals().getFirst()));
            }
            scale = parseScale(arguments.required("scale"));
            output = Path.of(arguments.required("output"));
            options = TpchGeneratorOptions.defaults();
            options = options.withRowsPerRowGroup(toIntExact(arguments.longValue("rows-per-row-group", 1).orElse((long) options.rowsPerRowGroup())));
            options = options.withRowsPerFile(arguments.longValue("rows-per-file", 1).orElse(options.rowsPerFile()));
            options = options.withSortRunRows(toIntExact(arguments.longValue("sort-run-rows", 1).orElse((long) options.sortRunRows())));
            if (arguments.value("compression").isPresent()) {
                options = options.withCompression(parseCompression(arguments.value("compression").get()));
            }
            if (arguments.value("tables").isPresent()) {
                options = options.withTables(Splitter.on(',').trimResults().omitEmptyStrings().splitToList(arguments.value("tables").get()));
                TpchParquetGenerator.resolveTables(options.tables());
            }
        }
        catch (UsageException | IllegalArgumentException | ArithmeticException e) {
            err.println("nsc tpch: " + e.getMessage());
            err.println("usage: " + USAGE);
            return EXIT_USAGE;
        }

        Stopwatch stopwatch = Stopwatch.createStarted();
        try {
            new TpchParquetGenerator(out::println).generate(scale, output, options);
        }
        catch (IOException | RuntimeException e) {
            err.println("nsc tpch: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return EXIT_FAILED;
        }
        out.printf("wrote TPC-H scale %s to %s in %.1f s%n", scale, output, stopwatch.elapsed(MILLISECONDS) / 1e3);
        out.println(PeakMemory.describe());
        return EXIT_OK;
    }

    // the codecs Trino's Parquet writer and reader both support, as the connector writes them,
    // and LZ4, whose pages the generator gives the framing Trino's reader needs
    private static CompressionCodec parseCompression(String text)
            throws UsageException
    {
        if (text.trim().equalsIgnoreCase("lz4")) {
            return CompressionCodec.LZ4;
        }
        try {
            return ParquetWriteCodec.parse(text).parquetCodec();
        }
        catch (IllegalArgumentException e) {
            throw new UsageException("--compression: " + e.getMessage());
        }
    }

    private static double parseScale(String text)
            throws UsageException
    {
        try {
            double scale = Double.parseDouble(text);
            if (scale > 0 && Double.isFinite(scale)) {
                return scale;
            }
        }
        catch (NumberFormatException _) {
            // reported below
        }
        throw new UsageException("--scale needs a positive number, not '%s'".formatted(text));
    }
}
