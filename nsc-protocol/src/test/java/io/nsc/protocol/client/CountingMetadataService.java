package io.nsc.protocol.client;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.ListSchemasResponse;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.TableInfo;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static java.util.Objects.requireNonNull;

/**
 * One instance of a metadata service, as far as the channel tests need: it names itself in its
 * answers, counts the calls it received, and can hold calls until released (a call in flight).
 */
final class CountingMetadataService
        extends MetadataServiceGrpc.MetadataServiceImplBase
{
    private final String name;
    private final CountDownLatch release = new CountDownLatch(1);
    private volatile boolean holdCalls;
    private final AtomicReference<Status> nextFailure = new AtomicReference<>();

    final AtomicInteger listSchemasCalls = new AtomicInteger();
    final AtomicInteger getTableCalls = new AtomicInteger();
    final AtomicInteger commitCalls = new AtomicInteger();

    CountingMetadataService(String name)
    {
        this.name = requireNonNull(name, "name is null");
    }

    /** From now on GetTable and CommitFiles wait for {@link #release()} before they answer. */
    void holdCalls()
    {
        holdCalls = true;
    }

    void release()
    {
        release.countDown();
    }

    /** The next ListSchemas or CommitFiles call answers {@code failure} instead. */
    void failNext(Status failure)
    {
        nextFailure.set(failure);
    }

    private boolean failed(StreamObserver<?> responseObserver)
    {
        Status failure = nextFailure.getAndSet(null);
        if (failure == null) {
            return false;
        }
        responseObserver.onError(failure.asRuntimeException());
        return true;
    }

    @Override
    public void listSchemas(ListSchemasRequest request, StreamObserver<ListSchemasResponse> responseObserver)
    {
        listSchemasCalls.incrementAndGet();
        if (failed(responseObserver)) {
            return;
        }
        responseObserver.onNext(ListSchemasResponse.newBuilder().addSchemaNames(name).build());
        responseObserver.onCompleted();
    }

    @Override
    public void getTable(GetTableRequest request, StreamObserver<TableInfo> responseObserver)
    {
        getTableCalls.incrementAndGet();
        awaitRelease();
        responseObserver.onNext(TableInfo.newBuilder().setSchemaName(name).setTableName(request.getTableName()).build());
        responseObserver.onCompleted();
    }

    @Override
    public void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> responseObserver)
    {
        commitCalls.incrementAndGet();
        if (failed(responseObserver)) {
            return;
        }
        awaitRelease();
        responseObserver.onNext(CommitFilesResponse.newBuilder().setVersion(1).build());
        responseObserver.onCompleted();
    }

    private void awaitRelease()
    {
        if (!holdCalls) {
            return;
        }
        try {
            // bounded so that a failing test cannot leave a server thread behind for ever
            release.await(1, TimeUnit.MINUTES);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
