package io.nsc.trino.metadata;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateTableRequest;
import io.nsc.protocol.proto.CreateTableResponse;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.GetViewRequest;
import io.nsc.protocol.proto.ListNodesRequest;
import io.nsc.protocol.proto.ListNodesResponse;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListSchemasResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.TruncateTableRequest;
import io.nsc.protocol.proto.TruncateTableResponse;
import io.nsc.protocol.proto.ViewInfo;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.trino.NscConfig;
import io.nsc.trino.client.NscMetadataClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A metadata service that serves the tables it is given, with no files and no views, and records every
 * change a statement asks of it instead of applying it: what the metadata's writes and row
 * changes send can be checked without a cluster. It listens on an ephemeral port of 127.0.0.1.
 */
final class RecordingMetadataService
        extends MetadataServiceGrpc.MetadataServiceImplBase
        implements AutoCloseable
{
    final List<String> schemas = new CopyOnWriteArrayList<>();
    final Map<String, TableInfo> tables = new ConcurrentHashMap<>();
    final List<CommitFilesRequest> commits = new CopyOnWriteArrayList<>();
    final List<CreateTableRequest> creates = new CopyOnWriteArrayList<>();
    final List<TruncateTableRequest> truncates = new CopyOnWriteArrayList<>();
    final AtomicInteger getTableCalls = new AtomicInteger();
    final AtomicInteger getViewCalls = new AtomicInteger();
    final AtomicInteger tableFilesCalls = new AtomicInteger();
    private volatile int liveNodes;

    private final Server server;
    private final NscConfig config;
    private final NscMetadataClient client;

    RecordingMetadataService()
    {
        try {
            server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0)).addService(this).build().start();
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        config = new NscConfig().setMetadataAddress("127.0.0.1:" + server.getPort());
        client = new NscMetadataClient(config, TransportSecurity.insecure());
    }

    NscConfig config()
    {
        return config;
    }

    NscMetadataClient client()
    {
        return client;
    }

    /** How many storage nodes are live; one dead node is listed besides them. */
    void setLiveNodes(int liveNodes)
    {
        this.liveNodes = liveNodes;
    }

    void addTable(TableInfo table)
    {
        tables.put(table.getSchemaName() + "." + table.getTableName(), table);
    }

    @Override
    public void close()
    {
        client.close();
        server.shutdownNow();
    }

    @Override
    public void listSchemas(ListSchemasRequest request, StreamObserver<ListSchemasResponse> observer)
    {
        observer.onNext(ListSchemasResponse.newBuilder().addAllSchemaNames(schemas).build());
        observer.onCompleted();
    }

    @Override
    public void getTable(GetTableRequest request, StreamObserver<TableInfo> observer)
    {
        getTableCalls.incrementAndGet();
        TableInfo table = tables.get(request.getSchemaName() + "." + request.getTableName());
        if (table == null) {
            observer.onError(Status.NOT_FOUND.withDescription("no table " + request.getTableName()).asRuntimeException());
            return;
        }
        observer.onNext(table);
        observer.onCompleted();
    }

    /** It holds no views. */
    @Override
    public void getView(GetViewRequest request, StreamObserver<ViewInfo> observer)
    {
        getViewCalls.incrementAndGet();
        observer.onError(Status.NOT_FOUND.withDescription("no view " + request.getViewName()).asRuntimeException());
    }

    @Override
    public void listNodes(ListNodesRequest request, StreamObserver<ListNodesResponse> observer)
    {
        ListNodesResponse.Builder response = ListNodesResponse.newBuilder()
                .addNodes(StorageNode.newBuilder().setNodeId("dead").setAddress("127.0.0.1:1").setAlive(false));
        for (int node = 0; node < liveNodes; node++) {
            response.addNodes(StorageNode.newBuilder().setNodeId("live-" + node).setAddress("127.0.0.1:1").setAlive(true));
        }
        observer.onNext(response.build());
        observer.onCompleted();
    }

    /** Every table is empty. */
    @Override
    public void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> observer)
    {
        tableFilesCalls.incrementAndGet();
        observer.onNext(GetTableFilesResponse.newBuilder().setTableId(request.getTableId()).setVersion(request.getVersion()).build());
        observer.onCompleted();
    }

    @Override
    public void createTable(CreateTableRequest request, StreamObserver<CreateTableResponse> observer)
    {
        creates.add(request);
        observer.onNext(CreateTableResponse.newBuilder().setCreated(true).build());
        observer.onCompleted();
    }

    @Override
    public void truncateTable(TruncateTableRequest request, StreamObserver<TruncateTableResponse> observer)
    {
        truncates.add(request);
        observer.onNext(TruncateTableResponse.getDefaultInstance());
        observer.onCompleted();
    }

    /** Answers as if the commit made the table's next version, with the rows a DELETE names removed. */
    @Override
    public void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> observer)
    {
        commits.add(request);
        TableInfo table = tables.get(request.getSchemaName() + "." + request.getTableName());
        observer.onNext(CommitFilesResponse.newBuilder()
                .setTableId(table == null ? 0 : table.getTableId())
                .setVersion(table == null ? 1 : table.getVersion() + 1)
                .setFilesRemoved(request.getRemovals().getRemovedFileIdsCount())
                .build());
        observer.onCompleted();
    }
}
