package io.nsc.trino.metadata;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;

import java.util.concurrent.ExecutionException;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Table files and compact stats per (table, version) on the coordinator, shared by statistics and
 * split generation so that planning a query asks the metadata service once.
 */
public class TableFilesCache
{
    private final NscMetadataClient metadataClient;
    private final Cache<TableVersion, TableFiles> cache;

    @Inject
    public TableFilesCache(NscMetadataClient metadataClient, NscConfig config)
    {
        this.metadataClient = metadataClient;
        this.cache = CacheBuilder.newBuilder()
                .expireAfterWrite(config.getTableFilesCacheTtl().toMillis(), MILLISECONDS)
                .maximumSize(1000)
                .build();
    }

    public TableFiles get(NscTableHandle table)
    {
        try {
            return cache.get(new TableVersion(table.tableId(), table.version()), () -> load(table.tableId()));
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throwIfUnchecked(e.getCause());
            throw new RuntimeException(e.getCause());
        }
    }

    /**
     * Forgets every cached version of the table: after a write by this coordinator, so that its
     * next query reads the table's files afresh rather than trusting an entry to be replaced.
     */
    public void invalidate(long tableId)
    {
        cache.asMap().keySet().removeIf(key -> key.tableId() == tableId);
    }

    private TableFiles load(long tableId)
    {
        TableFiles files = TableFiles.fromResponse(metadataClient.getTableFiles(tableId));
        // A newer version than planned is cached under its own key too, for the next query.
        cache.put(new TableVersion(tableId, files.version()), files);
        return files;
    }

    private record TableVersion(long tableId, long version) {}
}
