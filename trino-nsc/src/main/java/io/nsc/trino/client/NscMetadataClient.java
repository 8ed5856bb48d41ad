package io.nsc.trino.client;

import com.google.common.collect.AbstractIterator;
import com.google.common.collect.Iterators;
import com.google.inject.Inject;
import com.google.protobuf.ByteString;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AnalyzedColumn;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.CreateViewRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.DropSchemaRequest;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.DropViewRequest;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.GetColumnStatisticsRequest;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.GetViewRequest;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.ListTableVersionsRequest;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.ListViewsRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.RenameSchemaRequest;
import io.nsc.protocol.proto.RenameTableRequest;
import io.nsc.protocol.proto.RenameViewRequest;
import io.nsc.protocol.proto.ReplaceReplicaRequest;
import io.nsc.protocol.proto.SetColumnStatisticsRequest;
import io.nsc.protocol.proto.SetCommentRequest;
import io.nsc.protocol.proto.SetTablePropertiesRequest;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import io.nsc.protocol.proto.TableVersion;
import io.nsc.protocol.proto.TruncateTableRequest;
import io.nsc.protocol.proto.UpdateViewRequest;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.NscConfig;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import jakarta.annotation.PreDestroy;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_COMMIT_OUTCOME_UNKNOWN;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static io.nsc.trino.NscErrorCode.NSC_NOT_ENOUGH_STORAGE_NODES;
import static io.nsc.trino.NscErrorCode.NSC_TABLE_VERSION_EXPIRED;
import static io.trino.spi.StandardErrorCode.COLUMN_ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.COLUMN_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.INVALID_ARGUMENTS;
import static io.trino.spi.StandardErrorCode.INVALID_TABLE_PROPERTY;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.SCHEMA_ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_EMPTY;
import static io.trino.spi.StandardErrorCode.SCHEMA_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TABLE_ALREADY_EXISTS;
import static io.trino.spi.StandardErrorCode.TABLE_NOT_FOUND;
import static io.trino.spi.StandardErrorCode.TRANSACTION_CONFLICT;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.stream.Collectors.toCollection;

/**
 * The connector's only way to the metadata services: it turns gRPC failures into
 * {@link TrinoException}s a user can act on. Calls go to the first configured instance that
 * answers and move to the next when it fails (see {@link GrpcChannels#forMetadataService}).
 */
public class NscMetadataClient
{
    // pages of the table's files read to tell whether a commit interrupted by a failover went through
    private static final int COMMIT_CHECK_PAGE_SIZE = 1000;
    // the most table names one ListTableDefinitions request may carry (nsc.proto)
    private static final int MAX_LISTED_NAMES = 1000;

    private final MetadataAddresses addresses;
    private final ManagedChannel channel;
    private final long timeoutMillis;
    private final Optional<ClientInterceptor> endUser;

    @Inject
    public NscMetadataClient(NscConfig config, TransportSecurity security)
    {
        this.addresses = MetadataAddresses.parse(requireNonNull(config.getMetadataAddress(), "metadataAddress is null"));
        this.channel = GrpcChannels.forMetadataService(addresses, security);
        this.timeoutMillis = config.getMetadataTimeout().toMillis();
        this.endUser = Optional.empty();
    }

    private NscMetadataClient(NscMetadataClient shared, EndUser endUser)
    {
        this.addresses = shared.addresses;
        this.channel = shared.channel;
        this.timeoutMillis = shared.timeoutMillis;
        this.endUser = Optional.of(endUser.headers());
    }

    /**
     * This client with the session's Trino user and query id on every call, for the metadata
     * service's audit log; it shares this client's connections, which only this client closes.
     */
    public NscMetadataClient onBehalfOf(ConnectorSession session)
    {
        return new NscMetadataClient(this, new EndUser(session.getUser(), session.getQueryId()));
    }

    @PreDestroy
    public void close()
    {
        if (endUser.isEmpty()) {
            GrpcChannels.close(channel);
        }
    }

    public List<String> listSchemas()
    {
        return call("list schemas", () -> stub().listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList());
    }

