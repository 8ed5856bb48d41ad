package io.nsc.trino;

import com.google.common.collect.ImmutableMap;
import io.trino.Session;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.spi.Plugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;

import java.util.Map;

import static io.trino.testing.TestingSession.testSessionBuilder;

/**
 * A Trino with catalogs {@code nsc} (over a {@link TestingNscCluster}) and {@code tpch}
 * (standard column names), so that one query text runs on both.
 */
public final class NscQueryRunner
{
    private NscQueryRunner() {}

    public static QueryRunner create(TestingNscCluster cluster, Map<String, String> nscProperties)
            throws Exception
    {
        return create(cluster, nscProperties, Map.of());
    }

    /**
     * @param moreNscCatalogs further catalogs over the same cluster, by name, with their catalog
     *         properties (other than the metadata address), e.g. to compare writer settings
     */
    public static QueryRunner create(TestingNscCluster cluster, Map<String, String> nscProperties, Map<String, Map<String, String>> moreNscCatalogs)
            throws Exception
    {
        return create(cluster, new NscPlugin(), nscProperties, moreNscCatalogs);
    }

    /**
     * @param nscPlugin the plugin the nsc catalogs come from: one whose connector a test watches, or the real one
     */
    public static QueryRunner create(TestingNscCluster cluster, Plugin nscPlugin, Map<String, String> nscProperties, Map<String, Map<String, String>> moreNscCatalogs)
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
            queryRunner.installPlugin(nscPlugin);
            queryRunner.createCatalog("nsc", "nsc", ImmutableMap.<String, String>builder()
                    .put("nsc.metadata-address", cluster.metadataAddress())
                    .putAll(cluster.clientTlsProperties())
                    .putAll(nscProperties)
                    .buildOrThrow());
            for (Map.Entry<String, Map<String, String>> catalog : moreNscCatalogs.entrySet()) {
                queryRunner.createCatalog(catalog.getKey(), "nsc", ImmutableMap.<String, String>builder()
                        .put("nsc.metadata-address", cluster.metadataAddress())
                        .putAll(cluster.clientTlsProperties())
                        .putAll(catalog.getValue())
                        .buildOrThrow());
            }
            return queryRunner;
        }
        catch (Throwable e) {
            queryRunner.close();
            throw e;
        }
    }
}
