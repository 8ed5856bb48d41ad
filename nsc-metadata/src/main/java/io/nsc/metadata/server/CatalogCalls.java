package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.catalog.ColumnChange;
import io.nsc.metadata.catalog.CreateTableResult;
import io.nsc.metadata.catalog.DroppedTable;
import io.nsc.metadata.catalog.SchemaTableName;
import io.nsc.metadata.catalog.StatisticsCatalog;
import io.nsc.metadata.catalog.TableCatalog;
import io.nsc.metadata.catalog.TableEntry;
import io.nsc.metadata.catalog.TableHistory;
import io.nsc.protocol.proto.AlterColumnRequest;
import io.nsc.protocol.proto.AlterColumnResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.CreateSchemaResponse;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.DropSchemaRequest;
import io.nsc.protocol.proto.DropSchemaResponse;
import io.nsc.protocol.proto.DropTableRequest;
import io.nsc.protocol.proto.DropTableResponse;
import io.nsc.protocol.proto.GetColumnStatisticsRequest;
import io.nsc.protocol.proto.GetColumnStatisticsResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListSchemasResponse;
import io.nsc.protocol.proto.ListTableDefinitionsRequest;
import io.nsc.protocol.proto.ListTableDefinitionsResponse;
import io.nsc.protocol.proto.ListTableVersionsRequest;
import io.nsc.protocol.proto.ListTableVersionsResponse;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.ListTablesResponse;
import io.nsc.protocol.proto.RenameSchemaRequest;
import io.nsc.protocol.proto.RenameSchemaResponse;
import io.nsc.protocol.proto.RenameTableRequest;
import io.nsc.protocol.proto.RenameTableResponse;
import io.nsc.protocol.proto.SetColumnStatisticsRequest;
import io.nsc.protocol.proto.SetColumnStatisticsResponse;
import io.nsc.protocol.proto.SetCommentRequest;
import io.nsc.protocol.proto.SetCommentResponse;
import io.nsc.protocol.proto.SetTablePropertiesRequest;
import io.nsc.protocol.proto.SetTablePropertiesResponse;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TruncateTableRequest;
import io.nsc.protocol.proto.TruncateTableResponse;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.server.MetadataProtoMapper.toAnalyzedColumn;
import static io.nsc.metadata.server.MetadataProtoMapper.toColumnChange;
import static io.nsc.metadata.server.MetadataProtoMapper.toTableColumns;
import static io.nsc.metadata.server.MetadataProtoMapper.toTableInfo;
import static io.nsc.metadata.server.MetadataProtoMapper.toTableName;
import static io.nsc.metadata.server.MetadataProtoMapper.toTableVersion;
import static java.util.Objects.requireNonNull;

/**
 * The calls clients make to read and change schemas and tables: their columns, properties,
 * comments, history and column statistics.
 */
final class CatalogCalls
{
    private static final Logger log = Logger.get(CatalogCalls.class);

    // its limits are the protocol's (nsc.proto: ListTableDefinitionsRequest), no setting
    private static final TableDefinitionsPaging TABLE_DEFINITIONS_PAGING = new TableDefinitionsPaging();

    private final TableCatalog tables;
    private final TableHistory history;
    private final StatisticsCatalog statistics;
    private final MetadataStats stats;
    private final Responder responder;

    @Inject
    CatalogCalls(TableCatalog tables, TableHistory history, StatisticsCatalog statistics, MetadataStats stats, Responder responder)
    {
        this.tables = requireNonNull(tables, "tables is null");
        this.history = requireNonNull(history, "history is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.stats = requireNonNull(stats, "stats is null");
        this.responder = requireNonNull(responder, "responder is null");
    }

    void listSchemas(ListSchemasRequest request, StreamObserver<ListSchemasResponse> observer)
    {
        responder.respond("ListSchemas", observer, () -> ListSchemasResponse.newBuilder()
                .addAllSchemaNames(tables.listSchemas())
                .build());
    }

    void createSchema(CreateSchemaRequest request, StreamObserver<CreateSchemaResponse> observer)
    {
        responder.audited("CreateSchema", request.getSchemaName(), observer, () -> CreateSchemaResponse.newBuilder()
                .setCreated(tables.createSchema(request.getSchemaName(), request.getIfNotExists()))
                .build());
    }

    void listTables(ListTablesRequest request, StreamObserver<ListTablesResponse> observer)
    {
        responder.respond("ListTables", observer, () -> {
            Optional<String> schema = Optional.of(request.getSchemaName()).filter(name -> !name.isEmpty());
            ListTablesResponse.Builder response = ListTablesResponse.newBuilder();
            for (SchemaTableName table : tables.listTables(schema)) {
                response.addTables(toTableName(table));
            }
            return response.build();
        });
    }

    void getTable(GetTableRequest request, StreamObserver<TableInfo> observer)
    {
        responder.respond("GetTable", observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            TableEntry table = switch (request.getAsOfCase()) {
                case ASOF_NOT_SET -> tables.getTable(name).orElseThrow(() -> notFound("Table %s does not exist", name));
                case VERSION -> history.tableAtVersion(name, request.getVersion());
                case TIMESTAMP_MILLIS -> history.tableAsOf(name, request.getTimestampMillis());
            };
            stats.tableLookedUp();
            return toTableInfo(table);
        });
    }

