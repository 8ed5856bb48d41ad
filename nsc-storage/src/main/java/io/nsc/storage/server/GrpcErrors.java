package io.nsc.storage.server;

import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.memory.MemoryLimitExceededException;

import java.io.IOException;

/** Turns whatever a handler threw into the status the client sees. */
final class GrpcErrors
{
    private static final Logger log = Logger.get(GrpcErrors.class);

    private GrpcErrors() {}

    static StatusRuntimeException toStatusException(Throwable throwable)
    {
        if (throwable instanceof StatusRuntimeException statusException) {
            return statusException;
        }
        if (throwable instanceof MemoryLimitExceededException) {
            // a request too expensive for the node, not a bug: the message says which limit
            return Status.RESOURCE_EXHAUSTED.withDescription(throwable.getMessage()).asRuntimeException();
        }
        if (throwable instanceof IOException) {
            log.error(throwable, "I/O error");
            return Status.INTERNAL.withDescription("I/O error on the storage node: " + throwable.getMessage()).withCause(throwable).asRuntimeException();
        }
        // a bug: log it here, where the stack trace is still at hand
        log.error(throwable, "Unexpected error");
        return Status.INTERNAL.withDescription("Unexpected error on the storage node: " + throwable).withCause(throwable).asRuntimeException();
    }
}
