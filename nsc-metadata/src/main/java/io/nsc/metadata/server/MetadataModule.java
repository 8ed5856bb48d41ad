package io.nsc.metadata.server;

import com.google.common.base.Ticker;
import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.nsc.metadata.backup.CatalogBackups;
import io.nsc.metadata.catalog.AllocationCatalog;
import io.nsc.metadata.catalog.AllocationPurger;
import io.nsc.metadata.catalog.AllocationTimeout;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.ClusterCatalog;
import io.nsc.metadata.catalog.CommitCatalog;
import io.nsc.metadata.catalog.H2CatalogDatabase;
import io.nsc.metadata.catalog.NodeCatalog;
import io.nsc.metadata.catalog.PostgreSqlCatalogDatabase;
import io.nsc.metadata.catalog.PostgreSqlConnectionSettings;
import io.nsc.metadata.catalog.ReplicaCatalog;
import io.nsc.metadata.catalog.StatisticsCatalog;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableHistory;
import io.nsc.metadata.catalog.TableVersionRetention;
import io.nsc.metadata.catalog.ViewCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.placement.FileAllocator;
import io.nsc.metadata.placement.PlacementPolicy;
import io.nsc.metadata.repair.PostgreSqlReplicationLeadership;
import io.nsc.metadata.repair.ReplicationLeadership;
import io.nsc.metadata.repair.ReplicationMonitor;
import io.nsc.metadata.security.CatalogAuditLog;
import io.nsc.metadata.security.GrantAuthority;
import io.nsc.protocol.security.TlsModule;
import io.nsc.protocol.security.TransportSecurity;

import java.nio.file.Path;
import java.time.Clock;

import static io.airlift.configuration.ConfigBinder.configBinder;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

