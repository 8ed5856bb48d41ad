package io.nsc.trino.metadata;

import com.google.protobuf.ByteString;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.trino.client.NscMetadataClient;
import io.nsc.trino.metadata.TableFiles.FileEntry;
import io.trino.spi.TrinoException;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;

/**
 * The files of one table version as the metadata service lists them, a page at a time: each
 * {@link #next()} asks for the next page only then, so a reader holds one page however large the
 * table. The version is fixed, so commits landing meanwhile change nothing listed.
 */
final class TableFilePages
        implements Iterator<List<FileEntry>>
{
    private final NscMetadataClient client;
    private final long tableId;
    private final long version;
    private final int pageSize;
    private final boolean withColumnSketches;
    private ByteString pageToken = ByteString.EMPTY;
    private boolean lastPageRead;

    TableFilePages(NscMetadataClient client, long tableId, long version, int pageSize, boolean withColumnSketches)
    {
        this.client = requireNonNull(client, "client is null");
        checkArgument(version > 0, "version must be positive");
        checkArgument(pageSize > 0, "pageSize must be positive");
        this.tableId = tableId;
        this.version = version;
        this.pageSize = pageSize;
        this.withColumnSketches = withColumnSketches;
    }

    @Override
    public boolean hasNext()
    {
        return !lastPageRead;
    }

    /** The next page's files; the first page of an empty table has none. */
    @Override
    public List<FileEntry> next()
    {
        if (lastPageRead) {
            throw new NoSuchElementException();
        }
        GetTableFilesResponse page = client.getTableFilesPage(tableId, version, pageSize, pageToken, withColumnSketches);
        if (page.getTableId() != tableId || page.getVersion() != version) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service answered files of version %s of table %s when asked for version %s of table %s".formatted(
                    page.getVersion(), page.getTableId(), version, tableId));
        }
        // a service that pages without progress would keep a query planning forever (and, with
        // the same files again, answering them twice)
        if (page.getFilesCount() == 0 && !page.getNextPageToken().isEmpty()) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service answered an empty page of table %s with more to come".formatted(tableId));
        }
        if (!page.getNextPageToken().isEmpty() && page.getNextPageToken().equals(pageToken)) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service answered a page of table %s that continues where it began".formatted(tableId));
        }
        pageToken = page.getNextPageToken();
        lastPageRead = pageToken.isEmpty();
        return TableFiles.filesOf(page);
    }
}
