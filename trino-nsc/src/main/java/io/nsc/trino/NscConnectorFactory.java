package io.nsc.trino;

import com.google.common.annotations.VisibleForTesting;
import com.google.inject.Injector;
import com.google.inject.Module;
import com.google.inject.util.Modules;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.json.JsonModule;
import io.trino.plugin.base.CatalogNameModule;
import io.trino.plugin.base.jmx.ConnectorObjectNameGeneratorModule;
import io.trino.plugin.base.jmx.MBeanServerModule;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import org.weakref.jmx.guice.MBeanModule;

import java.util.Map;

import static io.trino.plugin.base.Versions.checkStrictSpiVersionMatch;
import static java.util.Objects.requireNonNull;

public final class NscConnectorFactory
        implements ConnectorFactory
{
    private final Module overrides;

    public NscConnectorFactory()
    {
        this(Modules.EMPTY_MODULE);
    }

    /**
     * @param overrides bindings that replace the connector's own, for tests that watch or pace
     *        what the connector does (such as when a scan lists its next batch of files)
     */
    @VisibleForTesting
    public NscConnectorFactory(Module overrides)
    {
        this.overrides = requireNonNull(overrides, "overrides is null");
    }

    @Override
    public String getName()
    {
        return "nsc";
    }

    @Override
    public Connector create(String catalogName, Map<String, String> config, ConnectorContext context)
    {
        requireNonNull(config, "config is null");
        checkStrictSpiVersionMatch(context, this);

        Bootstrap app = new Bootstrap(
                new JsonModule(),
                new CatalogNameModule(catalogName),
                // as Trino's plugins: MBeans named trino.plugin.nsc.<package>:type=<class>,name=<catalog>
                // in the platform MBeanServer, where a second registration of a name keeps the first
                new MBeanModule(),
                new MBeanServerModule(),
                new ConnectorObjectNameGeneratorModule("io.nsc.trino", "trino.plugin.nsc"),
                Modules.override(new NscModule(context.getTypeManager(), context.getNodeManager())).with(overrides));

        Injector injector = app
                .doNotInitializeLogging()
                .setRequiredConfigurationProperties(config)
                .initialize();

        return injector.getInstance(NscConnector.class);
    }
}
