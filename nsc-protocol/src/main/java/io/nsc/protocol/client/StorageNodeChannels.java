package io.nsc.protocol.client;

import io.grpc.Channel;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.nsc.protocol.security.TransportSecurity;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;

/**
 * One long-lived channel per storage node ({@code host:port}), for every client of storage nodes
 * (the connector's readers and writers, a node's repair copies): gRPC multiplexes all calls to a
 * node over it, so opening one per call would only add handshakes.
 * <p>
 * A channel whose node went away waits longer and longer between attempts to reconnect (gRPC's
 * backoff, up to two minutes), and every call in between fails at once: a node restarted after a
 * minute would be refused for about another minute, and a split whose other replica is down too
 * would fail although both nodes are up. So a call to a node whose channel is failing has it try
 * again now and waits for that one attempt (a connection's round trip where the node is back, a
 * refusal as fast where nothing listens; at most {@link #RECONNECT_WAIT_NANOS}), at most once per
 * {@link #RECONNECT_INTERVAL_NANOS}; between those tries calls still fail at once, and the reader
 * moves on to the next replica.
 */
public final class StorageNodeChannels
{
    private static final long RECONNECT_INTERVAL_NANOS = SECONDS.toNanos(1);
    private static final long RECONNECT_WAIT_NANOS = SECONDS.toNanos(1);

    private final ConcurrentMap<String, NodeChannel> channels = new ConcurrentHashMap<>();
    private final TransportSecurity security;

    public StorageNodeChannels(TransportSecurity security)
    {
        this.security = requireNonNull(security, "security is null");
    }

    /** The channel to the storage node at {@code address}; a failing one first tries to reconnect (see above). */
    public Channel channel(String address)
    {
        NodeChannel channel = channels.computeIfAbsent(address, key -> new NodeChannel(GrpcChannels.forStorageNode(key, security)));
        channel.reconnectIfFailing();
        return channel.channel();
    }

    public void close()
    {
        channels.values().forEach(channel -> GrpcChannels.close(channel.channel()));
        channels.clear();
    }

    private static final class NodeChannel
    {
        private final ManagedChannel channel;
        private final AtomicLong lastReconnectNanos;

        private NodeChannel(ManagedChannel channel)
        {
            this.channel = requireNonNull(channel, "channel is null");
            this.lastReconnectNanos = new AtomicLong(System.nanoTime() - RECONNECT_INTERVAL_NANOS);
        }

        ManagedChannel channel()
        {
            return channel;
        }

        void reconnectIfFailing()
        {
            if (channel.getState(false) != ConnectivityState.TRANSIENT_FAILURE) {
                return;
            }
            long last = lastReconnectNanos.get();
            long now = System.nanoTime();
            // one caller per interval: the others fail at once, as before, and try the next replica
            if (now - last >= RECONNECT_INTERVAL_NANOS && lastReconnectNanos.compareAndSet(last, now)) {
                channel.resetConnectBackoff();
                awaitAttempt(now + RECONNECT_WAIT_NANOS);
            }
        }

        /** Until the channel is ready, or its attempt failed, or the deadline passed. */
        private void awaitAttempt(long deadlineNanos)
        {
            boolean attempting = false;
            ConnectivityState state = channel.getState(false);
            while (state != ConnectivityState.READY) {
                if (state == ConnectivityState.CONNECTING) {
                    attempting = true;
                }
                else if (state == ConnectivityState.TRANSIENT_FAILURE && attempting) {
                    return;
                }
                CountDownLatch changed = new CountDownLatch(1);
                channel.notifyWhenStateChanged(state, changed::countDown);
                try {
                    if (!changed.await(deadlineNanos - System.nanoTime(), NANOSECONDS)) {
                        return;
                    }
                }
                catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                state = channel.getState(false);
            }
        }
    }
}
