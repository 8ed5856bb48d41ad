package io.nsc.protocol.security;

import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.stub.MetadataUtils;

import java.util.Optional;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

/**
 * The person a client acts for, and the query it runs: Trino's user and query id, which the
 * connector sends in the headers of its calls. A certificate says which component calls (every
 * Trino node holds the same {@code client:trino}); this says for whom, so that the audit log can
 * name who dropped a table. The services do not authenticate it (Trino did, and only a caller
 * with a client certificate can send it): it is recorded, never used to decide.
 */
public record EndUser(String user, String queryId)
{
    // at most this many characters of each are kept: a header is the caller's text, and goes into the audit log
    static final int MAX_LENGTH = 256;
    private static final Metadata.Key<byte[]> USER_HEADER = Metadata.Key.of("nsc-end-user-bin", Metadata.BINARY_BYTE_MARSHALLER);
    private static final Metadata.Key<byte[]> QUERY_HEADER = Metadata.Key.of("nsc-query-id-bin", Metadata.BINARY_BYTE_MARSHALLER);
    private static final Context.Key<EndUser> CURRENT = Context.key("nsc-end-user");

    public EndUser
    {
        user = truncate(requireNonNull(user, "user is null"));
        queryId = truncate(requireNonNull(queryId, "queryId is null"));
    }

    /** Adds this user and query to every call of a stub. */
    public ClientInterceptor headers()
    {
        Metadata headers = new Metadata();
        headers.put(USER_HEADER, user.getBytes(UTF_8));
        headers.put(QUERY_HEADER, queryId.getBytes(UTF_8));
        return MetadataUtils.newAttachHeadersInterceptor(headers);
    }

    /** The user and query the current call is made for; empty when the caller named none (a tool, a storage node). */
    public static Optional<EndUser> current()
    {
        return Optional.ofNullable(CURRENT.get());
    }

    /** Makes the headers of each call available to its service through {@link #current()}. */
    public static ServerInterceptor serverInterceptor()
    {
        return new ServerInterceptor()
        {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next)
            {
                byte[] user = headers.get(USER_HEADER);
                if (user == null) {
                    return next.startCall(call, headers);
                }
                byte[] query = headers.get(QUERY_HEADER);
                EndUser endUser = new EndUser(new String(user, UTF_8), query == null ? "" : new String(query, UTF_8));
                return Contexts.interceptCall(Context.current().withValue(CURRENT, endUser), call, headers, next);
            }
        };
    }

    private static String truncate(String value)
    {
        return value.length() <= MAX_LENGTH ? value : value.substring(0, MAX_LENGTH);
    }
}
