package io.nsc.protocol.server;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What bounds a gRPC server's work: the threads its handlers run on (calls beyond them wait in
 * the executor's queue, which a connection's stream limit bounds in turn) and the calls one
 * client connection may have open at once (HTTP/2 MAX_CONCURRENT_STREAMS: more wait on the
 * client's side, not in the server's memory).
 *
 * @param threads the handler threads
 * @param maxConcurrentCallsPerConnection calls one connection may have open
 */
public record GrpcServerLimits(int threads, int maxConcurrentCallsPerConnection)
{
    public GrpcServerLimits
    {
        checkArgument(threads > 0, "threads must be positive");
        checkArgument(maxConcurrentCallsPerConnection > 0, "maxConcurrentCallsPerConnection must be positive");
    }
}
