package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.airlift.json.JsonCodec;
import io.airlift.json.JsonCodecFactory;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAttestation;

import java.util.Base64;
import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * One file a page sink wrote and uploaded, as it travels from the worker to the coordinator's
 * commit: everything {@code CommitFiles} needs to register it, nothing more.
 *
 * @param crc32c CRC32C of the whole file, as the storage nodes computed it
 * @param compactStats the storage node's compact stats of the file, base64
 * @param replicaNodeIds the storage nodes holding the file, in placement order
 * @param columnSketches the writer's distinct-value sketches of the file's columns, base64 (empty: none)
 * @param attestations each replica node's signed account of what it stored ({@code FileAttestation}), base64
 */
public record NscWriteFragment(
        String fileId,
        long sizeBytes,
        long rowCount,
        int crc32c,
        String compactStats,
        List<String> replicaNodeIds,
        String columnSketches,
        List<String> attestations)
{
    // compact JSON: a statement may carry thousands of fragments to the coordinator
    private static final JsonCodec<NscWriteFragment> CODEC = new JsonCodecFactory().jsonCodec(NscWriteFragment.class);

    public NscWriteFragment
    {
        requireNonNull(fileId, "fileId is null");
        checkArgument(sizeBytes > 0, "sizeBytes must be positive: %s", sizeBytes);
        checkArgument(rowCount >= 0, "rowCount must not be negative: %s", rowCount);
        requireNonNull(compactStats, "compactStats is null");
        replicaNodeIds = ImmutableList.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
        checkArgument(!replicaNodeIds.isEmpty(), "file %s has no replica", fileId);
        requireNonNull(columnSketches, "columnSketches is null");
        attestations = ImmutableList.copyOf(requireNonNull(attestations, "attestations is null"));
    }

    public NscWriteFragment withColumnSketches(byte[] sketches)
    {
        return new NscWriteFragment(fileId, sizeBytes, rowCount, crc32c, compactStats, replicaNodeIds, Base64.getEncoder().encodeToString(sketches), attestations);
    }

    public Slice toSlice()
    {
        return Slices.wrappedBuffer(CODEC.toJsonBytes(this));
    }

    public static NscWriteFragment fromSlice(Slice slice)
    {
        return CODEC.fromJson(slice.getBytes());
    }

    public DataFile toDataFile()
    {
        return DataFile.newBuilder()
                .setFileId(fileId)
                .setSizeBytes(sizeBytes)
                .setRowCount(rowCount)
                .addAllReplicaNodeIds(replicaNodeIds)
                .setCompactStats(ByteString.copyFrom(Base64.getDecoder().decode(compactStats)))
                .setCrc32C(crc32c)
                .setColumnSketches(ByteString.copyFrom(Base64.getDecoder().decode(columnSketches)))
                .addAllAttestations(attestations.stream().map(NscWriteFragment::decodeAttestation).toList())
                .build();
    }

    public static NscWriteFragment fromDataFile(DataFile file)
    {
        return new NscWriteFragment(
                file.getFileId(),
                file.getSizeBytes(),
                file.getRowCount(),
                file.getCrc32C(),
                Base64.getEncoder().encodeToString(file.getCompactStats().toByteArray()),
                file.getReplicaNodeIdsList(),
                Base64.getEncoder().encodeToString(file.getColumnSketches().toByteArray()),
                file.getAttestationsList().stream().map(attestation -> Base64.getEncoder().encodeToString(attestation.toByteArray())).toList());
    }

    private static FileAttestation decodeAttestation(String base64)
    {
        try {
            return FileAttestation.parseFrom(Base64.getDecoder().decode(base64));
        }
        catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("Corrupt attestation in a write fragment: " + e.getMessage(), e);
        }
    }
}
