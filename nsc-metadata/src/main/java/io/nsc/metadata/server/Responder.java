package io.nsc.metadata.server;

import com.google.inject.Inject;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.nsc.metadata.security.CatalogAuditLog;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.PeerAuthentication;

import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Answers one unary call of the metadata service: the call's response, or its failure as a gRPC
 * status, counted in the stats; calls that change the catalog are also audited.
 */
final class Responder
{
    // failures keep the logger they always had, so log levels set for the service still apply
    private static final Logger log = Logger.get(MetadataGrpcService.class);

    private final MetadataStats stats;
    private final CatalogAuditLog audit;

    @Inject
    Responder(MetadataStats stats, CatalogAuditLog audit)
    {
        this.stats = requireNonNull(stats, "stats is null");
        this.audit = requireNonNull(audit, "audit is null");
    }

    /** Runs one call that changes the catalog, and records who asked for what and how it ended. */
    <T> void audited(String method, String target, StreamObserver<T> observer, Supplier<T> call)
    {
        respond(method, observer, () -> {
            T response;
            try {
                response = call.get();
            }
            catch (StatusRuntimeException e) {
                audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, e.getStatus().getCode().name());
                throw e;
            }
            catch (RuntimeException e) {
                audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, "INTERNAL");
                throw e;
            }
            audit.record(PeerAuthentication.caller(), EndUser.current(), method, target, "OK");
            return response;
        });
    }

    /**
     * Runs one call. Statuses raised on purpose (bad input, missing objects, conflicts) go back
     * as they are; anything else is the service's own failure: logged, and reported as INTERNAL.
     */
    <T> void respond(String method, StreamObserver<T> observer, Supplier<T> call)
    {
        T response;
        try {
            response = call.get();
        }
        catch (StatusRuntimeException e) {
            stats.rpcFailed(false);
            log.debug("%s failed: %s", method, e.getStatus());
            observer.onError(e);
            return;
        }
        catch (RuntimeException e) {
            stats.rpcFailed(true);
            log.error(e, "%s failed", method);
            observer.onError(Status.INTERNAL.withDescription(method + " failed: " + e.getMessage()).withCause(e).asRuntimeException());
            return;
        }
        observer.onNext(response);
        observer.onCompleted();
    }
}
