package io.nsc.trino;

import io.nsc.tools.load.LoadOptions;
import io.nsc.tools.load.ParquetLoader;
import io.nsc.tools.tpch.TpchGeneratorOptions;
import io.nsc.tools.tpch.TpchParquetGenerator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/**
 * TPC-H tiny in a {@link TestingNscCluster}, as {@code ./nsc demo} puts TPC-H there: generated as
 * Parquet by the tools' generator (lineitem and orders sorted by date) and loaded by the loader.
 */
public final class TpchTiny
{
    public static final List<String> TPCH_TABLES = List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");
    /** Small row groups make pruning observable on TPC-H tiny (lineitem: ~60 row groups). */
    public static final int TINY_ROWS_PER_ROW_GROUP = 1000;

    private TpchTiny() {}

    /** Generates TPC-H tiny as Parquet (lineitem and orders sorted by date) and loads it into nsc.tpch. */
    public static void load(TestingNscCluster cluster)
    {
        Path data = cluster.root().resolve("tpch-tiny");
        try {
            new TpchParquetGenerator().generate(0.01, data, TpchGeneratorOptions.defaults().withRowsPerRowGroup(TINY_ROWS_PER_ROW_GROUP));
            ParquetLoader loader = new ParquetLoader(cluster.clientSecurity());
            for (String table : TPCH_TABLES) {
                loader.load(cluster.metadataAddress(), "tpch", table, List.of(data.resolve(table)), LoadOptions.defaults());
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
