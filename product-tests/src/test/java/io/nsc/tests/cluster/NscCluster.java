package io.nsc.tests.cluster;

import java.util.List;
import java.util.Map;

/**
 * A running nsc cluster as the product tests see it: SQL over JDBC, the services' public HTTP
 * endpoints, and the power to kill and restart components. Two implementations: the process
 * cluster {@code ./nsc demo} starts (the default) and the Docker Compose cluster
 * ({@code -Dnsc.cluster=compose}).
 */
public interface NscCluster
        extends AutoCloseable
{
    String jdbcUrl();

    List<String> storageNodeIds();

    /** Kills a component without warning (SIGKILL): {@code metadata} or a storage node id. */
    void kill(String component);

    /** Starts every component that is down, on its existing data, and waits until it is healthy. */
    void startStopped();

    /** The counters a service publishes at {@code /v1/metrics}. */
    Map<String, Long> metrics(String component);

    @Override
    void close();
}
