package io.nsc.protocol.client;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.ListSchemasRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.security.AccessPolicy;
import io.nsc.protocol.security.TransportSecurity;
import io.nsc.protocol.server.ServiceEndpoints;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A channel over two real metadata endpoints, each behind a proxy that can be killed like the
 * instance's process: calls go to the first while it lives, then to the second.
 */
final class TestMetadataFailover
{
    private final CountingMetadataService first = new CountingMetadataService("first");
    private final CountingMetadataService second = new CountingMetadataService("second");
    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown()
            throws Exception
    {
        first.release();
        second.release();
        for (AutoCloseable resource : resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void testPrefersTheFirstAddressWhileItAnswers()
    {
        MetadataServiceBlockingStub stub = stub(proxyTo(first).address() + "," + proxyTo(second).address());
        for (int i = 0; i < 5; i++) {
            assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("first");
        }
        assertThat(first.listSchemasCalls).hasValue(5);
        assertThat(second.listSchemasCalls).hasValue(0);
    }

    @Test
    void testSingleAddressWorksAsBefore()
    {
        MetadataServiceBlockingStub stub = stub(proxyTo(second).address());
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("second");
        assertThat(second.listSchemasCalls).hasValue(1);
    }

    @Test
    void testFirstNeverStarted()
            throws IOException
    {
        MetadataServiceBlockingStub stub = stub("127.0.0.1:" + unusedPort() + "," + proxyTo(second).address());
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("second");
        // the non-repeatable calls too: nothing reached the dead address
        stub.commitFiles(CommitFilesRequest.getDefaultInstance());
        assertThat(second.listSchemasCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(1);
    }

    @Test
    void testFirstDiesBetweenCalls()
    {
        KillableProxy firstProxy = proxyTo(first);
        MetadataServiceBlockingStub stub = stub(firstProxy.address() + "," + proxyTo(second).address());
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("first");

        firstProxy.kill();
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("second");
        stub.commitFiles(CommitFilesRequest.getDefaultInstance());
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("second");

        assertThat(first.listSchemasCalls).hasValue(1);
        assertThat(second.listSchemasCalls).hasValue(2);
        assertThat(first.commitCalls).hasValue(0);
        assertThat(second.commitCalls).hasValue(1);
    }

    @Test
    void testRepeatableCallIsRetriedOnUnknown()
    {
        // how grpc-java reports a call written to a connection the dying instance just reset
        MetadataServiceBlockingStub stub = stub(proxyTo(first).address() + "," + proxyTo(second).address());
        first.failNext(Status.UNKNOWN.withDescription("channel closed"));
        assertThat(stub.listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("first");
        assertThat(first.listSchemasCalls).hasValue(2);

        first.failNext(Status.UNKNOWN.withDescription("channel closed"));
        assertThatThrownBy(() -> stub.commitFiles(CommitFilesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN));
        assertThat(first.commitCalls).hasValue(1);
    }

    @Test
    void testRepeatableCallInFlightMovesToTheNextInstance()
            throws Exception
    {
        InFlight<TableInfo> table = callWhileTheFirstDies(stub -> stub.getTable(GetTableRequest.newBuilder().setTableName("orders").build()), first.getTableCalls);

        TableInfo answer = table.answer().get(1, TimeUnit.MINUTES);
        assertThat(answer.getSchemaName()).isEqualTo("second");
        assertThat(answer.getTableName()).isEqualTo("orders");
        assertThat(first.getTableCalls).hasValue(1);
        assertThat(second.getTableCalls).hasValue(1);
    }

    @Test
    void testCommitInFlightIsNotRepeated()
            throws Exception
    {
        InFlight<?> commit = callWhileTheFirstDies(stub -> stub.commitFiles(CommitFilesRequest.getDefaultInstance()), first.commitCalls);

        // the first instance may have applied it: only the caller can tell whether to try again
        assertThatThrownBy(() -> getCause(commit.answer()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
        assertThat(first.commitCalls).hasValue(1);
        assertThat(second.commitCalls).hasValue(0);

        // the next call goes to the second instance
        assertThat(commit.stub().listSchemas(ListSchemasRequest.getDefaultInstance()).getSchemaNamesList()).containsExactly("second");
    }

    @Test
    void testEveryInstanceDown()
            throws IOException
    {
        MetadataServiceBlockingStub stub = stub("127.0.0.1:" + unusedPort() + ",127.0.0.1:" + unusedPort());
        assertThatThrownBy(() -> stub.listSchemas(ListSchemasRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }

    @Test
    void testRepeatableMethodsExistAndExcludeWrites()
    {
        assertThat(MetadataServiceConfig.REPEATABLE_METHODS)
                .extracting(method -> method.getBareMethodName())
                .doesNotContain("CommitFiles", "CreateTable", "DropTable", "CreateSchema", "DropSchema", "ReplaceReplica", "BackupCatalog")
                .contains("GetTable", "GetTableFiles", "Heartbeat", "RegisterNode", "AllocateFiles");
    }

    /**
     * Starts {@code call} on a channel over both instances, holds it in the first, and kills the
     * first instance while the call is in flight there.
     */
    private <T> InFlight<T> callWhileTheFirstDies(Function<MetadataServiceBlockingStub, T> call, AtomicInteger firstCalls)
            throws InterruptedException
    {
        KillableProxy firstProxy = proxyTo(first);
        MetadataServiceBlockingStub stub = stub(firstProxy.address() + "," + proxyTo(second).address());
        first.holdCalls();
        CompletableFuture<T> answer = CompletableFuture.supplyAsync(() -> call.apply(stub));
        await(() -> firstCalls.get() == 1);
        firstProxy.kill();
        return new InFlight<>(stub, answer);
    }

    private record InFlight<T>(MetadataServiceBlockingStub stub, CompletableFuture<T> answer) {}

    private KillableProxy proxyTo(CountingMetadataService service)
    {
        ServiceEndpoints endpoints = ServiceEndpoints.start("127.0.0.1", 0, 0, List.of(service), Map::of, TransportSecurity.insecure(), AccessPolicy.builder().build());
        resources.add(endpoints);
        KillableProxy proxy = KillableProxy.start(endpoints.grpcPort());
        resources.add(proxy);
        return proxy;
    }

    private MetadataServiceBlockingStub stub(String addresses)
    {
        ManagedChannel channel = GrpcChannels.forMetadataService(MetadataAddresses.parse(addresses), TransportSecurity.insecure());
        resources.add(() -> GrpcChannels.close(channel));
        return MetadataServiceGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.MINUTES);
    }

    private static Object getCause(CompletableFuture<?> future)
            throws Throwable
    {
        try {
            return future.get(1, TimeUnit.MINUTES);
        }
        catch (ExecutionException e) {
            throw e.getCause();
        }
    }

    private static int unusedPort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void await(BooleanSupplier condition)
            throws InterruptedException
    {
        long deadline = System.nanoTime() + SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition reached in time").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
