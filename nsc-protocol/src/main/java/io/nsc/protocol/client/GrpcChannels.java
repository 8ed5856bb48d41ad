package io.nsc.protocol.client;

import com.google.common.net.HostAndPort;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.nsc.protocol.security.TransportSecurity;

import java.util.concurrent.TimeUnit;

/**
 * One place that says how nsc components talk to each other, so every client gets the same
 * message limits and keep-alive behaviour.
 */
public final class GrpcChannels
{
    public static final int MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
    private static final int METADATA_CONNECT_TIMEOUT_MILLIS = 5_000;
    private static final int STORAGE_CONNECT_TIMEOUT_MILLIS = 5_000;

    private GrpcChannels() {}

    /**
     * A channel to {@code host:port}: mutual TLS presenting this component's certificate, or
     * plaintext when {@code security} is insecure. Throws IllegalArgumentException on a malformed address.
     */
    public static ManagedChannel forAddress(String address, TransportSecurity security)
    {
        return configure(builderFor(address), security).build();
    }

    /**
     * A channel to a storage node, as {@link #forAddress}; a node whose machine is gone answers
     * nothing, and a reader has other replicas to try: a connection attempt gives up after 5 s
     * rather than the operating system's minutes.
     */
    public static ManagedChannel forStorageNode(String address, TransportSecurity security)
    {
        return configure(builderFor(address).withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, STORAGE_CONNECT_TIMEOUT_MILLIS), security).build();
    }

    private static NettyChannelBuilder builderFor(String address)
    {
        HostAndPort hostAndPort = HostAndPort.fromString(address);
        if (!hostAndPort.hasPort()) {
            throw new IllegalArgumentException("Address has no port: " + address);
        }
        return NettyChannelBuilder.forAddress(hostAndPort.getHost(), hostAndPort.getPort());
    }

    /**
     * A channel to the metadata services at {@code addresses}: calls go to the first address that
     * accepts a connection and stay there until it fails, then move on to the next; calls that are
     * safe to repeat are retried on UNAVAILABLE (see {@link MetadataServiceConfig}). Security as
     * for {@link #forAddress}, each instance's certificate checked against its own address.
     */
    @SuppressWarnings("deprecation") // a per-channel resolver factory: the process-wide registry would be state shared by every channel
    public static ManagedChannel forMetadataService(MetadataAddresses addresses, TransportSecurity security)
    {
        NettyChannelBuilder builder = NettyChannelBuilder.forTarget(MetadataAddressNameResolver.SCHEME + ":///metadata")
                .nameResolverFactory(MetadataAddressNameResolver.factory(addresses))
                .disableServiceConfigLookUp()
                .defaultServiceConfig(MetadataServiceConfig.serviceConfig())
                .enableRetry()
                // an instance whose machine is gone answers nothing: give up on it soon and try the next
                .withOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, METADATA_CONNECT_TIMEOUT_MILLIS);
        return configure(builder, security).build();
    }

    private static NettyChannelBuilder configure(NettyChannelBuilder builder, TransportSecurity security)
    {
        security.grpcClientContext().ifPresentOrElse(
                context -> builder.negotiationType(NegotiationType.TLS).sslContext(context),
                builder::usePlaintext);
        return builder
                .maxInboundMessageSize(MAX_MESSAGE_BYTES)
                .keepAliveTime(30, TimeUnit.SECONDS);
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
