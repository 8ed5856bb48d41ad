package io.nsc.protocol.client;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.nsc.protocol.proto.GetNodeStatsRequest;
import io.nsc.protocol.proto.GetNodeStatsResponse;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.security.TransportSecurity;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestStorageNodeChannels
{
    /**
     * A node restarted on its address is reached by the next call: without a reconnect, the
     * channel would refuse every call until gRPC's backoff after the failed connection ran out.
     */
    @Test
    void testNodeBackOnItsAddressIsReachedByTheNextCall()
            throws IOException
    {
        int port = freePort();
        String address = "127.0.0.1:" + port;
        StorageNodeChannels channels = new StorageNodeChannels(TransportSecurity.insecure());
        try {
            assertThatThrownBy(() -> nodeStats(channels, address))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));

            Server node = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
                    .addService(new NodeStats())
                    .build()
                    .start();
            try {
                assertThat(nodeStats(channels, address).getFileCount()).isEqualTo(7);
            }
            finally {
                node.shutdownNow();
            }
        }
        finally {
            channels.close();
        }
    }

    private static GetNodeStatsResponse nodeStats(StorageNodeChannels channels, String address)
    {
        return StorageServiceGrpc.newBlockingStub(channels.channel(address)).withDeadlineAfter(10, SECONDS).getNodeStats(GetNodeStatsRequest.getDefaultInstance());
    }

    private static int freePort()
            throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static final class NodeStats
            extends StorageServiceGrpc.StorageServiceImplBase
    {
        @Override
        public void getNodeStats(GetNodeStatsRequest request, StreamObserver<GetNodeStatsResponse> response)
        {
            response.onNext(GetNodeStatsResponse.newBuilder().setFileCount(7).build());
            response.onCompleted();
        }
    }
}
