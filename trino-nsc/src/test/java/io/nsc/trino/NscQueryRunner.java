package io.nsc.trino;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import io.airlift.log.Logger;
import io.trino.plugin.tpch.ColumnNaming;
import io.trino.plugin.tpch.TpchPlugin;
import io.trino.spi.Plugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.QueryRunner;
import io.trino.tpch.TpchTable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static com.google.common.base.Preconditions.checkState;
import static io.airlift.testing.Closeables.closeAllSuppress;
import static io.trino.plugin.tpch.ColumnNaming.STANDARD;
import static io.trino.plugin.tpch.TpchMetadata.TINY_SCHEMA_NAME;
import static io.trino.testing.QueryAssertions.copyTpchTables;
import static io.trino.testing.TestingSession.testSessionBuilder;
import static java.util.Objects.requireNonNull;

/**
 * A Trino with catalogs {@code nsc} (over a {@link TestingNscCluster}) and {@code tpch}, so that
 * one query text runs on both. {@link #main} starts one on port 8080 for manual work.
 */
public final class NscQueryRunner
{
    public static final String NSC_CATALOG = "nsc";
    public static final String TPCH_SCHEMA = "tpch";

    private NscQueryRunner() {}

    public static Builder builder(TestingNscCluster cluster)
    {
        return new Builder(cluster);
    }

    public static QueryRunner create(TestingNscCluster cluster, Map<String, String> nscProperties)
            throws Exception
    {
        return builder(cluster).setNscProperties(nscProperties).build();
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
        Builder builder = builder(cluster)
                .setNscPlugin(nscPlugin)
                .setNscProperties(nscProperties);
        moreNscCatalogs.forEach(builder::addNscCatalog);
        return builder.build();
    }

    public static final class Builder
            extends DistributedQueryRunner.Builder<Builder>
    {
        private final TestingNscCluster cluster;
        private final Map<String, String> nscProperties = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> moreNscCatalogs = new LinkedHashMap<>();
        private Plugin nscPlugin = new NscPlugin();
        private ColumnNaming tpchColumnNaming = STANDARD;
        private List<TpchTable<?>> initialTables = ImmutableList.of();
        private boolean tpchTinyLoaded;

        private Builder(TestingNscCluster cluster)
        {
            super(testSessionBuilder()
                    .setCatalog(NSC_CATALOG)
                    .setSchema(TPCH_SCHEMA)
                    .build());
            this.cluster = requireNonNull(cluster, "cluster is null");
            // a coordinator and two workers: what BaseConnectorTest.ensureDistributedQueryRunner asks for
            setWorkerCount(2);
        }

        public Builder addNscProperty(String key, String value)
        {
            nscProperties.put(requireNonNull(key, "key is null"), requireNonNull(value, "value is null"));
            return self();
        }

        public Builder setNscProperties(Map<String, String> properties)
        {
            nscProperties.clear();
            nscProperties.putAll(properties);
            return self();
        }

        /** A further catalog over the same cluster with its own properties (other than the metadata address). */
        public Builder addNscCatalog(String name, Map<String, String> properties)
        {
            checkState(!name.equals(NSC_CATALOG), "catalog %s is always created", NSC_CATALOG);
            moreNscCatalogs.put(name, ImmutableMap.copyOf(properties));
            return self();
        }

        /** The plugin the nsc catalogs come from: one whose connector a test watches, or the real one. */
        public Builder setNscPlugin(Plugin plugin)
        {
            this.nscPlugin = requireNonNull(plugin, "plugin is null");
            return self();
        }

        /** Column names of the {@code tpch} catalog: STANDARD ({@code o_orderkey}, as nsc's loaded TPC-H) or SIMPLIFIED. */
        public Builder setTpchColumnNaming(ColumnNaming naming)
        {
            this.tpchColumnNaming = requireNonNull(naming, "naming is null");
            return self();
        }

        /** TPC-H tiny tables copied into {@code nsc.tpch} by CTAS through Trino, i.e. written by nsc's page sink. */
        public Builder setInitialTables(Iterable<TpchTable<?>> tables)
        {
            this.initialTables = ImmutableList.copyOf(tables);
            return self();
        }

        /** TPC-H tiny loaded into {@code nsc.tpch} as {@code ./nsc demo} loads it: generated Parquet, the loader. */
        public Builder withTpchTinyLoaded()
        {
            this.tpchTinyLoaded = true;
            return self();
        }

        @Override
        public DistributedQueryRunner build()
                throws Exception
        {
            checkState(!tpchTinyLoaded || initialTables.isEmpty(), "nsc.tpch is either loaded or copied, not both");
            if (tpchTinyLoaded) {
                TpchTiny.load(cluster);
            }
            DistributedQueryRunner queryRunner = super.build();
            try {
                queryRunner.installPlugin(new TpchPlugin());
                queryRunner.createCatalog("tpch", "tpch", ImmutableMap.of("tpch.column-naming", tpchColumnNaming.name()));
                queryRunner.installPlugin(nscPlugin);
                queryRunner.createCatalog(NSC_CATALOG, "nsc", catalogProperties(nscProperties));
                moreNscCatalogs.forEach((name, properties) -> queryRunner.createCatalog(name, "nsc", catalogProperties(properties)));
                if (!initialTables.isEmpty()) {
                    queryRunner.execute("CREATE SCHEMA IF NOT EXISTS %s.%s".formatted(NSC_CATALOG, TPCH_SCHEMA));
                    copyTpchTables(queryRunner, "tpch", TINY_SCHEMA_NAME, queryRunner.getDefaultSession(), initialTables);
                }
                return queryRunner;
            }
            catch (Throwable e) {
                closeAllSuppress(e, queryRunner);
                throw e;
            }
        }

        private Map<String, String> catalogProperties(Map<String, String> properties)
        {
            return ImmutableMap.<String, String>builder()
                    .put("nsc.metadata-address", cluster.metadataAddress())
                    .putAll(cluster.clientTlsProperties())
                    .putAll(properties)
                    .buildOrThrow();
        }
    }

    /** A cluster of three storage nodes with TPC-H tiny loaded, and a Trino on port 8080 over it, until killed. */
    public static void main(String[] args)
            throws Exception
    {
        TestingNscCluster cluster = TestingNscCluster.start(3);
        DistributedQueryRunner queryRunner;
        try {
            queryRunner = builder(cluster)
                    .addCoordinatorProperty("http-server.http.port", "8080")
                    .setTpchColumnNaming(STANDARD)
                    .withTpchTinyLoaded()
                    // closed with the runner, which the shutdown hook closes
                    .registerResource(cluster)
                    .build();
        }
        catch (Throwable e) {
            closeAllSuppress(e, cluster);
            throw e;
        }
        Logger log = Logger.get(NscQueryRunner.class);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                queryRunner.close();
            }
            catch (RuntimeException e) {
                log.error(e, "Closing the query runner and the nsc cluster failed");
            }
        }, "nsc-query-runner-shutdown"));
        log.info("======== SERVER STARTED ========");
        log.info("\n====\nTrino: %s\nnsc metadata service: %s\n====", queryRunner.getCoordinator().getBaseUrl(), cluster.metadataAddress());
    }
}