public class MetadataModule
        implements Module
{
    @Override
    public void configure(Binder binder)
    {
        configBinder(binder).bindConfig(MetadataConfig.class);
        binder.install(new TlsModule("metadata"));

        // the wall clock that times allocations (persisted, so not a monotonic ticker)
        binder.bind(Clock.class).toInstance(Clock.systemUTC());
        binder.bind(PlacementPolicy.class).in(Scopes.SINGLETON);
        binder.bind(MetadataStats.class).in(Scopes.SINGLETON);
        binder.bind(Responder.class).in(Scopes.SINGLETON);
        binder.bind(CatalogCalls.class).in(Scopes.SINGLETON);
        binder.bind(ViewCalls.class).in(Scopes.SINGLETON);
        binder.bind(TableFileCalls.class).in(Scopes.SINGLETON);
        binder.bind(MembershipCalls.class).in(Scopes.SINGLETON);
        binder.bind(OperationsCalls.class).in(Scopes.SINGLETON);
        binder.bind(MetadataGrpcService.class).in(Scopes.SINGLETON);
        binder.bind(MetadataEndpoints.class).in(Scopes.SINGLETON);

        newExporter(binder).export(MetadataStats.class).withGeneratedName();
        newExporter(binder).export(AllocationPurger.class).withGeneratedName();
    }

    @Provides
    @Singleton
    public static GrantAuthority createGrantAuthority(MetadataConfig config, ClusterCatalog cluster, Clock clock)
    {
        byte[] secret = switch (config.getCatalog()) {
            case H2 -> GrantAuthority.loadOrCreateSecret(Path.of(config.getDataDir()));
            // several services sign grants for the same storage nodes: they share the catalog's secret
            case POSTGRESQL -> cluster.grantSecret(GrantAuthority::newSecret);
        };
        return new GrantAuthority(secret, clock, config.getUploadGrantLifetime().toJavaTime());
    }

    @Provides
    @Singleton
    public static CatalogAuditLog createAuditLog(MetadataConfig config, Clock clock)
    {
        return new CatalogAuditLog(Path.of(config.getDataDir()).resolve("audit.log"), clock);
    }

    @Provides
    @Singleton
    public static CatalogDatabase createCatalogDatabase(MetadataConfig config)
    {
        return switch (config.getCatalog()) {
            case H2 -> H2CatalogDatabase.open(Path.of(config.getDataDir()));
            case POSTGRESQL -> PostgreSqlCatalogDatabase.open(postgreSqlSettings(config));
        };
    }

    @Provides
    @Singleton
    public static TableVersionRetention createTableVersionRetention(MetadataConfig config)
    {
        return new TableVersionRetention(config.getTableVersionRetention());
    }

    @Provides
    @Singleton
    public static AllocationTimeout createAllocationTimeout(MetadataConfig config)
    {
        return new AllocationTimeout(config.getAllocationTimeout());
    }

    @Provides
    @Singleton
    public static ClusterCatalog createClusterCatalog(CatalogDatabase database)
    {
        return new ClusterCatalog(database);
    }

    @Provides
    @Singleton
    public static TableCatalog createTableCatalog(CatalogDatabase database, Clock clock, TableVersionRetention retention)
    {
        return new TableCatalog(database, clock, retention);
    }

    @Provides
    @Singleton
    public static TableHistory createTableHistory(CatalogDatabase database, Clock clock, TableVersionRetention retention)
    {
        return new TableHistory(database, clock, retention);
    }

    @Provides
    @Singleton
    public static ViewCatalog createViewCatalog(CatalogDatabase database, Clock clock)
    {
        return new ViewCatalog(database, clock);
    }

    @Provides
    @Singleton
    public static StatisticsCatalog createStatisticsCatalog(CatalogDatabase database, Clock clock)
    {
        return new StatisticsCatalog(database, clock);
    }

    @Provides
    @Singleton
    public static CommitCatalog createCommitCatalog(CatalogDatabase database, Clock clock, AllocationTimeout allocationTimeout, TableVersionRetention retention)
    {
        return new CommitCatalog(database, clock, allocationTimeout, retention);
    }

    @Provides
    @Singleton
    public static AllocationCatalog createAllocationCatalog(CatalogDatabase database, Clock clock, AllocationTimeout allocationTimeout, TableVersionRetention retention)
    {
        return new AllocationCatalog(database, clock, allocationTimeout, retention);
    }

    @Provides
    @Singleton
    public static AllocationPurger createAllocationPurger(AllocationCatalog allocations, MetadataConfig config)
    {
        return new AllocationPurger(allocations, config.getAllocationPurgeInterval());
    }

    @Provides
    @Singleton
    public static NodeCatalog createNodeCatalog(CatalogDatabase database)
    {
        return new NodeCatalog(database);
    }

    @Provides
    @Singleton
    public static CatalogBackups createCatalogBackups(CatalogDatabase database, ClusterCatalog cluster, MetadataConfig config, Clock clock)
    {
        return new CatalogBackups(database, cluster.clusterId(), Path.of(config.getDataDir()), clock);
    }

    @Provides
    @Singleton
    public static NodeRegistry createNodeRegistry(NodeCatalog catalog, MetadataConfig config, Clock clock)
    {
        // beats arrive once per heartbeat interval: recording them as often loses nothing
        return new NodeRegistry(catalog, Ticker.systemTicker(), clock, config.getNodeTimeout(), config.getHeartbeatInterval());
    }

    @Provides
    @Singleton
    public static FileAllocator createFileAllocator(AllocationCatalog catalog, NodeRegistry nodes, PlacementPolicy policy, MetadataConfig config, Clock clock)
    {
        return new FileAllocator(catalog, nodes, policy, config.getDefaultReplication(), clock);
    }

    @Provides
    @Singleton
    public static ReplicationMonitor createReplicationMonitor(CatalogDatabase database, NodeRegistry nodes, GrantAuthority grants, MetadataConfig config, TransportSecurity security)
    {
        return new ReplicationMonitor(
                new ReplicaCatalog(database, config.getDefaultReplication()),
                nodes,
                switch (config.getCatalog()) {
                    case H2 -> ReplicationLeadership.sole();
                    case POSTGRESQL -> new PostgreSqlReplicationLeadership(postgreSqlSettings(config));
                },
                grants,
                // insecure nodes have no key to sign with
                !security.isInsecure(),
                Ticker.systemTicker(),
                config.getReplicaLossTimeout(),
                config.getCopyTimeout(),
                config.getMaxCopiesPerNode(),
                config.getReplicationCheckInterval());
    }

    private static PostgreSqlConnectionSettings postgreSqlSettings(MetadataConfig config)
    {
        return new PostgreSqlConnectionSettings(
                config.getPostgreSqlUrl(),
                config.getPostgreSqlUser(),
                config.getPostgreSqlPassword(),
                config.getPostgreSqlMaxConnections());
    }
}
