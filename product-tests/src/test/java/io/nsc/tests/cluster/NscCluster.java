package io.nsc.tests.cluster;

import java.sql.Connection;
import java.sql.SQLException;
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
    /** How clients reach Trino: port, credentials and the CA that signed its certificate. */
    TrinoAccess trinoAccess();

    /** The JDBC URL printed for users (catalog {@code nsc}). */
    default String jdbcUrl()
    {
        return trinoAccess().jdbcUrl("nsc");
    }

    /**
     * A JDBC connection as a BI tool opens it, with the cluster's TLS settings and credentials;
     * {@code path} is a catalog and optional schema: {@code nsc}, {@code nsc/tpch}, {@code tpch/tiny}.
     */
    default Connection connect(String path)
            throws SQLException
    {
        return trinoAccess().connect(path);
    }

    /** The body of a GET of Trino's REST API (such as {@code /v1/query/ID}), as the JDBC user. */
    String trinoRest(String path);

    List<String> storageNodeIds();

    /**
     * The metadata services, in the order every client tries them: {@code metadata}, or
     * {@code metadata-1} and {@code metadata-2} over one PostgreSQL.
     */
    List<String> metadataServices();

    /** Kills a component without warning (SIGKILL): a metadata service or a storage node id. */
    void kill(String component);

    /** Starts every component that is down, on its existing data, and waits until it is healthy. */
    void startStopped();

    /** The counters a service publishes at {@code /v1/metrics}. */
    Map<String, Long> metrics(String component);

    @Override
    void close();
}
