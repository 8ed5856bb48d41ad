package io.nsc.metadata.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableEntry;
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static com.google.common.base.Preconditions.checkArgument;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static java.util.Objects.requireNonNull;

/**
 * Answers ListTableDefinitions a page at a time within the service's limits: at most so many
 * tables, and no more bytes than a client takes in one message once the page holds a table. The
 * page token is the name of the last table answered.
 */
final class TableDefinitionsPaging
{
    static final int DEFAULT_PAGE_SIZE = 500;
    static final int MAX_PAGE_SIZE = 1000;
    static final int MAX_NAMES = 1000;
    static final long MAX_PAGE_BYTES = 1024 * 1024;

    private final int defaultPageSize;
    private final int maxPageSize;
    private final long maxPageBytes;

    TableDefinitionsPaging()
    {
        this(DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_PAGE_BYTES);
    }

    TableDefinitionsPaging(int defaultPageSize, int maxPageSize, long maxPageBytes)
    {
        checkArgument(defaultPageSize > 0 && defaultPageSize <= maxPageSize, "defaultPageSize must be positive and at most maxPageSize");
        checkArgument(maxPageBytes > 0, "maxPageBytes must be positive");
        this.defaultPageSize = defaultPageSize;
        this.maxPageSize = maxPageSize;
        this.maxPageBytes = maxPageBytes;
    }

    /**
     * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT for a negative page size, too many names or a token that is none of this listing's;
     *         NOT_FOUND for a schema that does not exist
     */
    ListTableDefinitionsResponse answer(TableCatalog tables, ListTableDefinitionsRequest request, Function<TableEntry, TableInfo> toTableInfo)
    {
        requireNonNull(toTableInfo, "toTableInfo is null");
        if (request.getPageSize() < 0) {
            throw invalidArgument("Page size %s is negative", request.getPageSize());
        }
        if (request.getTablesCount() > MAX_NAMES) {
            throw invalidArgument("At most %s table names per listing, got %s", MAX_NAMES, request.getTablesCount());
        }
        int pageSize = request.getPageSize() == 0 ? defaultPageSize : Math.min(request.getPageSize(), maxPageSize);
        Optional<String> schema = Optional.of(request.getSchemaName()).filter(name -> !name.isEmpty());
        List<SchemaTableName> names = request.getTablesList().stream()
                .map(TableDefinitionsPaging::toSchemaTableName)
                .toList();
        Optional<SchemaTableName> after = request.getPageToken().isEmpty() ? Optional.empty() : Optional.of(parse(request.getPageToken()));
        List<TableEntry> entries = tables.listTableDefinitions(schema, names, after, pageSize, !request.getOmitColumns());

        ListTableDefinitionsResponse.Builder response = ListTableDefinitionsResponse.newBuilder();
        long bytes = 0;
        for (TableEntry entry : entries) {
            TableInfo info = toTableInfo.apply(entry);
            if (response.getTablesCount() > 0 && bytes + info.getSerializedSize() > maxPageBytes) {
                // the rest on the next page, after the last table answered
                return response.setNextPageToken(token(response.getTables(response.getTablesCount() - 1))).build();
            }
            bytes += info.getSerializedSize();
            response.addTables(info);
        }
        if (entries.size() == pageSize) {
            // a full page: more may follow
            response.setNextPageToken(token(response.getTables(response.getTablesCount() - 1)));
        }
        return response.build();
    }

    private static ByteString token(TableInfo last)
    {
        return TableName.newBuilder()
                .setSchemaName(last.getSchemaName())
                .setTableName(last.getTableName())
                .build()
                .toByteString();
    }

    private static SchemaTableName parse(ByteString token)
    {
        try {
            return toSchemaTableName(TableName.parseFrom(token));
        }
        catch (InvalidProtocolBufferException e) {
            throw invalidArgument("Not a page token of a table listing");
        }
    }

    private static SchemaTableName toSchemaTableName(TableName name)
    {
        return new SchemaTableName(name.getSchemaName(), name.getTableName());
    }
}
