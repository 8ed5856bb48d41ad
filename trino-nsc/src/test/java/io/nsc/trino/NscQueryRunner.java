package io.nsc.trino;

import com.google.common.collect.ImmutableMap;
import io.nsc.tools.load.LoadOptions;
import io.nsc.tools.load.ParquetLoader;
import io.nsc.tools.tpch.TpchGeneratorOptions;
import io.nsc.tools.tpch.TpchParquetGenerator;
import io.trino.Session;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.trino.testing.TestingSession.testSessionBuilder;

/**
 * A Trino with catalogs {@code nsc} (over a {@link TestingNscCluster}) and {@code tpch}
 * (standard column names), so that one query text runs on both.
 */
public final class NscQueryRunner
{
    public static final List<String> TPCH_TABLES = List.of("region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem");
    /** Small row groups make pruning observable on TPC-H tiny (lineitem: ~60 row groups). */
    public static final int TINY_ROWS_PER_ROW_GROUP = 1000;

    private NscQueryRunner() {}

    public static QueryRunner create(TestingNscCluster cluster, Map<String, String> nscProperties)
            throws Exception
    {
        Session session = testSessionBuilder()
                .setCatalog("nsc")
                .setSchema("tpch")
                .build();
        QueryRunner queryRunner = DistributedQueryRunner.builder(session).build();
        try {
            queryRunner.installPlugin(new TpchPlugin());
            queryRunner.createCatalog("tpch", "tpch", ImmutableMap.of("tpch.column-naming", "STANDARD"));
            queryRunner.installPlugin(new NscPlugin());
            queryRunner.createCatalog("nsc", "nsc", ImmutableMap.<String, String>builder()
                    .put("nsc.metadata-address", cluster.metadataAddress())
                    .putAll(nscProperties)
                    .buildOrThrow());
            return queryRunner;
        }
        catch (Throwable e) {
            queryRunner.close();
            throw e;
        }
    }

    /** Generates TPC-H tiny as Parquet (lineitem and orders sorted by date) and loads it into nsc.tpch. */
    public static void loadTpchTiny(TestingNscCluster cluster)
    {
        Path data = cluster.root().resolve("tpch-tiny");
        try {
            new TpchParquetGenerator().generate(0.01, data, TpchGeneratorOptions.defaults().withRowsPerRowGroup(TINY_ROWS_PER_ROW_GROUP));
            ParquetLoader loader = new ParquetLoader();
            for (String table : TPCH_TABLES) {
                loader.load(cluster.metadataAddress(), "tpch", table, List.of(data.resolve(table)), LoadOptions.defaults());
            }
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
