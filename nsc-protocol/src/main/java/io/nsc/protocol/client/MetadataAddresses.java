package io.nsc.protocol.client;

import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.common.net.HostAndPort;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.stream.Collectors.joining;

/**
 * The metadata services a client may talk to, in order of preference: every client uses the
 * first one that answers, so that all of them normally talk to the same instance, and moves on
 * to the next when it fails. Written like Hive's {@code hive.metastore.uri}: a comma-separated
 * list, one {@code host:port} per instance; a single address is a list of one.
 */
public record MetadataAddresses(List<HostAndPort> addresses)
{
    public MetadataAddresses
    {
        addresses = ImmutableList.copyOf(addresses);
        checkArgument(!addresses.isEmpty(), "at least one metadata service address is needed");
        Set<HostAndPort> seen = new HashSet<>();
        for (HostAndPort address : addresses) {
            checkArgument(address.hasPort(), "metadata service address '%s' has no port", address);
            checkArgument(seen.add(address), "metadata service address %s is listed twice", address);
        }
    }

    /**
     * Parses {@code host:port[,host:port...]}; blanks around entries are ignored.
     *
     * @throws IllegalArgumentException naming the entry that is not {@code host:port}, or listed twice
     */
    public static MetadataAddresses parse(String addresses)
    {
        checkArgument(addresses != null && !addresses.isBlank(), "at least one metadata service address is needed");
        ImmutableList.Builder<HostAndPort> parsed = ImmutableList.builder();
        for (String entry : Splitter.on(',').trimResults().split(addresses)) {
            parsed.add(parseEntry(entry));
        }
        return new MetadataAddresses(parsed.build());
    }

    private static HostAndPort parseEntry(String entry)
    {
        checkArgument(!entry.isEmpty(), "empty entry in the metadata service addresses: every entry must be host:port");
        HostAndPort address;
        try {
            address = HostAndPort.fromString(entry);
        }
        catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("metadata service address '%s' is not host:port".formatted(entry), e);
        }
        checkArgument(address.hasPort() && !address.getHost().isEmpty(), "metadata service address '%s' is not host:port", entry);
        return address;
    }

    /** The first address: what a client talks to while it answers. */
    public HostAndPort preferred()
    {
        return addresses.getFirst();
    }

    /** The addresses as they are configured: {@code host:port,host:port}. */
    @Override
    public String toString()
    {
        return addresses.stream().map(HostAndPort::toString).collect(joining(","));
    }
}
