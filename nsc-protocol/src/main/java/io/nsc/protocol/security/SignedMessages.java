package io.nsc.protocol.security;

import com.google.protobuf.ByteString;
import io.nsc.protocol.proto.FileAttestation;
import io.nsc.protocol.proto.GrantKey;
import io.nsc.protocol.proto.UploadGrant;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

import static java.nio.charset.StandardCharsets.UTF_8;

/**
 * The signatures of grants and attestations: HMAC-SHA256 over a fixed binary layout of the
 * fields (never over protobuf bytes, whose encoding is not canonical), with a key the metadata
 * service derives per storage node from its own secret. A node can thus check grants meant for
 * it and sign attestations as itself, but cannot forge either for another node.
 */
public final class SignedMessages
{
    private static final String HMAC = "HmacSHA256";

    private SignedMessages() {}

    /** The key of one storage node under the metadata service's secret. */
    public static GrantKey nodeKey(byte[] masterSecret, String nodeId)
    {
        return GrantKey.newBuilder()
                .setKeyId(keyId(masterSecret))
                .setSecret(ByteString.copyFrom(hmac(masterSecret, ("nsc node key\0" + nodeId).getBytes(UTF_8))))
                .build();
    }

    /** A short public name of a secret, so that a node can tell which key signed a grant. */
    public static String keyId(byte[] masterSecret)
    {
        return java.util.HexFormat.of().formatHex(sha256(masterSecret), 0, 8);
    }

    public static UploadGrant signGrant(GrantKey key, String fileId, String nodeId, long expiresAtMillis)
    {
        UploadGrant unsigned = UploadGrant.newBuilder()
                .setFileId(fileId)
                .setNodeId(nodeId)
                .setExpiresAtMillis(expiresAtMillis)
                .setKeyId(key.getKeyId())
                .build();
        return unsigned.toBuilder().setSignature(ByteString.copyFrom(hmac(key.getSecret().toByteArray(), grantPayload(unsigned)))).build();
    }

    public static boolean isValidSignature(GrantKey key, UploadGrant grant)
    {
        return key.getKeyId().equals(grant.getKeyId())
                && MessageDigest.isEqual(hmac(key.getSecret().toByteArray(), grantPayload(grant)), grant.getSignature().toByteArray());
    }

    public static FileAttestation signAttestation(GrantKey key, FileAttestation unsigned)
    {
        FileAttestation withKey = unsigned.toBuilder().setKeyId(key.getKeyId()).clearSignature().build();
        return withKey.toBuilder().setSignature(ByteString.copyFrom(hmac(key.getSecret().toByteArray(), attestationPayload(withKey)))).build();
    }

    public static boolean isValidSignature(GrantKey key, FileAttestation attestation)
    {
        return key.getKeyId().equals(attestation.getKeyId())
                && MessageDigest.isEqual(hmac(key.getSecret().toByteArray(), attestationPayload(attestation)), attestation.getSignature().toByteArray());
    }

    public static byte[] sha256(byte[] bytes)
    {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every JDK has SHA-256", e);
        }
    }

    private static byte[] grantPayload(UploadGrant grant)
    {
        return layout(out -> {
            out.writeUTF("nsc upload grant v1");
            out.writeUTF(grant.getFileId());
            out.writeUTF(grant.getNodeId());
            out.writeLong(grant.getExpiresAtMillis());
            out.writeUTF(grant.getKeyId());
        });
    }

    private static byte[] attestationPayload(FileAttestation attestation)
    {
        return layout(out -> {
            out.writeUTF("nsc file attestation v1");
            out.writeUTF(attestation.getFileId());
            out.writeUTF(attestation.getNodeId());
            out.writeLong(attestation.getSizeBytes());
            out.writeLong(attestation.getRowCount());
            out.writeInt(attestation.getCrc32C());
            byte[] statsHash = attestation.getCompactStatsSha256().toByteArray();
            out.writeInt(statsHash.length);
            out.write(statsHash);
            out.writeUTF(attestation.getKeyId());
        });
    }

    private interface Layout
    {
        void write(DataOutputStream out)
                throws IOException;
    }

    private static byte[] layout(Layout layout)
    {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            layout.write(out);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static byte[] hmac(byte[] key, byte[] payload)
    {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(payload);
        }
        catch (GeneralSecurityException e) {
            throw new IllegalStateException("Every JDK has " + HMAC, e);
        }
    }
}
