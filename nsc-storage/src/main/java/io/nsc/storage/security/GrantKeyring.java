package io.nsc.storage.security;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import com.google.protobuf.ByteString;
import io.airlift.log.Logger;
import io.grpc.Status;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.security.SignedMessages;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.StoredFile;

import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * This node's grant keys, as the metadata service hands them out at registration and with every
 * heartbeat: it checks the grant of each upload with them and signs what it stored. The key of
 * the previous secret is kept too, so a grant issued just before the service changed its secret
 * is still accepted.
 */
public final class GrantKeyring
{
    private static final Logger log = Logger.get(GrantKeyring.class);
    private static final int KEYS_KEPT = 2;

    private final String nodeId;
    private final boolean requireGrants;
    private final Clock clock;
    // key id -> key, oldest first; replaced whole under the lock, read without it
    private volatile Map<String, GrantKey> keys = Map.of();
    private volatile GrantKey current;

    public GrantKeyring(String nodeId, boolean requireGrants, Clock clock)
    {
        this.nodeId = requireNonNull(nodeId, "nodeId is null");
        this.requireGrants = requireGrants;
        this.clock = requireNonNull(clock, "clock is null");
    }

    public synchronized void keyReceived(GrantKey key)
    {
        if (key.getKeyId().isEmpty() || keys.containsKey(key.getKeyId())) {
            return;
        }
        Map<String, GrantKey> updated = new LinkedHashMap<>(keys);
        updated.put(key.getKeyId(), key);
        while (updated.size() > KEYS_KEPT) {
            updated.remove(updated.keySet().iterator().next());
        }
        keys = Map.copyOf(updated);
        current = key;
        log.info("Storage node %s received grant key %s", nodeId, key.getKeyId());
    }

    /**
     * Refuses an upload unless the metadata service granted this node this file id, recently.
     * A node running insecure accepts uploads without a grant, but still refuses a wrong one.
     */
    public void checkGrant(FileId fileId, Optional<UploadGrant> grant)
    {
        if (grant.isEmpty()) {
            if (requireGrants) {
                throw denied("Upload of %s: no grant. Allocate the file through the metadata service, which grants each replica node its upload", fileId);
            }
            return;
        }
        UploadGrant value = grant.get();
        if (!value.getFileId().equals(fileId.value()) || !value.getNodeId().equals(nodeId)) {
            throw denied("Upload of %s: the grant is for file %s on node %s, not for this file on node %s", fileId, value.getFileId(), value.getNodeId(), nodeId);
        }
        GrantKey key = keys.get(value.getKeyId());
        if (key == null) {
            throw Status.UNAVAILABLE
                    .withDescription("Upload of %s: storage node %s does not hold grant key %s yet (it gets keys from the metadata service at registration and heartbeats); retry shortly".formatted(fileId, nodeId, value.getKeyId()))
                    .asRuntimeException();
        }
        if (!SignedMessages.isValidSignature(key, value)) {
            throw denied("Upload of %s: the grant's signature is not the metadata service's", fileId);
        }
        if (value.getExpiresAtMillis() < clock.millis()) {
            throw denied("Upload of %s: the grant expired at %s; allocate the file again", fileId, java.time.Instant.ofEpochMilli(value.getExpiresAtMillis()));
        }
    }

    /** This node's signed statement of what it stored, or empty before it has a key. */
    public Optional<FileAttestation> attest(StoredFile file, CompactFileStats stats)
    {
        GrantKey key = current;
        if (key == null) {
            return Optional.empty();
        }
        return Optional.of(SignedMessages.signAttestation(key, describe(nodeId, file, stats)));
    }

    /** What this node stored, unsigned: all a node without TLS (and so without a key) can say. */
    public FileAttestation describe(StoredFile file, CompactFileStats stats)
    {
        return describe(nodeId, file, stats);
    }

    private static FileAttestation describe(String nodeId, StoredFile file, CompactFileStats stats)
    {
        return FileAttestation.newBuilder()
                .setFileId(file.id().value())
                .setNodeId(nodeId)
                .setSizeBytes(file.sizeBytes())
                .setRowCount(stats.rowCount())
                .setCrc32C(file.crc32c())
                .setCompactStatsSha256(ByteString.copyFrom(SignedMessages.sha256(stats.encoded())))
                .build();
    }

    @FormatMethod
    private static RuntimeException denied(@FormatString String format, Object... args)
    {
        return Status.PERMISSION_DENIED.withDescription(format.formatted(args)).asRuntimeException();
    }
}
