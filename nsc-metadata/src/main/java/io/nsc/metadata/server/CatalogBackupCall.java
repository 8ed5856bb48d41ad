package io.nsc.metadata.server;

import com.google.protobuf.UnsafeByteOperations;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.nsc.metadata.backup.CatalogBackups;
import io.nsc.metadata.backup.CatalogBackups.Backup;
import io.nsc.metadata.security.CatalogAuditLog;
import io.nsc.protocol.proto.BackupCatalogResponse;
import io.nsc.protocol.security.EndUser;
import io.nsc.protocol.security.PeerAuthentication;
import io.nsc.protocol.server.StreamingServerCall;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import static java.nio.file.StandardOpenOption.READ;
import static java.util.Objects.requireNonNull;

/**
 * One BackupCatalog call: makes the backup file, then streams it, producing a message only when
 * gRPC says the client can take one, so a slow client holds the service to one chunk in memory.
 * The file is deleted however the call ends.
 * <p>
 * gRPC runs the handler and the on-ready and on-cancel callbacks of one call serially, so the
 * state here needs no locking.
 */
final class CatalogBackupCall
        extends StreamingServerCall<BackupCatalogResponse>
{
    private static final Logger log = Logger.get(CatalogBackupCall.class);
    private static final String METHOD = "BackupCatalog";
    private static final int CHUNK_BYTES = 1024 * 1024;

    private final CatalogBackups backups;
    private final CatalogAuditLog audit;
    private final MetadataStats stats;

    private Backup backup;
    private FileChannel channel;
    private long sent;

    CatalogBackupCall(CatalogBackups backups, CatalogAuditLog audit, MetadataStats stats, ServerCallStreamObserver<BackupCatalogResponse> call)
    {
        super(call);
        this.backups = requireNonNull(backups, "backups is null");
        this.audit = requireNonNull(audit, "audit is null");
        this.stats = requireNonNull(stats, "stats is null");
    }

    void start()
    {
        call.setOnCancelHandler(this::cancel);
        call.setOnReadyHandler(this::drain);
        try {
            backup = backups.create();
            channel = FileChannel.open(backup.file(), READ);
        }
        catch (StatusRuntimeException e) {
            audit.record(PeerAuthentication.caller(), EndUser.current(), METHOD, "catalog", e.getStatus().getCode().name());
            stats.rpcFailed(false);
            fail(e);
            return;
        }
        catch (IOException | RuntimeException e) {
            audit.record(PeerAuthentication.caller(), EndUser.current(), METHOD, "catalog", "INTERNAL");
            stats.rpcFailed(true);
            log.error(e, "Catalog backup failed");
            fail(Status.INTERNAL.withDescription("Catalog backup failed: " + e.getMessage()).withCause(e).asRuntimeException());
            return;
        }
        // who copied the whole catalog is worth knowing, like who changed it
        audit.record(PeerAuthentication.caller(), EndUser.current(), METHOD, "catalog (%s bytes)".formatted(backup.sizeBytes()), "OK");
        call.onNext(BackupCatalogResponse.newBuilder()
                .setClusterId(backup.manifest().clusterId())
                .setSchemaVersion(backup.manifest().schemaVersion())
                .setSizeBytes(backup.sizeBytes())
                .build());
        drain();
    }

    private void drain()
    {
        if (ended() || channel == null) {
            return;
        }
        try {
            while (!ended() && call.isReady()) {
                if (sent == backup.sizeBytes()) {
                    complete();
                    return;
                }
                ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(CHUNK_BYTES, backup.sizeBytes() - sent));
                while (chunk.hasRemaining()) {
                    if (channel.read(chunk, sent + chunk.position()) < 0) {
                        throw new IOException("%s ended after %s of %s bytes".formatted(backup.file(), sent + chunk.position(), backup.sizeBytes()));
                    }
                }
                chunk.flip();
                // the buffer is never touched again, so the message may wrap it
                call.onNext(BackupCatalogResponse.newBuilder().setData(UnsafeByteOperations.unsafeWrap(chunk)).build());
                sent += chunk.limit();
            }
        }
        catch (IOException | RuntimeException e) {
            log.error(e, "Sending the catalog backup failed");
            fail(Status.INTERNAL.withDescription("Sending the catalog backup failed: " + e.getMessage()).withCause(e).asRuntimeException());
        }
    }

    private void cancel()
    {
        if (end()) {
            log.info("Catalog backup cancelled by the client after %s bytes", sent);
        }
    }

    @Override
    protected void release()
    {
        if (channel != null) {
            try {
                channel.close();
            }
            catch (IOException e) {
                log.warn(e, "Cannot close %s", backup.file());
            }
        }
        if (backup != null) {
            backup.close();
        }
    }
}
