package io.nsc.protocol.server;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;

import static java.util.Objects.requireNonNull;

/**
 * How a server-streaming call that sends only when gRPC says the client can take more ends: it
 * completes, fails with a status, or the client cancels it; whichever comes first ends it, and
 * what the call holds (open files, memory) is released exactly once. A client that cancelled
 * hears nothing more. The subclass sends; this class ends.
 * <p>
 * Not thread-safe: the subclass runs every step of one call (the handler, gRPC's on-ready and
 * on-cancel callbacks, or its own executor's steps) one at a time.
 */
public abstract class StreamingServerCall<T>
{
    protected final ServerCallStreamObserver<T> call;
    private boolean ended;

    protected StreamingServerCall(ServerCallStreamObserver<T> call)
    {
        this.call = requireNonNull(call, "call is null");
    }

    /** Gives back what the call holds; called once, however the call ends. */
    protected abstract void release();

    /** Sees a failure before the client does (to count it); nothing by default. */
    protected void failing(StatusRuntimeException failure) {}

    protected final boolean ended()
    {
        return ended;
    }

    /** The last message was sent: the client learns that nothing more comes (this needs no readiness). */
    protected final void complete()
    {
        if (end()) {
            call.onCompleted();
        }
    }

    /** Ends the call with {@code failure}, unless it ended already. */
    protected final void fail(StatusRuntimeException failure)
    {
        if (!end()) {
            return;
        }
        failing(failure);
        if (!call.isCancelled()) {
            call.onError(failure);
        }
    }

    /**
     * Ends the call without a word to the client: it cancelled, or the caller tells it itself.
     * False when the call had ended already.
     */
    protected final boolean end()
    {
        if (ended) {
            return false;
        }
        ended = true;
        release();
        return true;
    }
}
