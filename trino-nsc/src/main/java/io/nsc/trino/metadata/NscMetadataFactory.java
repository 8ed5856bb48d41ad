package io.nsc.trino.metadata;

import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;
import io.trino.spi.catalog.CatalogName;
import io.trino.spi.type.TypeManager;

import static java.util.Objects.requireNonNull;

/** A metadata per transaction: each remembers the table versions its transaction planned. */
public class NscMetadataFactory
{
    private final NscMetadataClient client;
    private final TypeManager typeManager;
    private final TableFilesCache tableFilesCache;
    private final NscConfig config;
    private final CatalogName catalogName;

    @Inject
    public NscMetadataFactory(NscMetadataClient client, TypeManager typeManager, TableFilesCache tableFilesCache, NscConfig config, CatalogName catalogName)
    {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.config = requireNonNull(config, "config is null");
        this.client = requireNonNull(client, "client is null");
        this.typeManager = requireNonNull(typeManager, "typeManager is null");
        this.tableFilesCache = requireNonNull(tableFilesCache, "tableFilesCache is null");
    }

    public NscMetadata create()
    {
        return new NscMetadata(client, typeManager, tableFilesCache, config.getCompressionCodec(), catalogName);
    }
}
