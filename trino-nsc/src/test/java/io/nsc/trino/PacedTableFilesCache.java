package io.nsc.trino;

import com.google.inject.Inject;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.metadata.TableFileBatches;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.nsc.trino.metadata.TableFilesCache;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** The connector's table-files cache, telling a {@link FileListingHook} before each batch a scan lists. */
final class PacedTableFilesCache
        extends TableFilesCache
{
    private final FileListingHook hook;

    @Inject
    PacedTableFilesCache(NscMetadataClient metadataClient, NscConfig config, FileListingHook hook)
    {
        super(metadataClient, config);
        this.hook = requireNonNull(hook, "hook is null");
    }

    @Override
    public TableFileBatches fileBatches(NscTableHandle table)
    {
        hook.reached(table.schemaTableName(), 0);
        TableFileBatches batches = super.fileBatches(table);
        return new TableFileBatches()
        {
            private int listed;

            @Override
            public boolean hasNext()
            {
                return batches.hasNext();
            }

            @Override
            public List<FileEntry> next()
            {
                hook.reached(table.schemaTableName(), listed);
                List<FileEntry> batch = batches.next();
                listed++;
                return batch;
            }

            @Override
            public long filesKept()
            {
                return batches.filesKept();
            }

            @Override
            public void close()
            {
                batches.close();
            }
        };
    }
}
