package io.nsc.tests.cluster;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands every product test the one cluster of this test run, started on first use and stopped
 * when the run ends: starting a cluster takes a minute, so test classes share it. Which cluster is
 * chosen by {@code -Dnsc.cluster=process} (the default), {@code process-postgresql} (the process
 * cluster with its catalog in PostgreSQL and two metadata services) or {@code compose}.
 */
public final class NscClusterExtension
        implements ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NscClusterExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
    {
        return parameterContext.getParameter().getType() == NscCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
    {
        return extensionContext.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent("cluster", _ -> new ClosingResource(startCluster()), ClosingResource.class)
                .cluster();
    }

    private static NscCluster startCluster()
    {
        String kind = System.getProperty("nsc.cluster", "process");
        return switch (kind) {
            case "process" -> ProcessCluster.start(ProcessCluster.Catalog.H2);
            case "process-postgresql" -> ProcessCluster.start(ProcessCluster.Catalog.POSTGRESQL);
            case "compose" -> ComposeCluster.start();
            default -> throw new IllegalArgumentException("nsc.cluster must be process, process-postgresql or compose, got " + kind);
        };
    }

    private record ClosingResource(NscCluster cluster)
            implements ExtensionContext.Store.CloseableResource
    {
        @Override
        public void close()
        {
            cluster.close();
        }
    }
}
