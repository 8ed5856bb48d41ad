package io.nsc.trino.client;

import com.google.inject.Inject;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceStub;
import io.nsc.protocol.security.TransportSecurity;
import jakarta.annotation.PreDestroy;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import static java.util.Objects.requireNonNull;

/**
 * One long-lived channel per storage node: gRPC multiplexes all of a worker's reads to a node
 * over it, so opening one per split would only add handshakes.
 */
public class StorageClients
{
    private final ConcurrentMap<String, ManagedChannel> channels = new ConcurrentHashMap<>();
    private final TransportSecurity security;

    @Inject
    public StorageClients(TransportSecurity security)
    {
        this.security = requireNonNull(security, "security is null");
    }

    public StorageServiceBlockingStub blockingStub(String address)
    {
        return StorageServiceGrpc.newBlockingStub(channel(address));
    }

    /** For streaming calls whose messages the caller takes as they arrive (scans). */
    public StorageServiceStub stub(String address)
    {
        return StorageServiceGrpc.newStub(channel(address));
    }

    /** The channel to the storage node at {@code host:port}, for calls other than blocking ones (uploads). */
    public Channel channel(String address)
    {
        return channels.computeIfAbsent(address, key -> GrpcChannels.forAddress(key, security));
    }

    @PreDestroy
    public void close()
    {
        channels.values().forEach(GrpcChannels::close);
        channels.clear();
    }
}
