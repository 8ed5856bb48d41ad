package io.nsc.trino.delete;

import com.google.common.collect.Iterables;
import com.google.protobuf.ByteString;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.TableFiles;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.TrinoException;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * The files a DELETE's sink received rows of, as the table version the statement read lists them
 * (with the row groups removed by then): asked of the metadata service by id, a batch at a time.
 */
final class DeletedFileLookup
{
    // what one GetTableFiles request may name
    private static final int MAX_FILE_IDS = 1000;

    private final NscMetadataClient client;

    DeletedFileLookup(NscMetadataClient client)
    {
        this.client = requireNonNull(client, "client is null");
    }

    /**
     * @throws TrinoException when a file is not one of the version: the rows named cannot be the version's
     */
    Map<String, FileEntry> files(long tableId, long version, Collection<String> fileIds)
    {
        Map<String, FileEntry> files = new HashMap<>();
        for (List<String> batch : Iterables.partition(fileIds, MAX_FILE_IDS)) {
            ByteString pageToken = ByteString.EMPTY;
            do {
                GetTableFilesResponse page = client.getTableFilesPage(tableId, version, MAX_FILE_IDS, pageToken, false, batch);
                if (page.getFilesCount() == 0 && !page.getNextPageToken().isEmpty()) {
                    // a service paging without progress would keep the statement here forever
                    throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service answered an empty page of table %s with more to come".formatted(tableId));
                }
                TableFiles.filesOf(page).forEach(file -> files.put(file.fileId(), file));
                pageToken = page.getNextPageToken();
            }
            while (!pageToken.isEmpty());
        }
        for (String fileId : fileIds) {
            if (!files.containsKey(fileId)) {
                throw new TrinoException(NSC_METADATA_ERROR, "DELETE names rows of nsc file %s, which version %s of table with id %s does not have".formatted(fileId, version, tableId));
            }
        }
        return files;
    }
}
