package io.nsc.trino.client;

import com.google.inject.Inject;
import io.grpc.Channel;
import io.nsc.protocol.client.StorageNodeChannels;
import io.nsc.protocol.proto.StorageServiceGrpc;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceBlockingStub;
import io.nsc.protocol.proto.StorageServiceGrpc.StorageServiceStub;
import io.nsc.protocol.security.TransportSecurity;
import jakarta.annotation.PreDestroy;

/**
 * The connector's stubs for the storage nodes, over one long-lived channel per node that
 * reconnects when a call needs it ({@link StorageNodeChannels}).
 */
public class StorageClients
{
    private final StorageNodeChannels channels;

    @Inject
    public StorageClients(TransportSecurity security)
    {
        this.channels = new StorageNodeChannels(security);
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
        return channels.channel(address);
    }

    @PreDestroy
    public void close()
    {
        channels.close();
    }
}
