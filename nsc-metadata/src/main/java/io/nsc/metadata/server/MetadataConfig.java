package io.nsc.metadata.server;

import io.airlift.configuration.Config;
import io.airlift.configuration.ConfigDescription;
import io.airlift.configuration.ConfigSecuritySensitive;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.airlift.units.MaxDataSize;
import io.airlift.units.MinDataSize;
import io.airlift.units.MinDuration;
import io.nsc.metadata.catalog.CatalogBackend;
import io.nsc.metadata.catalog.TableVersionRetention;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import static io.airlift.units.DataSize.Unit.MEGABYTE;
import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;

public class MetadataConfig
{
    private String bindHost = "127.0.0.1";
    private int grpcPort = 7070;
    private int httpPort = 7071;
    private String dataDir;
    private int defaultReplication = 2;
    private Duration heartbeatInterval = new Duration(2, SECONDS);
    private Duration nodeTimeout = new Duration(10, SECONDS);
    private Duration allocationTimeout = new Duration(1, HOURS);
    private Duration uploadGrantLifetime = new Duration(30, MINUTES);
    private Duration replicaLossTimeout = new Duration(10, MINUTES);
    private Duration replicationCheckInterval = new Duration(10, SECONDS);
    private Duration copyTimeout = new Duration(10, MINUTES);
    private int maxCopiesPerNode = 4;
    private int tableFilesPageMaxFiles = 1000;
    private DataSize tableFilesPageMaxSize = DataSize.of(4, MEGABYTE);
    private Duration tableVersionRetention = TableVersionRetention.DEFAULT_RETENTION;
    private Duration allocationPurgeInterval = new Duration(1, MINUTES);
    private CatalogBackend catalog = CatalogBackend.H2;
    private String postgreSqlUrl;
    private String postgreSqlUser;
    private String postgreSqlPassword = "";
    private int postgreSqlMaxConnections = 8;
    private int grpcThreads = Math.max(16, 4 * Runtime.getRuntime().availableProcessors());
    private int grpcMaxConcurrentCallsPerConnection = 1000;

    @NotNull
    public String getBindHost()
    {
        return bindHost;
    }

    @Config("metadata.bind-host")
    @ConfigDescription("Address the gRPC and HTTP endpoints listen on")
    public MetadataConfig setBindHost(String bindHost)
    {
        this.bindHost = bindHost;
        return this;
    }

    @Min(0)
    @Max(65535)
    public int getGrpcPort()
    {
        return grpcPort;
    }

    @Config("metadata.grpc-port")
    @ConfigDescription("Port of the gRPC endpoint; 0 picks a free port")
    public MetadataConfig setGrpcPort(int grpcPort)
    {
        this.grpcPort = grpcPort;
        return this;
    }

    @Min(0)
    @Max(65535)
    public int getHttpPort()
    {
        return httpPort;
    }

    @Config("metadata.http-port")
    @ConfigDescription("Port of the HTTP endpoint (/v1/health, /v1/metrics); 0 picks a free port")
    public MetadataConfig setHttpPort(int httpPort)
    {
        this.httpPort = httpPort;
        return this;
    }

    @NotNull
    public String getDataDir()
    {
        return dataDir;
    }

    @Config("metadata.data-dir")
    @ConfigDescription("Directory of the service's own files: the embedded H2 catalog (with metadata.catalog=h2), the audit log, the grant secret; created when absent")
    public MetadataConfig setDataDir(String dataDir)
    {
        this.dataDir = dataDir;
        return this;
    }

    @Min(1)
    public int getDefaultReplication()
    {
        return defaultReplication;
    }

    @Config("metadata.default-replication")
    @ConfigDescription("Replicas per file when a writer does not ask for a number")
    public MetadataConfig setDefaultReplication(int defaultReplication)
    {
        this.defaultReplication = defaultReplication;
        return this;
    }

    @NotNull
    @MinDuration("10ms")
    public Duration getHeartbeatInterval()
    {
        return heartbeatInterval;
    }

    @Config("metadata.heartbeat-interval")
    @ConfigDescription("How often storage nodes are told to heartbeat")
    public MetadataConfig setHeartbeatInterval(Duration heartbeatInterval)
    {
        this.heartbeatInterval = heartbeatInterval;
        return this;
    }

    @NotNull
    @MinDuration("10ms")
    public Duration getNodeTimeout()
    {
        return nodeTimeout;
    }

