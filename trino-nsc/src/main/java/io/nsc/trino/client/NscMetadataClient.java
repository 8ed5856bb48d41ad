package io.nsc.trino.client;

import com.google.inject.Inject;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListTablesRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TableName;
import io.nsc.trino.NscConfig;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.SchemaTableName;
import jakarta.annotation.PreDestroy;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.trino.NscErrorCode.NSC_METADATA_ERROR;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * The connector's only way to the metadata service: it turns gRPC failures into
 * {@link TrinoException}s a user can act on.
 */
public class NscMetadataClient
{
    private final String address;
    private final ManagedChannel channel;
    private final long timeoutMillis;

    @Inject
    public NscMetadataClient(NscConfig config)
    {
        this.address = requireNonNull(config.getMetadataAddress(), "metadataAddress is null");
        this.channel = GrpcChannels.forAddress(address);
        this.timeoutMillis = config.getMetadataTimeout().toMillis();
    }

    @PreDestroy
    public void close()
    {
        GrpcChannels.close(channel);
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

    public GetTableFilesResponse getTableFiles(long tableId)
    {
        return call("list files of table " + tableId, () -> stub().getTableFiles(GetTableFilesRequest.newBuilder().setTableId(tableId).build()));
    }

    private MetadataServiceBlockingStub stub()
    {
        return MetadataServiceGrpc.newBlockingStub(channel).withDeadlineAfter(timeoutMillis, MILLISECONDS);
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
        Status status = e.getStatus();
        String description = status.getDescription() == null ? status.getCode().toString() : status.getCode() + ": " + status.getDescription();
        return new TrinoException(NSC_METADATA_ERROR, "nsc metadata service at %s failed to %s: %s".formatted(address, action, description), e);
    }

    private static SchemaTableName toSchemaTableName(TableName name)
    {
        return new SchemaTableName(name.getSchemaName(), name.getTableName());
    }
}
