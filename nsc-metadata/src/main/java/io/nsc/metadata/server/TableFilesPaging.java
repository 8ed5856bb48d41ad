package io.nsc.metadata.server;

import com.google.common.collect.ImmutableSet;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.airlift.units.DataSize;
import io.nsc.metadata.catalog.FilePosition;
import io.nsc.metadata.catalog.TableFilesPage;
import io.nsc.metadata.catalog.TableFilesPageRequest;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.TableFilesPageToken;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.resourceExhausted;

/**
 * Turns GetTableFiles requests into catalog page requests within the service's limits, and the
 * position a page ends at into the token its caller continues with. The token names its table
 * and version, so that a listing cannot drift to another version halfway.
 */
final class TableFilesPaging
{
    private final int maxFiles;
    private final long maxBytes;

    TableFilesPaging(int maxFiles, long maxBytes)
    {
        checkArgument(maxFiles > 0, "maxFiles must be positive");
        checkArgument(maxBytes > 0, "maxBytes must be positive");
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
    }

    /** Whether the caller asked for pages; otherwise it gets every file in one answer, if they fit one page. */
    static boolean isPaged(GetTableFilesRequest request)
    {
        return request.getPageSize() != 0 || !request.getPageToken().isEmpty();
    }

    /**
     * The page the request asks for; a request for every file at once asks for one page within
     * the service's limits, which {@link #requireWhole} then checks it did not outgrow.
     *
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a negative page size or version, a token that is not one of this table and version, or too many file ids
     */
    TableFilesPageRequest toPageRequest(GetTableFilesRequest request)
    {
        if (request.getPageSize() < 0) {
            throw invalidArgument("Page size %s is negative", request.getPageSize());
        }
        if (request.getVersion() < 0) {
            throw invalidArgument("Version %s is negative", request.getVersion());
        }
        int pageSize = request.getPageSize() == 0 ? maxFiles : Math.min(request.getPageSize(), maxFiles);
        long version = request.getVersion();
        FilePosition after = FilePosition.START;
        if (!request.getPageToken().isEmpty()) {
            TableFilesPageToken token = parse(request.getPageToken());
            if (token.getTableId() != request.getTableId() || (version != 0 && token.getVersion() != version)) {
                throw invalidArgument("The page token continues the listing of version %s of table %s, not of table %s%s",
                        token.getVersion(), token.getTableId(), request.getTableId(), version == 0 ? "" : " version " + version);
            }
            version = token.getVersion();
            after = new FilePosition(token.getCommittedVersion(), token.getCommitOrdinal());
        }
        if (request.getFileIdsCount() > TableFilesPageRequest.MAX_FILE_IDS) {
            throw invalidArgument("At most %s file ids per listing, got %s", TableFilesPageRequest.MAX_FILE_IDS, request.getFileIdsCount());
        }
        return new TableFilesPageRequest(request.getTableId(), version, after, pageSize, maxBytes, !request.getOmitColumnSketches(), ImmutableSet.copyOf(request.getFileIdsList()));
    }

    /**
     * An unpaged request is answered only when every file fits one page: a whole listing of a
     * large table would hold the catalog's lock for as long as it reads, and build an answer
     * larger than gRPC lets a client take.
     *
     * @throws io.grpc.StatusRuntimeException RESOURCE_EXHAUSTED when files remain after the page
     */
    void requireWhole(TableFilesPage page)
    {
        if (page.next().isPresent()) {
            throw resourceExhausted("Version %s of table with id %s has more files than one answer holds (at most %s files and %s of stats and sketches): " +
                            "list them in pages, with a page_size and the next_page_token of each answer",
                    page.version(), page.tableId(), maxFiles, DataSize.ofBytes(maxBytes).succinct());
        }
    }

    /** The token that continues after the page; empty when the page is the last. */
    static ByteString nextPageToken(TableFilesPage page)
    {
        return page.next()
                .map(position -> TableFilesPageToken.newBuilder()
                        .setTableId(page.tableId())
                        .setVersion(page.version())
                        .setCommittedVersion(position.committedVersion())
                        .setCommitOrdinal(position.commitOrdinal())
                        .build()
                        .toByteString())
                .orElse(ByteString.EMPTY);
    }

    private static TableFilesPageToken parse(ByteString bytes)
    {
        TableFilesPageToken token;
        try {
            token = TableFilesPageToken.parseFrom(bytes);
        }
        catch (InvalidProtocolBufferException e) {
            throw invalidArgument("The page token is not one GetTableFiles issued: %s", e.getMessage());
        }
        if (token.getVersion() <= 0 || token.getCommittedVersion() <= 0 || token.getCommittedVersion() > token.getVersion() || token.getCommitOrdinal() < 0) {
            throw invalidArgument("The page token is not one GetTableFiles issued: it names file %s of version %s in a listing of version %s",
                    token.getCommitOrdinal(), token.getCommittedVersion(), token.getVersion());
        }
        return token;
    }
}
