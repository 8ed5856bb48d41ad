package io.nsc.protocol.security;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Authenticates every call by its client certificate and authorizes it by the role the
 * certificate names, before any request message is read. The caller's identity is then
 * available to the service through {@link #caller()}.
 */
public final class PeerAuthentication
        implements ServerInterceptor
{
    private static final Context.Key<PeerIdentity> CALLER = Context.key("nsc-caller");

    private final AccessPolicy policy;

    public PeerAuthentication(AccessPolicy policy)
    {
        this.policy = requireNonNull(policy, "policy is null");
    }

    /**
     * The authenticated caller of the current call; empty on an insecure server, where there is
     * nobody to check.
     */
    public static Optional<PeerIdentity> caller()
    {
        return Optional.ofNullable(CALLER.get());
    }

    /** Refuses the current call unless it comes from the storage node {@code nodeId} itself (or the server is insecure). */
    public static void requireStorageNode(String nodeId)
    {
        caller().ifPresent(caller -> {
            if (caller.role() != ComponentRole.STORAGE || !caller.name().equals(nodeId)) {
                throw Status.PERMISSION_DENIED
                        .withDescription("%s may not act as storage node '%s': a node speaks only for the node id in its certificate".formatted(caller, nodeId))
                        .asRuntimeException();
            }
        });
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next)
    {
        Optional<PeerIdentity> identity = peerIdentity(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
        if (identity.isEmpty()) {
            return refuse(call, Status.UNAUTHENTICATED.withDescription(
                    "nsc needs a client certificate issued by the cluster CA that names a role (OU=nsc-client, nsc-storage or nsc-metadata)"));
        }
        String method = call.getMethodDescriptor().getFullMethodName();
        Optional<Set<ComponentRole>> allowed = policy.allowedRoles(method);
        if (allowed.isEmpty() || !allowed.get().contains(identity.get().role())) {
            String who = allowed.map(roles -> roles.stream().map(ComponentRole::displayName).sorted().collect(Collectors.joining(" or "))).orElse("nobody");
            return refuse(call, Status.PERMISSION_DENIED.withDescription(
                    "%s may not call %s (allowed: %s)".formatted(identity.get(), method, who)));
        }
        return Contexts.interceptCall(Context.current().withValue(CALLER, identity.get()), call, headers, next);
    }

    // Every call of a connection shares its session: parse the certificate's subject once per session.
    private static final String SESSION_IDENTITY = "nsc.peer-identity";

    private static Optional<PeerIdentity> peerIdentity(SSLSession session)
    {
        if (session == null) {
            return Optional.empty();
        }
        if (session.getValue(SESSION_IDENTITY) instanceof PeerIdentity known) {
            return Optional.of(known);
        }
        Optional<PeerIdentity> identity = certificateIdentity(session);
        identity.ifPresent(value -> session.putValue(SESSION_IDENTITY, value));
        return identity;
    }

    private static Optional<PeerIdentity> certificateIdentity(SSLSession session)
    {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        }
        catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate certificate)) {
            return Optional.empty();
        }
        return PeerIdentity.fromCertificate(certificate);
    }

    private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Status status)
    {
        call.close(status, new Metadata());
        return new ServerCall.Listener<>() {};
    }
}
