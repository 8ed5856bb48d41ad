package io.nsc.trino;

import com.google.inject.Binder;
import com.google.inject.Module;
import com.google.inject.Scopes;
import io.nsc.protocol.security.TlsModule;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.client.StorageClients;
import io.nsc.trino.client.StorageNodeLoad;
import io.nsc.trino.delete.NscNodePartitioningProvider;
import io.nsc.trino.metadata.NscMetadataFactory;
import io.nsc.trino.metadata.NscNodesTable;
import io.nsc.trino.metadata.TableFilesCache;
import io.nsc.trino.read.AdaptiveScanModes;
import io.nsc.trino.read.BusyStorageNodes;
import io.nsc.trino.read.FooterCache;
import io.nsc.trino.read.NscPageSourceProvider;
import io.nsc.trino.read.ScanFanOut;
import io.nsc.trino.split.NscSplitManager;
import io.nsc.trino.write.NscPageSinkProvider;
import io.nsc.trino.write.ReplicaUploader;
import io.trino.spi.NodeManager;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.type.TypeManager;

import static com.google.inject.multibindings.Multibinder.newSetBinder;
import static io.airlift.configuration.ConfigBinder.configBinder;
import static java.util.Objects.requireNonNull;
import static org.weakref.jmx.guice.ExportBinder.newExporter;

public class NscModule
        implements Module
{
    private final TypeManager typeManager;
    private final NodeManager nodeManager;

    public NscModule(TypeManager typeManager, NodeManager nodeManager)
    {
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.nodeManager = requireNonNull(nodeManager, "nodeManager is null");
    }

    @Override
    public void configure(Binder binder)
    {
        binder.bind(TypeManager.class).toInstance(typeManager);
        binder.bind(NodeManager.class).toInstance(nodeManager);
        configBinder(binder).bindConfig(NscConfig.class);
        binder.install(new TlsModule("nsc"));

        binder.bind(NscConnector.class).in(Scopes.SINGLETON);
        binder.bind(NscSessionProperties.class).in(Scopes.SINGLETON);
        binder.bind(NscMetadataClient.class).in(Scopes.SINGLETON);
        binder.bind(StorageClients.class).in(Scopes.SINGLETON);
        binder.bind(StorageNodeLoad.class).in(Scopes.SINGLETON);
        binder.bind(BusyStorageNodes.class).in(Scopes.SINGLETON);
        binder.bind(AdaptiveScanModes.class).in(Scopes.SINGLETON);
        binder.bind(TableFilesCache.class).in(Scopes.SINGLETON);
        binder.bind(NscMetadataFactory.class).in(Scopes.SINGLETON);
        binder.bind(NscSplitManager.class).in(Scopes.SINGLETON);
        binder.bind(FooterCache.class).in(Scopes.SINGLETON);
        binder.bind(ScanFanOut.class).in(Scopes.SINGLETON);
        binder.bind(NscPageSourceProvider.class).in(Scopes.SINGLETON);
        binder.bind(NscTableProperties.class).in(Scopes.SINGLETON);
        binder.bind(ReplicaUploader.class).in(Scopes.SINGLETON);
        binder.bind(NscPageSinkProvider.class).in(Scopes.SINGLETON);
        binder.bind(NscNodePartitioningProvider.class).in(Scopes.SINGLETON);
        newSetBinder(binder, SystemTable.class).addBinding().to(NscNodesTable.class).in(Scopes.SINGLETON);

        newExporter(binder).export(TableFilesCache.class).withGeneratedName();
        newExporter(binder).export(FooterCache.class).withGeneratedName();
        newExporter(binder).export(StorageNodeLoad.class).withGeneratedName();
        newExporter(binder).export(BusyStorageNodes.class).withGeneratedName();
    }
}
