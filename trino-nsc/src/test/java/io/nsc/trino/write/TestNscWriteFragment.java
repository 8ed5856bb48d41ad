package io.nsc.trino.write;

import com.google.protobuf.ByteString;
import io.airlift.slice.Slice;
import io.nsc.protocol.proto.DataFile;
import org.junit.jupiter.api.Test;

import java.util.Base64;
import java.util.List;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestNscWriteFragment
{
    private static final byte[] STATS = {0, 1, 2, (byte) 0xFF, 127, -128};

    @Test
    void testJsonRoundTrip()
    {
        // a CRC32C above 2^31 is a negative int: it must survive as the same bits
        NscWriteFragment fragment = new NscWriteFragment("0123456789abcdef0123456789abcdef", 12345, 678, 0xCAFEBABE, Base64.getEncoder().encodeToString(STATS), List.of("storage-2", "storage-1"), "", List.of());
        Slice json = fragment.toSlice();
        assertThat(json.toString(UTF_8))
                .contains("\"fileId\":\"0123456789abcdef0123456789abcdef\"")
                .contains("\"compactStats\":\"AAEC/3+A\"")
                .contains("\"replicaNodeIds\":[\"storage-2\",\"storage-1\"]");
        assertThat(NscWriteFragment.fromSlice(json)).isEqualTo(fragment);
    }

    @Test
    void testDataFileRoundTrip()
    {
        DataFile file = DataFile.newBuilder()
                .setFileId("0123456789abcdef0123456789abcdef")
                .setSizeBytes(4096)
                .setRowCount(0)
                .addReplicaNodeIds("storage-3")
                .setCompactStats(ByteString.copyFrom(STATS))
                .setCrc32C(0x80000000)
                .build();
        NscWriteFragment fragment = NscWriteFragment.fromDataFile(file);
        assertThat(fragment.crc32c()).isEqualTo(Integer.MIN_VALUE);
        assertThat(NscWriteFragment.fromSlice(fragment.toSlice()).toDataFile()).isEqualTo(file);
    }

    @Test
    void testRefusesIncompleteFragments()
    {
        assertThatThrownBy(() -> new NscWriteFragment("f", 10, 1, 0, "", List.of(), "", List.of()))
                .hasMessage("file f has no replica");
        assertThatThrownBy(() -> new NscWriteFragment("f", 0, 1, 0, "", List.of("storage-1"), "", List.of()))
                .hasMessage("sizeBytes must be positive: 0");
    }
}
