package io.nsc.metadata.security;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.UploadGrant;
import io.nsc.protocol.security.SignedMessages;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyDirectory;
import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyFileAttributes;
import static java.util.Objects.requireNonNull;

/**
 * The metadata service's side of upload grants and storage attestations. With the embedded H2
 * catalog the secret lives in the service's data directory, outside the database, so that a
 * catalog backup never carries it; with PostgreSQL it lives in the catalog, because every service
 * over that catalog must sign grants and derive node keys alike. Either way grants and node keys
 * survive a restart; only the services and, per node, a key derived from the secret ever exist.
 */
public final class GrantAuthority
{
    public static final String SECRET_FILE = "grant-secret";
    private static final int SECRET_BYTES = 32;

    private final byte[] secret;
    private final Clock clock;
    private final Duration grantLifetime;

    public GrantAuthority(byte[] secret, Clock clock, Duration grantLifetime)
    {
        this.secret = requireNonNull(secret, "secret is null").clone();
        this.clock = requireNonNull(clock, "clock is null");
        this.grantLifetime = requireNonNull(grantLifetime, "grantLifetime is null");
    }

    /** Loads the secret from {@code dataDir}, creating it (readable by the owner only) on first start. */
    public static byte[] loadOrCreateSecret(Path dataDir)
    {
        Path file = dataDir.resolve(SECRET_FILE);
        try {
            if (Files.exists(file)) {
                byte[] secret = Files.readAllBytes(file);
                if (secret.length != SECRET_BYTES) {
                    throw new IllegalStateException("%s holds %s bytes, not %s: restore it from a backup of the data directory, or delete it (grants in flight then fail once)".formatted(file, secret.length, SECRET_BYTES));
                }
                return secret;
            }
            ownerOnlyDirectory(dataDir);
            byte[] secret = newSecret();
            Path temporary = Files.createTempFile(dataDir, SECRET_FILE, ".tmp", ownerOnlyFileAttributes(dataDir));
            Files.write(temporary, secret);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            return secret;
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read or create the grant secret " + file, e);
        }
    }

    /** A new random secret. */
    public static byte[] newSecret()
    {
        byte[] secret = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(secret);
        return secret;
    }

    /** The key of storage node {@code nodeId}: only ever handed to that node. */
    public GrantKey nodeKey(String nodeId)
    {
        return SignedMessages.nodeKey(secret, nodeId);
    }

    public UploadGrant grant(String fileId, String nodeId)
    {
        return SignedMessages.signGrant(nodeKey(nodeId), fileId, nodeId, clock.millis() + grantLifetime.toMillis());
    }

    /**
     * Refuses a committed file unless each of its replica nodes attested exactly the size, row
     * count, checksum and compact stats the commit carries: a writer cannot make the catalog
     * hold statistics no node derived from the stored bytes.
     */
    public void verifyAttested(DataFile file)
    {
        if (file.getReplicaNodeIdsCount() == 0) {
            throw denied("File %s names no replica", file.getFileId());
        }
        ByteString statsHash = ByteString.copyFrom(SignedMessages.sha256(file.getCompactStats().toByteArray()));
        for (String nodeId : file.getReplicaNodeIdsList()) {
            FileAttestation attestation = attestationOf(file.getAttestationsList(), nodeId)
                    .orElseThrow(() -> denied("File %s: storage node %s did not attest it; commit the attestation the node answered the upload with", file.getFileId(), nodeId));
            if (!SignedMessages.isValidSignature(nodeKey(nodeId), attestation)) {
                throw denied("File %s: the attestation of storage node %s does not carry that node's signature", file.getFileId(), nodeId);
            }
            if (!attestation.getFileId().equals(file.getFileId())) {
                throw denied("File %s: storage node %s attested file %s instead", file.getFileId(), nodeId, attestation.getFileId());
            }
            if (attestation.getSizeBytes() != file.getSizeBytes()
                    || attestation.getRowCount() != file.getRowCount()
                    || attestation.getCrc32C() != file.getCrc32C()
                    || !attestation.getCompactStatsSha256().equals(statsHash)) {
                throw denied("File %s: size, row count, checksum or statistics differ from what storage node %s stored and attested", file.getFileId(), nodeId);
            }
        }
    }

    private static Optional<FileAttestation> attestationOf(List<FileAttestation> attestations, String nodeId)
    {
        return attestations.stream().filter(attestation -> attestation.getNodeId().equals(nodeId)).findFirst();
    }

    @FormatMethod
    private static RuntimeException denied(@FormatString String format, Object... args)
    {
        return Status.PERMISSION_DENIED.withDescription(format.formatted(args)).asRuntimeException();
    }
}
