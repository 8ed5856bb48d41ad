package io.nsc.metadata.server;

import com.google.common.base.Ticker;
import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.nsc.metadata.backup.CatalogBackups;
import io.nsc.metadata.catalog.CatalogDatabase;
import io.nsc.metadata.catalog.CatalogStore;
import io.nsc.metadata.catalog.ReplicaCatalog;
import io.nsc.metadata.membership.NodeRegistry;
import io.nsc.metadata.placement.FileAllocator;
import io.nsc.metadata.placement.PlacementPolicy;
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
        binder.bind(MetadataGrpcService.class).in(Scopes.SINGLETON);
        binder.bind(MetadataEndpoints.class).in(Scopes.SINGLETON);

        newExporter(binder).export(MetadataStats.class).withGeneratedName();
    }

    @Provides
    @Singleton
    public static GrantAuthority createGrantAuthority(MetadataConfig config, Clock clock)
    {
        return new GrantAuthority(GrantAuthority.loadOrCreateSecret(Path.of(config.getDataDir())), clock, config.getUploadGrantLifetime().toJavaTime());
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
        return CatalogDatabase.open(Path.of(config.getDataDir()));
    }

    @Provides
    @Singleton
    public static CatalogStore createCatalogStore(CatalogDatabase database, Clock clock, MetadataConfig config)
    {
        return new CatalogStore(database, clock, config.getAllocationTimeout(), config.getTableVersionRetention());
    }

    @Provides
    @Singleton
    public static CatalogBackups createCatalogBackups(CatalogDatabase database, CatalogStore catalog, MetadataConfig config, Clock clock)
    {
        return new CatalogBackups(database, catalog.clusterId(), Path.of(config.getDataDir()), clock);
    }

    @Provides
    @Singleton
    public static NodeRegistry createNodeRegistry(CatalogStore catalog, MetadataConfig config, Clock clock)
    {
        // beats arrive once per heartbeat interval: recording them as often loses nothing
        return new NodeRegistry(catalog, Ticker.systemTicker(), clock, config.getNodeTimeout(), config.getHeartbeatInterval());
    }

    @Provides
    @Singleton
    public static FileAllocator createFileAllocator(CatalogStore catalog, NodeRegistry nodes, PlacementPolicy policy, MetadataConfig config, Clock clock)
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
                ReplicationLeadership.sole(),
                grants,
                // insecure nodes have no key to sign with
                !security.isInsecure(),
                Ticker.systemTicker(),
                config.getReplicaLossTimeout(),
                config.getCopyTimeout(),
                config.getMaxCopiesPerNode(),
                config.getReplicationCheckInterval());
    }
}
