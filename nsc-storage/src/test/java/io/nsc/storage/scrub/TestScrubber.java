package io.nsc.storage.scrub;

import com.google.protobuf.ByteString;
import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.nsc.storage.store.DamagedFile;
import io.nsc.storage.store.FileId;
import io.nsc.storage.store.FileUpload;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoreOptions;
import io.nsc.storage.store.StoredFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static io.nsc.storage.server.StorageTesting.fixture;
import static java.util.concurrent.TimeUnit.DAYS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

final class TestScrubber
{
    private static final int BLOCK = 1024;

    @TempDir
    private Path directory;

    private ParquetFileStore store;
    private byte[] data;

    @BeforeEach
    void setUp()
    {
        store = ParquetFileStore.open(List.of(directory), StoreOptions.DEFAULT.withChecksumBlockSize(BLOCK));
        data = fixture("all_types.parquet");
    }

    @Test
    void testHealthyFilePasses()
            throws Exception
    {
        StoredFile file = store(0);
        Scrubber scrubber = new Scrubber(store, DataSize.of(100, DataSize.Unit.MEGABYTE), new Duration(1, DAYS));

        assertThat(scrubber.scrub(file)).isEmpty();
        assertThat(scrubber.getFilesScrubbed().getTotalCount()).isEqualTo(1);
        assertThat(scrubber.getBytesScrubbed().getTotalCount()).isEqualTo(data.length);
    }

    @Test
    void testEveryKindOfDamageIsFound()
            throws Exception
    {
        Scrubber scrubber = new Scrubber(store, DataSize.of(100, DataSize.Unit.MEGABYTE), new Duration(1, DAYS));

        // a flipped bit in the middle of a block
        StoredFile flipped = store(1);
        byte[] bytes = data.clone();
        bytes[BLOCK * 3 + 17] ^= 0x10;
        Files.write(flipped.path(), bytes);
        assertThat(scrubber.scrub(flipped)).hasValueSatisfying(reason -> assertThat(reason).contains("block 3 (bytes 3072 to 4095) does not match its checksum"));

        // the last, short block
        StoredFile tail = store(2);
        bytes = data.clone();
        bytes[data.length - 1] ^= 0x01;
        Files.write(tail.path(), bytes);
        assertThat(scrubber.scrub(tail)).hasValueSatisfying(reason -> assertThat(reason).contains("block %s".formatted(data.length / BLOCK)));

        // a truncated file
        StoredFile truncated = store(3);
        Files.write(truncated.path(), Arrays.copyOf(data, data.length - 10));
        assertThat(scrubber.scrub(truncated)).hasValueSatisfying(reason -> assertThat(reason).contains("before the %s bytes recorded at upload".formatted(data.length)));

        // a damaged checksum file: the copy cannot be trusted either
        StoredFile badChecksums = store(4);
        byte[] checksums = Files.readAllBytes(badChecksums.checksumPath());
        checksums[30] ^= 0x01;
        Files.write(badChecksums.checksumPath(), checksums);
        assertThat(scrubber.scrub(badChecksums)).hasValueSatisfying(reason -> assertThat(reason).contains("block 1 "));
    }

    @Test
    void testPassQuarantinesAndReportsDamagedCopies()
            throws Exception
    {
        StoredFile good = store(5);
        StoredFile bad = store(6);
        byte[] bytes = data.clone();
        bytes[100] ^= 0x01;
        Files.write(bad.path(), bytes);

        try (Scrubber scrubber = new Scrubber(store, DataSize.of(100, DataSize.Unit.MEGABYTE), new Duration(1, SECONDS))) {
            scrubber.start();
            long deadline = System.nanoTime() + SECONDS.toNanos(30);
            while (scrubber.getPassesCompleted() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(scrubber.getPassesCompleted()).isPositive();
            assertThat(scrubber.getDamagedFound().getTotalCount()).isEqualTo(1);
            assertThat(scrubber.getCurrentPassDone()).isEqualTo(2);
        }
        assertThat(store.find(good.id())).contains(good);
        assertThat(store.find(bad.id())).isEmpty();
        assertThat(directory.resolve("quarantine").resolve(bad.id().value() + ".parquet")).hasBinaryContent(bytes);
        assertThat(store.takeDamagedFiles()).extracting(DamagedFile::id).containsExactly(bad.id());
    }

    @Test
    void testZeroRateTurnsScrubbingOff()
            throws Exception
    {
        store(7);
        try (Scrubber scrubber = new Scrubber(store, DataSize.ofBytes(0), new Duration(1, SECONDS))) {
            scrubber.start();
            // nothing to wait for: start() returns without starting a thread
            assertThat(scrubber.getPassesCompleted()).isZero();
            assertThat(scrubber.getCurrentPassFiles()).isZero();
        }
    }

    private StoredFile store(int index)
            throws Exception
    {
        FileId id = new FileId("%032x".formatted(index + 1));
        try (FileUpload upload = store.beginUpload(id, data.length, "test")) {
            upload.write(ByteString.copyFrom(data));
            return upload.finish().file();
        }
    }
}
