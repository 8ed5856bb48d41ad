package io.nsc.metadata.server;

import com.google.inject.Injector;
import io.airlift.bootstrap.Bootstrap;
import io.airlift.bootstrap.LifeCycleManager;
import io.airlift.log.Logger;
import org.weakref.jmx.MBeanExporter;
import org.weakref.jmx.guice.MBeanModule;

import javax.management.MBeanServer;

import java.lang.management.ManagementFactory;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * A running metadata service. Embedders and tests use {@link #start(Map)};
 * {@link MetadataServerMain} starts one from Airlift's {@code -Dconfig=} properties file.
 */
public final class MetadataServer
        implements AutoCloseable
{
    private static final Logger log = Logger.get(MetadataServer.class);

    private final Injector injector;
    private final MetadataEndpoints endpoints;

    private MetadataServer(Injector injector)
    {
        this.injector = requireNonNull(injector, "injector is null");
        this.endpoints = injector.getInstance(MetadataEndpoints.class);
    }

    /**
     * Starts a service configured by exactly {@code properties} (for example
     * {@code metadata.data-dir}, {@code metadata.grpc-port=0}); unknown properties fail the start.
     */
    public static MetadataServer start(Map<String, String> properties)
    {
        return start(newBootstrap().setRequiredConfigurationProperties(properties));
    }

    /** Starts a service configured the Airlift way: the file named by {@code -Dconfig}. */
    static MetadataServer startFromConfigFile()
    {
        return start(newBootstrap());
    }

    private static Bootstrap newBootstrap()
    {
        return new Bootstrap(
                new MBeanModule(),
                binder -> binder.bind(MBeanServer.class).toInstance(ManagementFactory.getPlatformMBeanServer()),
                new MetadataModule());
    }

    private static MetadataServer start(Bootstrap bootstrap)
    {
        MetadataServer server = new MetadataServer(bootstrap.initialize());
        log.info("======== SERVER STARTED ======== (gRPC port %s, HTTP port %s)", server.grpcPort(), server.httpPort());
        return server;
    }

    public int grpcPort()
    {
        return endpoints.grpcPort();
    }

    public int httpPort()
    {
        return endpoints.httpPort();
    }

    @Override
    public void close()
    {
        try {
            injector.getInstance(LifeCycleManager.class).stop();
        }
        finally {
            // Airlift's lifecycle does not unexport MBeans: do it, so that another server can
            // start in the same JVM (tests restart the service in place).
            injector.getInstance(MBeanExporter.class).unexportAllAndReportMissing();
        }
    }
}