    void listTableVersions(ListTableVersionsRequest request, StreamObserver<ListTableVersionsResponse> observer)
    {
        responder.respond("ListTableVersions", observer, () -> {
            ListTableVersionsResponse.Builder response = ListTableVersionsResponse.newBuilder();
            for (io.nsc.metadata.catalog.TableVersion version : history.listVersions(new SchemaTableName(request.getSchemaName(), request.getTableName()))) {
                response.addVersions(toTableVersion(version));
            }
            return response.build();
        });
    }

    void listTableDefinitions(ListTableDefinitionsRequest request, StreamObserver<ListTableDefinitionsResponse> observer)
    {
        responder.respond("ListTableDefinitions", observer, () -> {
            ListTableDefinitionsResponse response = TABLE_DEFINITIONS_PAGING.answer(tables, request, MetadataProtoMapper::toTableInfo);
            stats.tableDefinitionsListed(response.getTablesCount());
            return response;
        });
    }

    void createTable(CreateTableRequest request, StreamObserver<CreateTableResponse> observer)
    {
        responder.audited("CreateTable", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            Optional<String> comment = request.hasComment() ? Optional.of(request.getComment()) : Optional.empty();
            TableCatalog.ExistingTable ifExists = request.getReplace() ? TableCatalog.ExistingTable.REPLACE
                    : request.getIfNotExists() ? TableCatalog.ExistingTable.KEEP : TableCatalog.ExistingTable.FAIL;
            CreateTableResult result = tables.createTable(name, toTableColumns(request.getColumnsList()), request.getPropertiesMap(), comment, ifExists);
            if (result.created()) {
                stats.tableCreated();
                log.info("Created table %s (id %s)", name, result.table().tableId());
            }
            result.replaced().ifPresent(replaced -> logReplaced(stats, name, replaced));
            return CreateTableResponse.newBuilder()
                    .setTable(toTableInfo(result.table()))
                    .setCreated(result.created())
                    .build();
        });
    }

    void dropTable(DropTableRequest request, StreamObserver<DropTableResponse> observer)
    {
        responder.audited("DropTable", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            Optional<DroppedTable> dropped = tables.dropTable(name, request.getIfExists());
            dropped.ifPresent(table -> {
                stats.tableDropped(table.filesReleased());
                log.info("Dropped table %s (id %s), releasing %s files once the table version retention passes", name, table.tableId(), table.filesReleased());
            });
            return DropTableResponse.newBuilder()
                    .setDropped(dropped.isPresent())
                    .setFilesReleased(dropped.map(DroppedTable::filesReleased).orElse(0))
                    .build();
        });
    }

    void setComment(SetCommentRequest request, StreamObserver<SetCommentResponse> observer)
    {
        String target = request.getSchemaName() + "." + request.getTableName() + (request.hasColumnName() ? "." + request.getColumnName() : "");
        responder.audited("SetComment", target, observer, () -> {
            tables.setComment(
                    new SchemaTableName(request.getSchemaName(), request.getTableName()),
                    request.hasColumnName() ? Optional.of(request.getColumnName()) : Optional.empty(),
                    request.hasComment() ? Optional.of(request.getComment()) : Optional.empty());
            return SetCommentResponse.getDefaultInstance();
        });
    }

    void setTableProperties(SetTablePropertiesRequest request, StreamObserver<SetTablePropertiesResponse> observer)
    {
        responder.audited("SetTableProperties", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            tables.setProperties(new SchemaTableName(request.getSchemaName(), request.getTableName()), expectedTableId, request.getPropertiesMap());
            return SetTablePropertiesResponse.getDefaultInstance();
        });
    }

    void alterColumn(AlterColumnRequest request, StreamObserver<AlterColumnResponse> observer)
    {
        responder.audited("AlterColumn", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            ColumnChange change = toColumnChange(request);
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            Optional<Map<String, String>> properties = request.getReplaceProperties() ? Optional.of(request.getPropertiesMap()) : Optional.empty();
            TableEntry table = tables.alterColumn(name, expectedTableId, change, properties);
            log.info("Altered table %s (id %s): %s, now at version %s", name, table.tableId(), change, table.version());
            return AlterColumnResponse.newBuilder().setTable(toTableInfo(table)).build();
        });
    }

    void setColumnStatistics(SetColumnStatisticsRequest request, StreamObserver<SetColumnStatisticsResponse> observer)
    {
        responder.audited("SetColumnStatistics", request.getSchemaName() + "." + request.getTableName(), observer, () -> {
            SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
            OptionalLong expectedTableId = request.getExpectedTableId() > 0 ? OptionalLong.of(request.getExpectedTableId()) : OptionalLong.empty();
            List<StatisticsCatalog.ColumnCounts> columns = request.getColumnsList().stream()
                    .map(column -> new StatisticsCatalog.ColumnCounts(column.getOrdinal(), column.getNonNullCount(), column.getDistinctCount()))
                    .toList();
            int stored = statistics.setColumnStatistics(name, expectedTableId, request.getVersion(), request.getRowCount(), columns);
            log.info("Stored statistics of %s of %s columns of table %s at version %s", stored, columns.size(), name, request.getVersion());
            return SetColumnStatisticsResponse.newBuilder().setColumnsStored(stored).build();
        });
    }

    void getColumnStatistics(GetColumnStatisticsRequest request, StreamObserver<GetColumnStatisticsResponse> observer)
    {
        responder.respond("GetColumnStatistics", observer, () -> {
            List<io.nsc.metadata.catalog.AnalyzedColumn> columns = statistics.getColumnStatistics(request.getTableId())
                    .orElseThrow(() -> notFound("Table with id %s does not exist", request.getTableId()));
            GetColumnStatisticsResponse.Builder response = GetColumnStatisticsResponse.newBuilder();
            for (io.nsc.metadata.catalog.AnalyzedColumn column : columns) {
                response.addColumns(toAnalyzedColumn(column));
            }
            return response.build();
        });
    }

    void dropSchema(DropSchemaRequest request, StreamObserver<DropSchemaResponse> observer)
    {
        responder.audited("DropSchema", request.getSchemaName(), observer, () -> {
            Optional<List<DroppedTable>> dropped = tables.dropSchema(request.getSchemaName(), request.getIfExists(), request.getCascade());
            List<DroppedTable> droppedTables = dropped.orElse(List.of());
            droppedTables.forEach(table -> stats.tableDropped(table.filesReleased()));
            long filesReleased = droppedTables.stream().mapToLong(DroppedTable::filesReleased).sum();
            if (dropped.isPresent()) {
                log.info("Dropped schema %s with %s tables, releasing %s files once the table version retention passes", request.getSchemaName(), droppedTables.size(), filesReleased);
            }
            return DropSchemaResponse.newBuilder()
                    .setDropped(dropped.isPresent())
                    .setTablesDropped(droppedTables.size())
                    .setFilesReleased(filesReleased)
                    .build();
        });
    }

    void truncateTable(TruncateTableRequest request, StreamObserver<TruncateTableResponse> observer)
    {
        SchemaTableName name = new SchemaTableName(request.getSchemaName(), request.getTableName());
        responder.audited("TruncateTable", name.toString(), observer, () -> {
            // table ids start at 1, so 0 means no expectation
            TableCatalog.TruncatedTable truncated = tables.truncateTable(name,
                    request.getExpectedTableId() == 0 ? OptionalLong.empty() : OptionalLong.of(request.getExpectedTableId()));
            stats.tableDropped(truncated.dropped().filesReleased());
            log.info("Truncated table %s (id %s, now %s), releasing %s files once the table version retention passes",
                    name, truncated.dropped().tableId(), truncated.table().tableId(), truncated.dropped().filesReleased());
            return TruncateTableResponse.newBuilder()
                    .setTable(toTableInfo(truncated.table()))
                    .setFilesReleased(truncated.dropped().filesReleased())
                    .build();
        });
    }

    void renameSchema(RenameSchemaRequest request, StreamObserver<RenameSchemaResponse> observer)
    {
        responder.audited("RenameSchema", request.getSchemaName() + " to " + request.getNewSchemaName(), observer, () -> {
            tables.renameSchema(request.getSchemaName(), request.getNewSchemaName());
            log.info("Renamed schema %s to %s", request.getSchemaName(), request.getNewSchemaName());
            return RenameSchemaResponse.getDefaultInstance();
        });
    }

    void renameTable(RenameTableRequest request, StreamObserver<RenameTableResponse> observer)
    {
        SchemaTableName from = new SchemaTableName(request.getSchemaName(), request.getTableName());
        SchemaTableName to = new SchemaTableName(request.getNewSchemaName(), request.getNewTableName());
        responder.audited("RenameTable", from + " to " + to, observer, () -> {
            tables.renameTable(from, to);
            log.info("Renamed table %s to %s", from, to);
            return RenameTableResponse.getDefaultInstance();
        });
    }

    /** A table replaced by CREATE OR REPLACE, by either call that can replace one, counts and logs as dropped. */
    static void logReplaced(MetadataStats stats, SchemaTableName name, DroppedTable replaced)
    {
        stats.tableDropped(replaced.filesReleased());
        log.info("Replaced table %s (id %s), releasing %s files once the table version retention passes", name, replaced.tableId(), replaced.filesReleased());
    }
}
