package io.nsc.storage.server;

import com.google.inject.Binder;
import com.google.inject.Provides;
import com.google.inject.Scopes;
import com.google.inject.Singleton;
import io.airlift.configuration.AbstractConfigurationAwareModule;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.security.TlsModule;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.storage.membership.ClusterIdentity;
import io.nsc.storage.membership.MembershipClient;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.read.RangeReader;
import io.nsc.storage.reclaim.OrphanReclaimer;
import io.nsc.storage.repair.ReplicaCopier;
import io.nsc.storage.scan.NearStorageScanner;
import io.nsc.storage.scrub.Scrubber;
import io.nsc.storage.security.GrantKeyring;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoreOptions;
import org.weakref.jmx.ObjectNames;
import org.weakref.jmx.guice.ExportBinder;
import org.weakref.jmx.guice.MBeanModule;

import javax.management.MBeanServer;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.util.Optional;

import static java.lang.Math.toIntExact;
import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

public class StorageModule
        extends AbstractConfigurationAwareModule
{
    @Override
    protected void setup(Binder binder)
    {
        StorageConfig config = buildConfigObject(StorageConfig.class);
        install(new TlsModule("storage"));

        binder.bind(NodeStatistics.class).in(Scopes.SINGLETON);
        binder.bind(StorageGrpcService.class).in(Scopes.SINGLETON);

        binder.install(new MBeanModule());
        binder.bind(MBeanServer.class).toInstance(ManagementFactory.getPlatformMBeanServer());
        // the node id in the names keeps several nodes in one JVM (tests) apart; an invalid
        // configuration fails with its own message later, so a missing id must not fail here
        String node = requireNonNullElse(config.getNodeId(), "unset");
        ExportBinder exporter = newExporter(binder);
        exporter.export(ParquetFileStore.class).as(ObjectNames.builder(ParquetFileStore.class).withProperty("node", node).build());
        exporter.export(RangeReader.class).as(ObjectNames.builder(RangeReader.class).withProperty("node", node).build());
        exporter.export(NodeMemoryPool.class).as(ObjectNames.builder(NodeMemoryPool.class).withProperty("node", node).build());
        exporter.export(NearStorageScanner.class).as(ObjectNames.builder(NearStorageScanner.class).withProperty("node", node).build());
        exporter.export(Scrubber.class).as(ObjectNames.builder(Scrubber.class).withProperty("node", node).build());
        exporter.export(ReplicaCopier.class).as(ObjectNames.builder(ReplicaCopier.class).withProperty("node", node).build());
        exporter.export(ClusterIdentity.class).as(ObjectNames.builder(ClusterIdentity.class).withProperty("node", node).build());
    }

    @Provides
    @Singleton
    public static GrantKeyring createGrantKeyring(StorageConfig config, TransportSecurity security)
    {
        return new GrantKeyring(config.getNodeId(), !security.isInsecure(), Clock.systemUTC());
    }

    @Provides
    @Singleton
    public static ParquetFileStore createFileStore(StorageConfig config)
    {
        return ParquetFileStore.open(config.getDataDirPaths(), new StoreOptions(
                StorageLimits.parquet(config),
                toIntExact(config.getChecksumBlockSize().toBytes()),
                config.isVerifyChecksums(),
                config.getReservedSpace().toBytes(),
                config.getFileStatsCacheSize()));
    }

    @Provides
    @Singleton
    public static ClusterIdentity createClusterIdentity(StorageConfig config, ParquetFileStore store)
    {
        // after the store: it has created the data directories' layout the id is written into
        requireNonNull(store, "store is null");
        return ClusterIdentity.load(config.getDataDirPaths());
    }

    @Provides
    @Singleton
    public static RangeReader createRangeReader(StorageConfig config, ParquetFileStore store)
    {
        return new RangeReader(store, config.getReadCoalesceGap(), config.getMaxResponseChunk(), config.getMaxReadRanges());
    }

    @Provides
    @Singleton
    public static NodeMemoryPool createMemoryPool(StorageConfig config)
    {
        return new NodeMemoryPool(config.getMemoryPoolSize(), config.getScanAdmissionMaxQueued(), config.getScanAdmissionMaxWait());
    }

    @Provides
    @Singleton
    public static NearStorageScanner createScanner(StorageConfig config, ParquetFileStore store, NodeMemoryPool pool)
    {
        return new NearStorageScanner(store, config.getMaxScanBatch(), config.getScanFooterCacheSize(), config.getScanPageIndexCacheSize(), StorageLimits.scan(config), pool, config.getScanThreads());
    }

    @Provides
    @Singleton
    public static Optional<MembershipClient> createMembershipClient(StorageConfig config, ParquetFileStore store, ClusterIdentity identity, TransportSecurity security, GrantKeyring keyring, ReplicaCopier copier)
    {
        // without a metadata service the node runs standalone (tests, tools)
        return config.getMetadataAddress()
                .map(addresses -> new MembershipClient(config.getNodeId(), config.getAdvertisedHost(), MetadataAddresses.parse(addresses), security, store, identity, keyring, copier));
    }

    @Provides
    @Singleton
    public static ReplicaCopier createReplicaCopier(StorageConfig config, ParquetFileStore store, GrantKeyring keyring, TransportSecurity security)
    {
        return new ReplicaCopier(store, keyring, security, config.getRepairCopyRate());
    }

    @Provides
    @Singleton
    public static Scrubber createScrubber(StorageConfig config, ParquetFileStore store)
    {
        return new Scrubber(store, config.getScrubRate(), config.getScrubInterval());
    }

    @Provides
    @Singleton
    public static Optional<OrphanReclaimer> createOrphanReclaimer(StorageConfig config, ParquetFileStore store, ClusterIdentity identity, TransportSecurity security)
    {
        // only the metadata service can tell an orphan: a standalone node deletes nothing
        return config.getMetadataAddress()
                .map(addresses -> new OrphanReclaimer(
                        config.getNodeId(),
                        MetadataAddresses.parse(addresses),
                        security,
                        store,
                        identity,
                        config.getOrphanCheckInterval().toJavaTime(),
                        config.getOrphanMinAge().toJavaTime(),
                        Clock.systemUTC()));
    }
}
