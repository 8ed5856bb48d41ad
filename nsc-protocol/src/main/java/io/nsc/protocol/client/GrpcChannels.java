package io.nsc.protocol.client;

import com.google.common.net.HostAndPort;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.nsc.protocol.security.TransportSecurity;

import java.util.concurrent.TimeUnit;

/**
 * One place that says how nsc components talk to each other, so every client gets the same
 * message limits and keep-alive behaviour.
 */
public final class GrpcChannels
{
    public static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

    private GrpcChannels() {}

    /**
     * A channel to {@code host:port}: mutual TLS presenting this component's certificate, or
     * plaintext when {@code security} is insecure. Throws IllegalArgumentException on a malformed address.
     */
    public static ManagedChannel forAddress(String address, TransportSecurity security)
    {
        HostAndPort hostAndPort = HostAndPort.fromString(address);
        if (!hostAndPort.hasPort()) {
            throw new IllegalArgumentException("Address has no port: " + address);
        }
        NettyChannelBuilder builder = NettyChannelBuilder.forAddress(hostAndPort.getHost(), hostAndPort.getPort());
        security.grpcClientContext().ifPresentOrElse(
                context -> builder.negotiationType(NegotiationType.TLS).sslContext(context),
                builder::usePlaintext);
        return builder
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .keepAliveTime(30, TimeUnit.SECONDS)
                .build();
    }

    /** Closes a channel, waiting briefly for calls in flight. */
    public static void close(ManagedChannel channel)
    {
        channel.shutdown();
        try {
            if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
                channel.shutdownNow();
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            channel.shutdownNow();
        }
    }
}
