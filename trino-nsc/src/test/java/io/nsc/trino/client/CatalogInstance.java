package io.nsc.trino.client;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.GetTableFilesRequest;
import io.nsc.protocol.proto.GetTableFilesResponse;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.TableInfo;

import java.util.concurrent.atomic.AtomicInteger;

import static java.util.Objects.requireNonNull;

/**
 * One metadata service instance over a {@link SharedCatalog}. It can be told to die during its
 * next commit, before or after applying it, the way a process killed mid-call does: the client
 * gets no answer, only a broken connection.
 */
final class CatalogInstance
        extends MetadataServiceGrpc.MetadataServiceImplBase
{
    enum Death
    {
        NONE, BEFORE_APPLYING, AFTER_APPLYING,
        /** Applies the commit and answers what grpc-java reports for a connection reset under a call. */
        UNKNOWN_AFTER_APPLYING
    }

    private final SharedCatalog catalog;
    private volatile Death nextCommitDeath = Death.NONE;
    private volatile Runnable kill = () -> {};

    final AtomicInteger commitCalls = new AtomicInteger();
    final AtomicInteger getTableCalls = new AtomicInteger();

    CatalogInstance(SharedCatalog catalog)
    {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    /** What kills this instance's process (its proxy). */
    void killedBy(Runnable kill)
    {
        this.kill = requireNonNull(kill, "kill is null");
    }

    void dieDuringNextCommit(Death death)
    {
        this.nextCommitDeath = requireNonNull(death, "death is null");
    }

    @Override
    public void commitFiles(CommitFilesRequest request, StreamObserver<CommitFilesResponse> responseObserver)
    {
        commitCalls.incrementAndGet();
        Death death = nextCommitDeath;
        if (death == Death.BEFORE_APPLYING) {
            kill.run();
            return;
        }
        CommitFilesResponse response;
        try {
            response = catalog.commit(request);
        }
        catch (StatusRuntimeException e) {
            responseObserver.onError(e);
            return;
        }
        if (death == Death.AFTER_APPLYING) {
            kill.run();
            return;
        }
        if (death == Death.UNKNOWN_AFTER_APPLYING) {
            nextCommitDeath = Death.NONE;
            responseObserver.onError(Status.UNKNOWN.withDescription("channel closed").asRuntimeException());
            return;
        }
        responseObserver.onNext(response);
        responseObserver.onCompleted();
    }

    @Override
    public void getTable(GetTableRequest request, StreamObserver<TableInfo> responseObserver)
    {
        getTableCalls.incrementAndGet();
        catalog.table(request.getSchemaName(), request.getTableName()).ifPresentOrElse(
                table -> {
                    responseObserver.onNext(table);
                    responseObserver.onCompleted();
                },
                () -> responseObserver.onError(Status.NOT_FOUND.asRuntimeException()));
    }

    @Override
    public void getTableFiles(GetTableFilesRequest request, StreamObserver<GetTableFilesResponse> responseObserver)
    {
        GetTableFilesResponse.Builder response = GetTableFilesResponse.newBuilder()
                .setTableId(request.getTableId())
                .setVersion(request.getVersion());
        try {
            catalog.files(request.getTableId()).forEach(fileId -> response.addFiles(DataFile.newBuilder().setFileId(fileId)));
        }
        catch (StatusRuntimeException e) {
            responseObserver.onError(e);
            return;
        }
        responseObserver.onNext(response.build());
        responseObserver.onCompleted();
    }
}
