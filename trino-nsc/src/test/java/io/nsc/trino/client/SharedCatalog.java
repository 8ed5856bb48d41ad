package io.nsc.trino.client;

import io.grpc.Status;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.TableInfo;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The catalog several fake metadata instances serve, with the checks of the real one that make a
 * repeated commit impossible: a file is committed at most once, and a CREATE TABLE AS
 * ({@code must_create}) fails when its table exists.
 */
final class SharedCatalog
{
    private final Map<String, Table> tables = new HashMap<>();
    private long nextTableId = 1;
    private int commitsApplied;

    private static final class Table
    {
        final long id;
        long version;
        final List<String> fileIds = new ArrayList<>();

        Table(long id)
        {
            this.id = id;
        }
    }

    synchronized CommitFilesResponse commit(CommitFilesRequest request)
    {
        String name = request.getSchemaName() + "." + request.getTableName();
        Table table = tables.get(name);
        if (table != null && request.getMustCreate()) {
            throw Status.ALREADY_EXISTS.withDescription("Table %s already exists".formatted(name)).asRuntimeException();
        }
        if (table == null && !request.getCreateTable() && !request.getMustCreate()) {
            throw Status.NOT_FOUND.withDescription("Table %s does not exist".formatted(name)).asRuntimeException();
        }
        if (table != null && request.getExpectedTableId() != 0 && table.id != request.getExpectedTableId()) {
            throw Status.ABORTED.withDescription("Table %s has another id".formatted(name)).asRuntimeException();
        }
        for (DataFile file : request.getFilesList()) {
            tables.forEach((owner, candidate) -> {
                if (candidate.fileIds.contains(file.getFileId())) {
                    throw Status.FAILED_PRECONDITION.withDescription("File %s is already committed to table %s".formatted(file.getFileId(), owner)).asRuntimeException();
                }
            });
        }
        boolean created = table == null;
        if (created) {
            table = new Table(nextTableId++);
            tables.put(name, table);
        }
        table.version++;
        request.getFilesList().forEach(file -> tables.get(name).fileIds.add(file.getFileId()));
        commitsApplied++;
        return CommitFilesResponse.newBuilder().setTableId(table.id).setVersion(table.version).setTableCreated(created).build();
    }

    synchronized Optional<TableInfo> table(String schema, String name)
    {
        return Optional.ofNullable(tables.get(schema + "." + name))
                .map(table -> TableInfo.newBuilder().setTableId(table.id).setSchemaName(schema).setTableName(name).setVersion(table.version).build());
    }

    synchronized List<String> files(long tableId)
    {
        return tables.values().stream()
                .filter(table -> table.id == tableId)
                .findFirst()
                .map(table -> List.copyOf(table.fileIds))
                .orElseThrow(() -> Status.NOT_FOUND.withDescription("No table " + tableId).asRuntimeException());
    }

    synchronized int commitsApplied()
    {
        return commitsApplied;
    }
}