    @Config("metadata.node-timeout")
    @ConfigDescription("A storage node without a heartbeat for this long is not alive and gets no new files")
    public MetadataConfig setNodeTimeout(Duration nodeTimeout)
    {
        this.nodeTimeout = nodeTimeout;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getAllocationTimeout()
    {
        return allocationTimeout;
    }

    @Config("metadata.allocation-timeout")
    @ConfigDescription("A file id not committed this long after AllocateFiles issued it can no longer be committed; storage nodes may delete its file")
    public MetadataConfig setAllocationTimeout(Duration allocationTimeout)
    {
        this.allocationTimeout = allocationTimeout;
        return this;
    }

    @NotNull
    @MinDuration("0s")
    public Duration getTableVersionRetention()
    {
        return tableVersionRetention;
    }

    @Config("metadata.table-version-retention")
    @ConfigDescription("How long a table version stays readable after a later commit replaced it or the table was dropped: a query running longer fails and must be rerun; a dropped table's files are reclaimed only after it")
    public MetadataConfig setTableVersionRetention(Duration tableVersionRetention)
    {
        this.tableVersionRetention = tableVersionRetention;
        return this;
    }

    @NotNull
    @MinDuration("1ms")
    public Duration getUploadGrantLifetime()
    {
        return uploadGrantLifetime;
    }

    @Config("metadata.upload-grant-lifetime")
    @ConfigDescription("How long a storage node accepts the upload grant AllocateFiles issues for a file (checked when the upload starts)")
    public MetadataConfig setUploadGrantLifetime(Duration uploadGrantLifetime)
    {
        this.uploadGrantLifetime = uploadGrantLifetime;
        return this;
    }

    // A timeout at or below the interval would declare healthy nodes dead between two heartbeats.
    @AssertTrue(message = "metadata.node-timeout must be longer than metadata.heartbeat-interval")
    public boolean isNodeTimeoutLongerThanHeartbeatInterval()
    {
        return heartbeatInterval == null || nodeTimeout == null || nodeTimeout.compareTo(heartbeatInterval) > 0;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getReplicaLossTimeout()
    {
        return replicaLossTimeout;
    }

    @Config("metadata.replica-loss-timeout")
    @ConfigDescription("A replica on a node unseen for this long no longer counts: its files are copied to other nodes (a restart within it copies nothing)")
    public MetadataConfig setReplicaLossTimeout(Duration replicaLossTimeout)
    {
        this.replicaLossTimeout = replicaLossTimeout;
        return this;
    }

    @NotNull
    @MinDuration("100ms")
    public Duration getReplicationCheckInterval()
    {
        return replicationCheckInterval;
    }

    @Config("metadata.replication-check-interval")
    @ConfigDescription("How often every committed file's replicas are checked against its table's replication")
    public MetadataConfig setReplicationCheckInterval(Duration replicationCheckInterval)
    {
        this.replicationCheckInterval = replicationCheckInterval;
        return this;
    }

    @NotNull
    @MinDuration("1s")
    public Duration getCopyTimeout()
    {
        return copyTimeout;
    }

    @Config("metadata.copy-timeout")
    @ConfigDescription("A replica copy handed to a node and not reported within this time is planned again")
    public MetadataConfig setCopyTimeout(Duration copyTimeout)
    {
        this.copyTimeout = copyTimeout;
        return this;
    }

    @Min(1)
    @Max(1000)
    public int getMaxCopiesPerNode()
    {
        return maxCopiesPerNode;
    }

    @Config("metadata.max-copies-per-node")
    @ConfigDescription("Replica copies one storage node makes at a time (repair and drain)")
    public MetadataConfig setMaxCopiesPerNode(int maxCopiesPerNode)
    {
        this.maxCopiesPerNode = maxCopiesPerNode;
        return this;
    }

    @Min(1)
    @Max(100_000)
    public int getTableFilesPageMaxFiles()
    {
        return tableFilesPageMaxFiles;
    }

    @Config("metadata.table-files-page-max-files")
    @ConfigDescription("Most files one GetTableFiles page answers, whatever page size the caller asks for")
    public MetadataConfig setTableFilesPageMaxFiles(int tableFilesPageMaxFiles)
    {
        this.tableFilesPageMaxFiles = tableFilesPageMaxFiles;
        return this;
    }

    @NotNull
    @MinDataSize("64kB")
    // well below the 64MB a gRPC message may carry
    @MaxDataSize("32MB")
    public DataSize getTableFilesPageMaxSize()
    {
        return tableFilesPageMaxSize;
    }

    @Config("metadata.table-files-page-max-size")
    @ConfigDescription("A GetTableFiles page ends before the file whose compact stats and sketches would take it past this size (a page holds at least one file)")
    public MetadataConfig setTableFilesPageMaxSize(DataSize tableFilesPageMaxSize)
    {
        this.tableFilesPageMaxSize = tableFilesPageMaxSize;
        return this;
    }

    @NotNull
    @MinDuration("10ms")
    public Duration getAllocationPurgeInterval()
    {
        return allocationPurgeInterval;
    }

    @Config("metadata.allocation-purge-interval")
    @ConfigDescription("How often allocations abandoned for twice metadata.allocation-timeout (writes that never committed) are deleted from the catalog")
    public MetadataConfig setAllocationPurgeInterval(Duration allocationPurgeInterval)
    {
        this.allocationPurgeInterval = allocationPurgeInterval;
        return this;
    }

    @NotNull
    public CatalogBackend getCatalog()
    {
        return catalog;
    }

    @Config("metadata.catalog")
    @ConfigDescription("Where the catalog lives: h2 (embedded in metadata.data-dir, one service) or postgresql (a server several metadata services share)")
    public MetadataConfig setCatalog(CatalogBackend catalog)
    {
        this.catalog = catalog;
        return this;
    }

    public String getPostgreSqlUrl()
    {
        return postgreSqlUrl;
    }

    @Config("metadata.catalog.postgresql.url")
    @ConfigDescription("JDBC URL of the PostgreSQL catalog database, such as jdbc:postgresql://127.0.0.1:7432/nsc")
    public MetadataConfig setPostgreSqlUrl(String postgreSqlUrl)
    {
        this.postgreSqlUrl = postgreSqlUrl;
        return this;
    }

    public String getPostgreSqlUser()
    {
        return postgreSqlUser;
    }

    @Config("metadata.catalog.postgresql.user")
    @ConfigDescription("User the metadata service logs in to the PostgreSQL catalog as")
    public MetadataConfig setPostgreSqlUser(String postgreSqlUser)
    {
        this.postgreSqlUser = postgreSqlUser;
        return this;
    }

    @NotNull
    public String getPostgreSqlPassword()
    {
        return postgreSqlPassword;
    }

    @Config("metadata.catalog.postgresql.password")
    @ConfigSecuritySensitive
    @ConfigDescription("Password of metadata.catalog.postgresql.user; empty for a server that trusts local connections")
    public MetadataConfig setPostgreSqlPassword(String postgreSqlPassword)
    {
        this.postgreSqlPassword = postgreSqlPassword;
        return this;
    }

    @Min(1)
    @Max(1000)
    public int getPostgreSqlMaxConnections()
    {
        return postgreSqlMaxConnections;
    }

    @Config("metadata.catalog.postgresql.max-connections")
    @ConfigDescription("Connections this service keeps to the PostgreSQL catalog at most: each call holds one for its transaction")
    public MetadataConfig setPostgreSqlMaxConnections(int postgreSqlMaxConnections)
    {
        this.postgreSqlMaxConnections = postgreSqlMaxConnections;
        return this;
    }

    @Min(1)
    @Max(4096)
    public int getGrpcThreads()
    {
        return grpcThreads;
    }

    @Config("metadata.grpc-threads")
    @ConfigDescription("Threads that run the gRPC handlers (every call, each holding a catalog transaction while it runs); calls beyond them wait in turn instead of each starting a thread. Default: four per processor, at least 16")
    public MetadataConfig setGrpcThreads(int grpcThreads)
    {
        this.grpcThreads = grpcThreads;
        return this;
    }

    @Min(1)
    public int getGrpcMaxConcurrentCallsPerConnection()
    {
        return grpcMaxConcurrentCallsPerConnection;
    }

    @Config("metadata.grpc-max-concurrent-calls-per-connection")
    @ConfigDescription("Calls one client connection may have open at once (HTTP/2 streams); further calls wait on the client's side")
    public MetadataConfig setGrpcMaxConcurrentCallsPerConnection(int grpcMaxConcurrentCallsPerConnection)
    {
        this.grpcMaxConcurrentCallsPerConnection = grpcMaxConcurrentCallsPerConnection;
        return this;
    }

    @AssertTrue(message = "metadata.catalog.postgresql.url must be set when metadata.catalog=postgresql, to a JDBC URL such as jdbc:postgresql://127.0.0.1:7432/nsc")
    public boolean isPostgreSqlUrlSetForPostgreSql()
    {
        return catalog != CatalogBackend.POSTGRESQL || (postgreSqlUrl != null && postgreSqlUrl.startsWith("jdbc:postgresql:"));
    }

    @AssertTrue(message = "metadata.catalog.postgresql.user must be set when metadata.catalog=postgresql")
    public boolean isPostgreSqlUserSetForPostgreSql()
    {
        return catalog != CatalogBackend.POSTGRESQL || (postgreSqlUser != null && !postgreSqlUser.isEmpty());
    }

    /** Where the catalog is, for log lines: never the password. */
    public String describeCatalog()
    {
        return switch (catalog) {
            case H2 -> "in H2 under " + dataDir;
            case POSTGRESQL -> "in PostgreSQL at %s as %s".formatted(postgreSqlUrl, postgreSqlUser);
        };
    }
}