    public List<SchemaTableName> listTables(Optional<String> schema)
    {
        ListTablesRequest request = ListTablesRequest.newBuilder().setSchemaName(schema.orElse("")).build();
        try {
            return stub().listTables(request).getTablesList().stream()
                    .map(NscMetadataClient::toSchemaTableName)
                    .collect(toImmutableList());
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return List.of();
            }
            throw metadataError("list tables", e);
        }
    }

    public Optional<TableInfo> getTable(SchemaTableName name)
    {
        GetTableRequest request = GetTableRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .build();
        try {
            return Optional.of(stub().getTable(request));
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw metadataError("get table " + name, e);
        }
    }

    /**
     * The table at a version it had (time travel), with the columns it had then.
     *
     * @return empty when the table does not exist
     * @throws TrinoException INVALID_ARGUMENTS for a version or time outside the table's history;
     *         NSC_TABLE_VERSION_EXPIRED for a version the table version retention no longer keeps
     */
    public Optional<TableInfo> getTable(SchemaTableName name, TableVersionPointer pointer)
    {
        GetTableRequest.Builder request = GetTableRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName());
        switch (pointer) {
            case TableVersionPointer.Version version -> request.setVersion(version.version());
            case TableVersionPointer.AsOf asOf -> request.setTimestampMillis(asOf.epochMillis());
        }
        try {
            return Optional.of(stub().getTable(request.build()));
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw switch (e.getStatus().getCode()) {
                case INVALID_ARGUMENT, OUT_OF_RANGE -> new TrinoException(INVALID_ARGUMENTS, e.getStatus().getDescription(), e);
                case FAILED_PRECONDITION -> new TrinoException(NSC_TABLE_VERSION_EXPIRED, e.getStatus().getDescription(), e);
                default -> metadataError("get %s of table %s".formatted(pointer, name), e);
            };
        }
    }

    /** The versions of the table the retention keeps, oldest first; empty when the table does not exist. */
    public Optional<List<TableVersion>> listTableVersions(SchemaTableName name)
    {
        ListTableVersionsRequest request = ListTableVersionsRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .build();
        try {
            return Optional.of(stub().listTableVersions(request).getVersionsList());
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw metadataError("list the versions of table " + name, e);
        }
    }

    /**
     * The definitions of the tables of one schema, or of every schema when {@code schema} is
     * empty, as {@link #getTable} answers each, ordered by name: a page of them per call as the
     * iterator advances. A schema that does not exist (any more) lists nothing.
     *
     * @param withColumns false: the tables without their columns
     */
    public Iterator<TableInfo> listTableDefinitions(Optional<String> schema, boolean withColumns)
    {
        return tableDefinitionPages(ListTableDefinitionsRequest.newBuilder()
                .setSchemaName(schema.orElse(""))
                .setOmitColumns(!withColumns)
                .build());
    }

    /**
     * The definitions of these tables, those that exist, as {@link #listTableDefinitions(Optional, boolean)}
     * answers them: a page per call, at most {@value #MAX_LISTED_NAMES} names per call.
     */
    public Iterator<TableInfo> listTableDefinitions(Collection<SchemaTableName> names, boolean withColumns)
    {
        Iterator<Iterator<TableInfo>> chunks = Iterators.transform(Iterators.partition(names.iterator(), MAX_LISTED_NAMES), chunk -> tableDefinitionPages(ListTableDefinitionsRequest.newBuilder()
                .addAllTables(chunk.stream().map(NscMetadataClient::toTableName).toList())
                .setOmitColumns(!withColumns)
                .build()));
        return Iterators.concat(chunks);
    }

    private Iterator<TableInfo> tableDefinitionPages(ListTableDefinitionsRequest first)
    {
        Iterator<List<TableInfo>> pages = new AbstractIterator<>()
        {
            private Optional<ByteString> pageToken = Optional.of(ByteString.EMPTY);

            @Override
            protected List<TableInfo> computeNext()
            {
                if (pageToken.isEmpty()) {
                    return endOfData();
                }
                ListTableDefinitionsResponse page = tableDefinitionPage(first.toBuilder().setPageToken(pageToken.get()).build());
                pageToken = Optional.of(page.getNextPageToken()).filter(token -> !token.isEmpty());
                return page.getTablesList();
            }
        };
        return Iterators.concat(Iterators.transform(pages, List::iterator));
    }

    private ListTableDefinitionsResponse tableDefinitionPage(ListTableDefinitionsRequest request)
    {
        try {
            return stub().listTableDefinitions(request);
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                // the schema was dropped since the caller listed it
                return ListTableDefinitionsResponse.getDefaultInstance();
            }
            throw metadataError("list table definitions", e);
        }
    }

    /**
     * One page of the files of a table version, in commit order: at most {@code pageSize} files
     * (fewer when the service's limits say so), continuing after the page whose
     * {@code next_page_token} is {@code pageToken} (empty for the first page).
     *
     * @param version the version to list; every page of a listing answers the first page's
     * @throws TrinoException TABLE_NOT_FOUND when the table was dropped longer than the metadata
     *         service's table version retention ago; NSC_TABLE_VERSION_EXPIRED when a later version
     *         replaced {@code version} that long ago
     */
    public GetTableFilesResponse getTableFilesPage(long tableId, long version, int pageSize, ByteString pageToken, boolean withColumnSketches)
    {
        return getTableFilesPage(tableId, version, pageSize, pageToken, withColumnSketches, List.of());
    }

    /**
     * A page of the files of a table version, as {@link #getTableFilesPage(long, long, int, ByteString, boolean)}
     * lists them, of only the files with these ids (at most 1000; none: every file).
     */
    public GetTableFilesResponse getTableFilesPage(long tableId, long version, int pageSize, ByteString pageToken, boolean withColumnSketches, Collection<String> fileIds)
    {
        GetTableFilesRequest request = GetTableFilesRequest.newBuilder()
                .setTableId(tableId)
                .setVersion(version)
                .setPageSize(pageSize)
                .setPageToken(pageToken)
                .setOmitColumnSketches(!withColumnSketches)
                .addAllFileIds(fileIds)
                .build();
        try {
            return stub().getTableFiles(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> new TrinoException(TABLE_NOT_FOUND, "nsc table with id %s was dropped while the query read its files: %s".formatted(tableId, e.getStatus().getDescription()), e);
                // the version the query planned is gone: only a new plan, at the current version, can read the table
                case FAILED_PRECONDITION -> new TrinoException(NSC_TABLE_VERSION_EXPIRED, "nsc table with id %s: %s".formatted(tableId, e.getStatus().getDescription()), e);
                default -> metadataError("list files of version %s of table %s".formatted(version, tableId), e);
            };
        }
    }

    /**
     * @throws TrinoException SCHEMA_ALREADY_EXISTS when the schema exists (Trino checks before it asks, so only a concurrent create gets here)
     */
    public void createSchema(String schema)
    {
        CreateSchemaRequest request = CreateSchemaRequest.newBuilder().setSchemaName(schema).build();
        try {
            stub().createSchema(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case ALREADY_EXISTS -> new TrinoException(SCHEMA_ALREADY_EXISTS, "Schema '%s' already exists".formatted(schema), e);
                case INVALID_ARGUMENT -> new TrinoException(NOT_SUPPORTED, e.getStatus().getDescription(), e);
                default -> metadataError("create schema " + schema, e);
            };
        }
    }

    /**
     * Drops the schema; with {@code cascade} its tables with it, in one metadata transaction.
     *
     * @throws TrinoException SCHEMA_NOT_EMPTY while the schema holds tables (without cascade), SCHEMA_NOT_FOUND when it does not exist
     */
    public void dropSchema(String schema, boolean cascade)
    {
        DropSchemaRequest request = DropSchemaRequest.newBuilder().setSchemaName(schema).setCascade(cascade).build();
        try {
            stub().dropSchema(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case FAILED_PRECONDITION -> new TrinoException(SCHEMA_NOT_EMPTY, "Cannot drop non-empty schema '%s'".formatted(schema), e);
                case NOT_FOUND -> schemaNotFound(schema, e);
                default -> metadataError("drop schema " + schema, e);
            };
        }
    }

    /**
     * Creates an empty table; with {@code saveMode} REPLACE, a table of that name is dropped in
     * the same metadata transaction.
     *
     * @return the table, or empty when {@code saveMode} is IGNORE and it existed already
     * @throws TrinoException TABLE_ALREADY_EXISTS, SCHEMA_NOT_FOUND
     */
    public Optional<TableInfo> createTable(SchemaTableName name, List<Column> columns, Map<String, String> properties, Optional<String> comment, SaveMode saveMode)
    {
        CreateTableRequest.Builder request = CreateTableRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .addAllColumns(columns)
                .putAllProperties(properties)
                .setIfNotExists(saveMode == SaveMode.IGNORE)
                .setReplace(saveMode == SaveMode.REPLACE);
        comment.ifPresent(request::setComment);
        try {
            CreateTableResponse response = stub().createTable(request.build());
            return response.getCreated() ? Optional.of(response.getTable()) : Optional.empty();
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case ALREADY_EXISTS -> tableAlreadyExists(name, e);
                case NOT_FOUND -> schemaNotFound(name.getSchemaName(), e);
                case INVALID_ARGUMENT -> new TrinoException(NOT_SUPPORTED, e.getStatus().getDescription(), e);
                default -> metadataError("create table " + name, e);
            };
        }
    }

    /**
     * Empties the table with id {@code tableId} under {@code name}: an empty table of the same
     * definition takes its place (under a new id) in one metadata transaction.
     *
     * @throws TrinoException TABLE_NOT_FOUND when no table of that name and id exists any more
     */
    public void truncateTable(SchemaTableName name, long tableId)
    {
        TruncateTableRequest request = TruncateTableRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .setExpectedTableId(tableId)
                .build();
        try {
            stub().truncateTable(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND, ABORTED -> new TrinoException(TABLE_NOT_FOUND, e.getStatus().getDescription(), e);
                default -> metadataError("truncate table " + name, e);
            };
        }
    }

    /**
     * Renames a schema with every table in it.
     *
     * @throws TrinoException SCHEMA_NOT_FOUND, SCHEMA_ALREADY_EXISTS (both only when another
     *         statement got in first: Trino checks before it asks)
     */
    public void renameSchema(String schema, String newSchema)
    {
        RenameSchemaRequest request = RenameSchemaRequest.newBuilder().setSchemaName(schema).setNewSchemaName(newSchema).build();
        try {
            stub().renameSchema(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> schemaNotFound(schema, e);
                case ALREADY_EXISTS -> new TrinoException(SCHEMA_ALREADY_EXISTS, "Schema '%s' already exists".formatted(newSchema), e);
                case INVALID_ARGUMENT -> new TrinoException(NOT_SUPPORTED, e.getStatus().getDescription(), e);
                default -> metadataError("rename schema %s to %s".formatted(schema, newSchema), e);
            };
        }
    }

    /**
     * Renames a table, within its schema or into another; it keeps its id, versions and files.
     *
     * @throws TrinoException TABLE_NOT_FOUND, TABLE_ALREADY_EXISTS (both only when another statement
     *         got in first: Trino checks before it asks)
     */
    public void renameTable(SchemaTableName from, SchemaTableName to)
    {
        RenameTableRequest request = RenameTableRequest.newBuilder()
                .setSchemaName(from.getSchemaName())
                .setTableName(from.getTableName())
                .setNewSchemaName(to.getSchemaName())
                .setNewTableName(to.getTableName())
                .build();
        try {
            stub().renameTable(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> new TrinoException(TABLE_NOT_FOUND, e.getStatus().getDescription(), e);
                case ALREADY_EXISTS -> tableAlreadyExists(to, e);
                case INVALID_ARGUMENT -> new TrinoException(NOT_SUPPORTED, e.getStatus().getDescription(), e);
                default -> metadataError("rename table %s to %s".formatted(from, to), e);
            };
        }
    }

    /**
     * Sets the comment of a table, or of its column {@code column}; an empty {@code comment} removes it.
     *
     * @throws TrinoException TABLE_NOT_FOUND, COLUMN_NOT_FOUND, INVALID_ARGUMENTS for an over-long comment
     */
    public void setComment(SchemaTableName name, Optional<String> column, Optional<String> comment)
    {
        SetCommentRequest.Builder request = SetCommentRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName());
        column.ifPresent(request::setColumnName);
        comment.ifPresent(request::setComment);
        try {
            stub().setComment(request.build());
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> column.isPresent()
                        ? new TrinoException(COLUMN_NOT_FOUND, "Column '%s' does not exist in table '%s'".formatted(column.get(), name), e)
                        : tableNotFound(name, e);
                case INVALID_ARGUMENT -> new TrinoException(INVALID_ARGUMENTS, e.getStatus().getDescription(), e);
                default -> metadataError("set a comment on " + name, e);
            };
        }
    }

    /**
     * Replaces every property of the table with this id (ALTER TABLE ... SET PROPERTIES).
     *
     * @throws TrinoException TABLE_NOT_FOUND, INVALID_TABLE_PROPERTY
     */
    public void setTableProperties(SchemaTableName name, long tableId, Map<String, String> properties)
    {
        SetTablePropertiesRequest request = SetTablePropertiesRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .setExpectedTableId(tableId)
                .putAllProperties(properties)
                .build();
        try {
            stub().setTableProperties(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> tableNotFound(name, e);
                case ABORTED -> new TrinoException(TABLE_NOT_FOUND, e.getStatus().getDescription(), e);
                case INVALID_ARGUMENT -> new TrinoException(INVALID_TABLE_PROPERTY, e.getStatus().getDescription(), e);
                default -> metadataError("set the properties of " + name, e);
            };
        }
    }

    /**
     * Adds, renames or drops a column of the table with this id (see {@code AlterColumn} in
     * nsc.proto).
     *
     * @param properties when present, the table's properties after the change
     * @throws TrinoException TABLE_NOT_FOUND, COLUMN_NOT_FOUND, COLUMN_ALREADY_EXISTS, INVALID_ARGUMENTS
     */
    public void alterColumn(SchemaTableName name, long tableId, AlterColumnRequest.Builder change, Optional<Map<String, String>> properties)
    {
        change.setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .setExpectedTableId(tableId);
        properties.ifPresent(replacement -> change.setReplaceProperties(true).putAllProperties(replacement));
        try {
            stub().alterColumn(change.build());
        }
        catch (StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> description != null && description.startsWith("Column ")
                        ? new TrinoException(COLUMN_NOT_FOUND, description, e)
                        : tableNotFound(name, e);
                case ABORTED -> new TrinoException(TABLE_NOT_FOUND, description, e);
                case ALREADY_EXISTS -> new TrinoException(COLUMN_ALREADY_EXISTS, description, e);
                case INVALID_ARGUMENT -> new TrinoException(INVALID_ARGUMENTS, description, e);
                default -> metadataError("alter a column of " + name, e);
            };
        }
    }

    /**
     * Stores what ANALYZE computed over {@code version} of the table with this id (see
     * {@code SetColumnStatistics} in nsc.proto).
     *
     * @return the number of columns stored (a column analyzed at a later version meanwhile keeps that)
     * @throws TrinoException TABLE_NOT_FOUND when the table (with this id) or a column is gone
     */
    public int setColumnStatistics(SchemaTableName name, long tableId, long version, long rowCount, List<AnalyzedColumn> columns)
    {
        SetColumnStatisticsRequest request = SetColumnStatisticsRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .setExpectedTableId(tableId)
                .setVersion(version)
                .setRowCount(rowCount)
                .addAllColumns(columns)
                .build();
        try {
            return stub().setColumnStatistics(request).getColumnsStored();
        }
        catch (StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> description != null && description.contains(" column ")
                        ? new TrinoException(COLUMN_NOT_FOUND, description, e)
                        : tableNotFound(name, e);
                case ABORTED -> new TrinoException(TABLE_NOT_FOUND, description, e);
                default -> metadataError("store the statistics of " + name, e);
            };
        }
    }

    /** The statistics ANALYZE stored for the live columns of the table with this id, by slot; empty when the table is gone. */
    public List<AnalyzedColumn> getColumnStatistics(long tableId)
    {
        try {
            return stub().getColumnStatistics(GetColumnStatisticsRequest.newBuilder().setTableId(tableId).build()).getColumnsList();
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return List.of();
            }
            throw metadataError("get the column statistics of table " + tableId, e);
        }
    }

    /**
     * Removes the table from the catalog; the storage nodes reclaim its files.
     *
     * @throws TrinoException TABLE_NOT_FOUND when the table does not exist (any more)
     */
    public void dropTable(SchemaTableName name)
    {
        DropTableRequest request = DropTableRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .build();
        try {
            stub().dropTable(request);
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                throw tableNotFound(name, e);
            }
            throw metadataError("drop table " + name, e);
        }
    }

    public List<StorageNode> listNodes()
    {
        return call("list storage nodes", () -> stub().listNodes(ListNodesRequest.getDefaultInstance()).getNodesList());
    }

    /**
     * A new file id and the distinct live storage nodes its replicas go to.
     *
     * @throws TrinoException NSC_NOT_ENOUGH_STORAGE_NODES when fewer nodes are live than replicas asked for
     */
    public FileAllocation allocateFile(int replication)
    {
        AllocateFilesRequest request = AllocateFilesRequest.newBuilder()
                .setFileCount(1)
                .setReplication(replication)
                .build();
        AllocateFilesResponse response;
        try {
            response = stub().allocateFiles(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case FAILED_PRECONDITION, UNAVAILABLE -> new TrinoException(NSC_NOT_ENOUGH_STORAGE_NODES, "Cannot place a file with %s replicas: %s".formatted(replication, e.getStatus().getDescription()), e);
                default -> metadataError("allocate a file with %s replicas".formatted(replication), e);
            };
        }
        if (response.getFilesCount() != 1) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service at %s allocated %s files, 1 was asked for".formatted(addresses, response.getFilesCount()));
        }
        FileAllocation allocation = response.getFiles(0);
        List<String> nodeIds = allocation.getReplicasList().stream().map(StorageNode::getNodeId).collect(toImmutableList());
        if (nodeIds.size() != replication || new HashSet<>(nodeIds).size() != nodeIds.size()) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service at %s placed file %s on %s: %s distinct nodes were asked for".formatted(addresses, allocation.getFileId(), nodeIds, replication));
        }
        return allocation;
    }

    /**
     * Another live storage node for a replica of an allocated file whose upload to
     * {@code failedNodeId} failed, with its upload grant. The metadata service adds the node to
     * the allocation, so that the commit may name it.
     *
     * @param sizeBytes the file's size: only nodes with that much free space are chosen
     * @throws TrinoException NSC_NOT_ENOUGH_STORAGE_NODES when no live node is left for the file
     */
    public FileAllocation replaceReplica(String fileId, String failedNodeId, long sizeBytes)
    {
        ReplaceReplicaRequest request = ReplaceReplicaRequest.newBuilder()
                .setFileId(fileId)
                .addFailedNodeIds(failedNodeId)
                .setSizeBytes(sizeBytes)
                .build();
        FileAllocation replacement;
        try {
            replacement = stub().replaceReplica(request);
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case FAILED_PRECONDITION, UNAVAILABLE -> new TrinoException(NSC_NOT_ENOUGH_STORAGE_NODES, e.getStatus().getDescription(), e);
                default -> metadataError("replace the replica of file %s on storage node %s".formatted(fileId, failedNodeId), e);
            };
        }
        if (!replacement.getFileId().equals(fileId) || replacement.getReplicasCount() != 1 || replacement.getReplicas(0).getNodeId().equals(failedNodeId)) {
            throw new TrinoException(NSC_METADATA_ERROR, "nsc metadata service at %s answered a replacement for the replica of file %s on %s with file %s on %s".formatted(
                    addresses, fileId, failedNodeId, replacement.getFileId(), replacement.getReplicasList().stream().map(StorageNode::getNodeId).toList()));
        }
        return replacement;
    }

    /**
     * Registers files with a table in one metadata transaction, creating the table if asked.
     * <p>
     * When the instance that took the commit becomes unreachable (UNAVAILABLE, or UNKNOWN
     * "channel closed" when grpc-java writes to a connection the dying instance reset), it may or
     * may not have applied the commit before it died. The commit is then sent once more, and the channel
     * takes it to the next instance. A second attempt cannot apply it twice: the catalog refuses a
     * file that is already committed, and a CREATE TABLE AS whose table exists. When the second
     * attempt is refused that way, the table itself tells whether it holds this commit's files.
     *
     * @return the service's answer; for a commit found applied after a failover, the table's id
     *         and the version at which its files were found (the commit's, or a later one)
     * @throws TrinoException TABLE_ALREADY_EXISTS (a CREATE TABLE AS whose table appeared meanwhile),
     *         SCHEMA_NOT_FOUND, TABLE_NOT_FOUND (the table, or the materialized view a refresh
     *         records, was dropped meanwhile), TRANSACTION_CONFLICT (a refresh's storage table or
     *         view changed meanwhile), or NSC_COMMIT_OUTCOME_UNKNOWN when the call failed in a way
     *         that leaves open whether it was applied
     */
    public CommitFilesResponse commitFiles(CommitFilesRequest request)
    {
        try {
            return stub().commitFiles(request);
        }
        catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code != Status.Code.UNAVAILABLE && code != Status.Code.UNKNOWN) {
                throw commitFailed(request, e);
            }
            if (request.getReplace() && request.getFilesCount() == 0) {
                // sent again, an applied CREATE OR REPLACE of no rows would replace its own table (and
                // whatever was committed to it meanwhile): nothing would refuse it as a repeat
                throw outcomeUnknown(request, e);
            }
            if (request.hasRemovals() && request.getFilesCount() == 0) {
                // sent again, an applied DELETE that only removes is refused as a conflict, like one
                // another DELETE beat to the same files: no file of its own tells them apart
                throw outcomeUnknown(request, e);
            }
            return commitAgain(request, e);
        }
    }

    private CommitFilesResponse commitAgain(CommitFilesRequest request, StatusRuntimeException firstFailure)
    {
        try {
            // the first attempt was not applied: had it been, this one would be refused
            return stub().commitFiles(request);
        }
        catch (StatusRuntimeException e) {
            e.addSuppressed(firstFailure);
            Status.Code code = e.getStatus().getCode();
            // a DELETE's rewrite applied the first time finds its removed files gone the second (ABORTED)
            if (code == Status.Code.FAILED_PRECONDITION || code == Status.Code.ALREADY_EXISTS || (code == Status.Code.ABORTED && request.hasRemovals())) {
                if (request.getFilesCount() == 0) {
                    // an empty CREATE TABLE AS leaves no file to recognise it by: the table may be ours or another's
                    throw outcomeUnknown(request, e);
                }
                Optional<CommitFilesResponse> applied;
                try {
                    applied = findApplied(request);
                }
                catch (TrinoException checkFailure) {
                    e.addSuppressed(checkFailure);
                    throw outcomeUnknown(request, e);
                }
                if (applied.isPresent()) {
                    return applied.get();
                }
            }
            throw commitFailed(request, e);
        }
    }

    /** The table and version holding every file of {@code request}, if the table has them. */
    private Optional<CommitFilesResponse> findApplied(CommitFilesRequest request)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
        Optional<TableInfo> table = getTable(name);
        if (table.isEmpty() || (request.getExpectedTableId() != 0 && table.get().getTableId() != request.getExpectedTableId())) {
            return Optional.empty();
        }
        Set<String> missing = request.getFilesList().stream().map(DataFile::getFileId).collect(toCollection(HashSet::new));
        long tableId = table.get().getTableId();
        long version = table.get().getVersion();
        ByteString pageToken = ByteString.EMPTY;
        do {
            GetTableFilesResponse page = getTableFilesPage(tableId, version, COMMIT_CHECK_PAGE_SIZE, pageToken, false);
            page.getFilesList().forEach(file -> missing.remove(file.getFileId()));
            pageToken = page.getNextPageToken();
        }
        while (!missing.isEmpty() && !pageToken.isEmpty());
        if (!missing.isEmpty()) {
            return Optional.empty();
        }
        CommitFilesResponse.Builder applied = CommitFilesResponse.newBuilder()
                .setTableId(tableId)
                .setVersion(version)
                .setTableCreated(request.getMustCreate());
        if (request.hasMaterializedView()) {
            // the files and the view's record are one transaction: with the files, the view took the version after the one expected
            applied.setViewVersion(request.getMaterializedView().getExpectedVersion() + 1);
        }
        return Optional.of(applied.build());
    }

    private TrinoException commitFailed(CommitFilesRequest request, StatusRuntimeException e)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
        if (request.hasMaterializedView()) {
            Optional<TrinoException> refreshFailure = refreshFailed(request, e);
            if (refreshFailure.isPresent()) {
                return refreshFailure.get();
            }
        }
        if (request.hasRemovals() && e.getStatus().getCode() == Status.Code.ABORTED) {
            // another commit changed the files the statement read (or replaced the table): nothing was committed
            String statement = request.getRemovals().getOptimize() ? "OPTIMIZE of" : request.getRemovals().getInsertedFileIdsCount() == 0 ? "DELETE from" : "UPDATE or MERGE into";
            return new TrinoException(TRANSACTION_CONFLICT, "%s %s conflicts with a commit made since it began: %s".formatted(statement, name, e.getStatus().getDescription()), e);
        }
        return switch (e.getStatus().getCode()) {
            case ALREADY_EXISTS -> tableAlreadyExists(name, e);
            case NOT_FOUND -> request.getCreateTable() ? schemaNotFound(name.getSchemaName(), e) : tableNotFound(name, e);
            case INVALID_ARGUMENT, FAILED_PRECONDITION, ABORTED, PERMISSION_DENIED, UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNIMPLEMENTED -> metadataError("commit %s files to %s".formatted(request.getFilesCount(), name), e);
            // the service may have applied the commit before the failure reached us
            default -> outcomeUnknown(request, e);
        };
    }

    /**
     * A refresh's commit the service refused, for the storage table or for the view: the one
     * transaction changed neither. Empty for a failure a commit of any kind may meet.
     */
    private static Optional<TrinoException> refreshFailed(CommitFilesRequest request, StatusRuntimeException e)
    {
        SchemaTableName view = new SchemaTableName(request.getSchemaName(), request.getMaterializedView().getViewName());
        String description = e.getStatus().getDescription();
        return switch (e.getStatus().getCode()) {
            // another refresh, a DELETE on the storage table or its drop (OR REPLACE), or a change of the view (a comment)
            case ABORTED -> Optional.of(new TrinoException(TRANSACTION_CONFLICT, "REFRESH MATERIALIZED VIEW %s conflicts with a change made since it began: %s".formatted(view, description), e));
            case NOT_FOUND -> description != null && description.startsWith("Materialized view ")
                    ? Optional.of(viewNotFound(view, true, e))
                    : Optional.empty();
            default -> Optional.empty();
        };
    }

    private static TrinoException outcomeUnknown(CommitFilesRequest request, StatusRuntimeException e)
    {
        return new TrinoException(NSC_COMMIT_OUTCOME_UNKNOWN, "Committing %s files to %s.%s failed with %s: whether they were committed is unknown; check the table before writing again".formatted(
                request.getFilesCount(), request.getSchemaName(), request.getTableName(), describe(e)), e);
    }

    /**
     * Creates a view; with {@code replace}, a view of that name is replaced in the same metadata
     * transaction.
     *
     * @param definition the connector's serialized definition, stored as it is
     * @throws TrinoException TABLE_ALREADY_EXISTS for a name a table or (without replace) a view has,
     *         SCHEMA_NOT_FOUND, INVALID_ARGUMENTS for a definition or comment over the service's limits
     */
    public ViewInfo createView(SchemaTableName name, String definition, Optional<String> comment, boolean replace)
    {
        return createView(name, definition, comment, replace, false);
    }

    /** {@link #createView(SchemaTableName, String, Optional, boolean)} of a materialized view when {@code materialized}. */
    public ViewInfo createView(SchemaTableName name, String definition, Optional<String> comment, boolean replace, boolean materialized)
    {
        CreateViewRequest.Builder request = CreateViewRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setViewName(name.getTableName())
                .setDefinition(definition)
                .setReplace(replace)
                .setMaterialized(materialized);
        comment.ifPresent(request::setComment);
        try {
            return stub().createView(request.build());
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case ALREADY_EXISTS -> new TrinoException(TABLE_ALREADY_EXISTS, e.getStatus().getDescription(), e);
                case NOT_FOUND -> schemaNotFound(name.getSchemaName(), e);
                case INVALID_ARGUMENT -> new TrinoException(INVALID_ARGUMENTS, e.getStatus().getDescription(), e);
                default -> metadataError("create view " + name, e);
            };
        }
    }

    /**
     * Replaces the definition and comment of a view that is still at {@code expectedVersion}.
     *
     * @throws TrinoException TABLE_NOT_FOUND for a missing view, TRANSACTION_CONFLICT when the view
     *         changed since that version (nothing is changed), INVALID_ARGUMENTS
     */
    public ViewInfo updateView(SchemaTableName name, String definition, Optional<String> comment, long expectedVersion)
    {
        return updateView(name, definition, comment, expectedVersion, false);
    }

    public ViewInfo updateView(SchemaTableName name, String definition, Optional<String> comment, long expectedVersion, boolean materialized)
    {
        UpdateViewRequest.Builder request = UpdateViewRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setViewName(name.getTableName())
                .setDefinition(definition)
                .setExpectedVersion(expectedVersion)
                .setMaterialized(materialized);
        comment.ifPresent(request::setComment);
        try {
            return stub().updateView(request.build());
        }
        catch (StatusRuntimeException e) {
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> viewNotFound(name, materialized, e);
                case ABORTED -> new TrinoException(TRANSACTION_CONFLICT, kind(materialized) + " '%s' was changed by another statement meanwhile; nothing was changed".formatted(name), e);
                case INVALID_ARGUMENT -> new TrinoException(INVALID_ARGUMENTS, e.getStatus().getDescription(), e);
                default -> metadataError("change view " + name, e);
            };
        }
    }

    public Optional<ViewInfo> getView(SchemaTableName name)
    {
        return getView(name, false);
    }

    /** The view of that name if it is of the kind {@code materialized}. */
    public Optional<ViewInfo> getView(SchemaTableName name, boolean materialized)
    {
        GetViewRequest request = GetViewRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setViewName(name.getTableName())
                .setMaterialized(materialized)
                .build();
        try {
            return Optional.of(stub().getView(request));
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw metadataError("get view " + name, e);
        }
    }

    /** Names of the views of one schema, or of all; none for a missing schema. */
    public List<SchemaTableName> listViews(Optional<String> schema)
    {
        return listViews(schema, false);
    }

    /** Names of the views of the kind {@code materialized} of one schema, or of all; none for a missing schema. */
    public List<SchemaTableName> listViews(Optional<String> schema, boolean materialized)
    {
        ListViewsRequest request = ListViewsRequest.newBuilder().setSchemaName(schema.orElse("")).setMaterialized(materialized).build();
        try {
            return stub().listViews(request).getViewsList().stream()
                    .map(NscMetadataClient::toSchemaTableName)
                    .collect(toImmutableList());
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return List.of();
            }
            throw metadataError("list views", e);
        }
    }

    /**
     * @throws TrinoException TABLE_NOT_FOUND when the view does not exist (any more)
     */
    public void dropView(SchemaTableName name)
    {
        dropView(name, false);
    }

    public void dropView(SchemaTableName name, boolean materialized)
    {
        DropViewRequest request = DropViewRequest.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setViewName(name.getTableName())
                .setMaterialized(materialized)
                .build();
        try {
            stub().dropView(request);
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                throw viewNotFound(name, materialized, e);
            }
            throw metadataError("drop view " + name, e);
        }
    }

    /**
     * Renames a view, within its schema or into another.
     *
     * @throws TrinoException TABLE_NOT_FOUND, SCHEMA_NOT_FOUND, TABLE_ALREADY_EXISTS for a name a
     *         table or view has (Trino checks before it asks, so only a concurrent statement gets here)
     */
    public void renameView(SchemaTableName from, SchemaTableName to)
    {
        renameView(from, to, false);
    }

    public void renameView(SchemaTableName from, SchemaTableName to, boolean materialized)
    {
        RenameViewRequest request = RenameViewRequest.newBuilder()
                .setSchemaName(from.getSchemaName())
                .setViewName(from.getTableName())
                .setNewSchemaName(to.getSchemaName())
                .setNewViewName(to.getTableName())
                .setMaterialized(materialized)
                .build();
        try {
            stub().renameView(request);
        }
        catch (StatusRuntimeException e) {
            String description = e.getStatus().getDescription();
            throw switch (e.getStatus().getCode()) {
                case NOT_FOUND -> description != null && description.startsWith("Schema ")
                        ? schemaNotFound(to.getSchemaName(), e)
                        : viewNotFound(from, materialized, e);
                case ALREADY_EXISTS -> new TrinoException(TABLE_ALREADY_EXISTS, description, e);
                case INVALID_ARGUMENT -> new TrinoException(NOT_SUPPORTED, description, e);
                default -> metadataError("rename view %s to %s".formatted(from, to), e);
            };
        }
    }

    private static TrinoException viewNotFound(SchemaTableName name, boolean materialized, Throwable cause)
    {
        return new TrinoException(TABLE_NOT_FOUND, "%s '%s' does not exist".formatted(kind(materialized), name), cause);
    }

    private static String kind(boolean materialized)
    {
        return materialized ? "Materialized view" : "View";
    }

    private MetadataServiceBlockingStub stub()
    {
        MetadataServiceBlockingStub stub = MetadataServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeoutMillis, MILLISECONDS);
        return endUser.map(stub::withInterceptors).orElse(stub);
    }

    private <T> T call(String action, Supplier<T> call)
    {
        try {
            return call.get();
        }
        catch (StatusRuntimeException e) {
            throw metadataError(action, e);
        }
    }

    private TrinoException metadataError(String action, StatusRuntimeException e)
    {
        return new TrinoException(NSC_METADATA_ERROR, "nsc metadata service at %s failed to %s: %s".formatted(addresses, action, describe(e)), e);
    }

    // Not SchemaNotFoundException/TableNotFoundException: in Trino 476 they carry the generic NOT_FOUND code
    public static TrinoException schemaNotFound(String schema, Throwable cause)
    {
        // the message of the SPI's SchemaNotFoundException
        return new TrinoException(SCHEMA_NOT_FOUND, "Schema %s not found".formatted(schema), cause);
    }

    private static TrinoException tableNotFound(SchemaTableName name, Throwable cause)
    {
        return new TrinoException(TABLE_NOT_FOUND, "Table '%s' does not exist".formatted(name), cause);
    }

    private static TrinoException tableAlreadyExists(SchemaTableName name, StatusRuntimeException e)
    {
        String description = e.getStatus().getDescription();
        if (description != null && (description.startsWith("View ") || description.startsWith("Materialized view "))) {
            // a view has the name: saying a table has it would send the user looking for one
            return new TrinoException(TABLE_ALREADY_EXISTS, description, e);
        }
        return new TrinoException(TABLE_ALREADY_EXISTS, "Table '%s' already exists".formatted(name), e);
    }

    private static String describe(StatusRuntimeException e)
    {
        Status status = e.getStatus();
        return status.getDescription() == null ? status.getCode().toString() : status.getCode() + ": " + status.getDescription();
    }

    private static SchemaTableName toSchemaTableName(TableName name)
    {
        return new SchemaTableName(name.getSchemaName(), name.getTableName());
    }

    private static TableName toTableName(SchemaTableName name)
    {
        return TableName.newBuilder()
                .setSchemaName(name.getSchemaName())
                .setTableName(name.getTableName())
                .build();
    }
}
