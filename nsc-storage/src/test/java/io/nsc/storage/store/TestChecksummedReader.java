package io.nsc.storage.store;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.nsc.storage.server.StorageTesting.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

final class TestChecksummedReader
{
    private static final int BLOCK = 512;

    @TempDir
    Path directory;

    @Test
    void testEveryRangeReadsTheFileBytes()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        StoredFile file = store(StoreOptions.DEFAULT.withChecksumBlockSize(BLOCK), data);
        Random random = new Random(42);
        for (boolean verify : List.of(true, false)) {
            try (ChecksummedReader reader = ChecksummedReader.open(file, verify)) {
                // block edges, the short last block, empty reads, and random ranges
                List<long[]> ranges = new ArrayList<>(List.of(
                        new long[] {0, 0}, new long[] {0, BLOCK}, new long[] {BLOCK, BLOCK}, new long[] {BLOCK - 1, 2},
                        new long[] {10, 20}, new long[] {10, BLOCK - 10}, new long[] {0, data.length}, new long[] {data.length, 0},
                        new long[] {data.length - 1, 1}, new long[] {(long) data.length / BLOCK * BLOCK, data.length % BLOCK}, new long[] {3, data.length - 3}));
                for (int i = 0; i < 500; i++) {
                    int start = random.nextInt(data.length + 1);
                    ranges.add(new long[] {start, random.nextInt(data.length - start + 1)});
                }
                for (long[] range : ranges) {
                    byte[] buffer = new byte[(int) range[1] + 7];
                    reader.readFully(range[0], buffer, 7, (int) range[1]);
                    assertThat(Arrays.copyOfRange(buffer, 7, buffer.length))
                            .as("verify=%s, %s bytes at %s", verify, range[1], range[0])
                            .isEqualTo(Arrays.copyOfRange(data, (int) range[0], (int) (range[0] + range[1])));
                }
            }
        }
    }

    @Test
    void testOnlyTheBlocksOfARangeAreChecked()
            throws Exception
    {
        byte[] data = fixture("all_types.parquet");
        StoredFile file = store(StoreOptions.DEFAULT.withChecksumBlockSize(BLOCK), data);
        byte[] damaged = data.clone();
        damaged[3 * BLOCK + 5] ^= 0x01;
        Files.write(file.path(), damaged);
        try (ChecksummedReader reader = ChecksummedReader.open(file, true)) {
            byte[] buffer = new byte[100];
            reader.readFully(2 * BLOCK + 10, buffer, 0, 100);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(data, 2 * BLOCK + 10, 2 * BLOCK + 110));
            // a range touching the damaged block, at its start, its middle or across it
            for (long position : List.of(3L * BLOCK - 3, 3L * BLOCK, 3L * BLOCK + 100, 4L * BLOCK - 1)) {
                assertThatThrownBy(() -> reader.readFully(position, buffer, 0, 10))
                        .isInstanceOf(CorruptBlockException.class)
                        .hasMessageContaining("block 3 ");
            }
        }
        try (ChecksummedReader reader = ChecksummedReader.open(file, false)) {
            byte[] buffer = new byte[10];
            reader.readFully(3L * BLOCK, buffer, 0, 10);
            assertThat(buffer).isEqualTo(Arrays.copyOfRange(damaged, 3 * BLOCK, 3 * BLOCK + 10));
        }
    }

    private StoredFile store(StoreOptions options, byte[] data)
            throws Exception
    {
        ParquetFileStore store = ParquetFileStore.open(List.of(directory), options);
        try (FileUpload upload = store.beginUpload(new FileId("0123456789abcdef0123456789abcdef"), data.length, "test")) {
            upload.write(ByteString.copyFrom(data));
            return upload.finish().file();
        }
    }
}
