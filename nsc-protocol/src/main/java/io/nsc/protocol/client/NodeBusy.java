package io.nsc.protocol.client;

import io.grpc.Metadata;
import io.grpc.Status;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * How a storage node says it is too busy for a request now, as opposed to the request being too
 * big for it: RESOURCE_EXHAUSTED with the {@value #RETRY_AFTER_MILLIS_KEY} trailer, the
 * milliseconds after which this node may have room again. A request refused without the trailer
 * exceeded its own budget, and every replica would refuse it the same way.
 */
public final class NodeBusy
{
    public static final String RETRY_AFTER_MILLIS_KEY = "nsc-retry-after-ms";
    public static final Metadata.Key<String> RETRY_AFTER_MILLIS = Metadata.Key.of(RETRY_AFTER_MILLIS_KEY, Metadata.ASCII_STRING_MARSHALLER);

    private NodeBusy() {}

    /** The retry hint of a failure that says the node was busy; empty for any other failure. */
    public static OptionalLong retryAfterMillis(Throwable failure)
    {
        if (Status.fromThrowable(failure).getCode() != Status.Code.RESOURCE_EXHAUSTED) {
            return OptionalLong.empty();
        }
        Optional<String> hint = Optional.ofNullable(Status.trailersFromThrowable(failure)).map(trailers -> trailers.get(RETRY_AFTER_MILLIS));
        if (hint.isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Math.max(0, Long.parseLong(hint.get())));
        }
        catch (NumberFormatException e) {
            // busy all the same: the hint is only advice
            return OptionalLong.of(0);
        }
    }
}
