package io.nsc.protocol.client;

import com.google.common.collect.ImmutableList;
import com.google.common.net.HostAndPort;
import io.grpc.Attributes;
import io.grpc.EquivalentAddressGroup;
import io.grpc.NameResolver;
import io.grpc.Status;
import io.grpc.SynchronizationContext;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;

import static com.google.common.base.Preconditions.checkState;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static java.util.Objects.requireNonNull;

/**
 * Resolves a channel to every configured metadata service, in the configured order, so that
 * {@code pick_first} talks to the first one that accepts a connection. Each address becomes its
 * own address group carrying its {@code host:port} as authority: TLS checks each instance's
 * certificate against the name it is configured by, as for a channel to that address alone.
 * Host names are looked up anew on every refresh (pick_first asks for one when no address
 * answers), off the channel's synchronization context since a lookup blocks.
 */
final class MetadataAddressNameResolver
        extends NameResolver
{
    static final String SCHEME = "nsc-metadata";

    private final MetadataAddresses addresses;
    private final Executor lookUpExecutor;
    private final SynchronizationContext synchronizationContext;

    // guarded by the synchronization context
    private Listener2 listener;
    private boolean lookingUp;
    private boolean shutdown;

    private MetadataAddressNameResolver(MetadataAddresses addresses, Executor lookUpExecutor, SynchronizationContext synchronizationContext)
    {
        this.addresses = requireNonNull(addresses, "addresses is null");
        this.lookUpExecutor = requireNonNull(lookUpExecutor, "lookUpExecutor is null");
        this.synchronizationContext = requireNonNull(synchronizationContext, "synchronizationContext is null");
    }

    /** A factory for channels whose target is {@code nsc-metadata:///...}: the channel's addresses are {@code addresses}. */
    static NameResolver.Factory factory(MetadataAddresses addresses)
    {
        requireNonNull(addresses, "addresses is null");
        return new NameResolver.Factory()
        {
            @Override
            public NameResolver newNameResolver(URI targetUri, Args args)
            {
                if (!SCHEME.equals(targetUri.getScheme())) {
                    return null;
                }
                return new MetadataAddressNameResolver(addresses, args.getOffloadExecutor(), args.getSynchronizationContext());
            }

            @Override
            public String getDefaultScheme()
            {
                return SCHEME;
            }
        };
    }

    @Override
    public String getServiceAuthority()
    {
        return addresses.preferred().toString();
    }

    @Override
    public void start(Listener2 listener)
    {
        checkState(this.listener == null, "already started");
        this.listener = requireNonNull(listener, "listener is null");
        lookUp();
    }

    @Override
    public void refresh()
    {
        checkState(listener != null, "not started");
        lookUp();
    }

    @Override
    public void shutdown()
    {
        shutdown = true;
    }

    private void lookUp()
    {
        if (lookingUp || shutdown) {
            return;
        }
        lookingUp = true;
        lookUpExecutor.execute(() -> {
            LookUp result = lookUpAll(addresses.addresses());
            synchronizationContext.execute(() -> deliver(result));
        });
    }

    private void deliver(LookUp result)
    {
        lookingUp = false;
        if (shutdown) {
            return;
        }
        if (result.groups().isEmpty()) {
            listener.onError(Status.UNAVAILABLE.withDescription("No metadata service address could be resolved: " + String.join("; ", result.failures())));
            return;
        }
        // an instance whose name does not resolve now is left out until the next refresh; the others still serve
        listener.onResult2(ResolutionResult.newBuilder()
                .setAddresses(result.groups())
                .setAttributes(Attributes.EMPTY)
                .build());
    }

    private static LookUp lookUpAll(List<HostAndPort> addresses)
    {
        ImmutableList.Builder<EquivalentAddressGroup> groups = ImmutableList.builder();
        List<String> failures = new ArrayList<>();
        for (HostAndPort address : addresses) {
            try {
                List<SocketAddress> socketAddresses = Arrays.stream(InetAddress.getAllByName(address.getHost()))
                        .<SocketAddress>map(inetAddress -> new InetSocketAddress(inetAddress, address.getPort()))
                        .collect(toImmutableList());
                Attributes attributes = Attributes.newBuilder()
                        .set(EquivalentAddressGroup.ATTR_AUTHORITY_OVERRIDE, address.toString())
                        .build();
                groups.add(new EquivalentAddressGroup(socketAddresses, attributes));
            }
            catch (UnknownHostException e) {
                failures.add("unknown host " + address.getHost());
            }
        }
        return new LookUp(groups.build(), List.copyOf(failures));
    }

    private record LookUp(List<EquivalentAddressGroup> groups, List<String> failures)
    {
        LookUp
        {
            groups = ImmutableList.copyOf(groups);
            failures = ImmutableList.copyOf(failures);
        }
    }
}
