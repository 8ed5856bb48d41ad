package io.nsc.storage.store;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static io.nsc.storage.server.StorageTesting.filesUnder;
import static io.nsc.storage.server.StorageTesting.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Placement and reservations over data directories whose free space the test sets (a real full
 * disk is TestFullDisk's): uploads reserve what they announce, so concurrent ones never count on
 * the same free bytes, and the node reports what is left.
 */
final class TestUploadReservations
{
    private static final long MB = 1024 * 1024;

    @TempDir
    Path disk1;
    @TempDir
    Path disk2;

    @Test
    void testUploadsReserveWhatTheyAnnounce()
            throws Exception
    {
        FakeSpace space1 = new FakeSpace(10 * MB);
        FakeSpace space2 = new FakeSpace(6 * MB);
        // 1 MB kept free on each: rooms of 9 MB and 5 MB
        ParquetFileStore store = open(MB, new DataDirectory(disk1, space1), new DataDirectory(disk2, space2));
        assertThat(store.getFreeBytes()).isEqualTo(14 * MB);

        FileUpload first = store.beginUpload(randomId(), 6 * MB, "first");
        // the most room first; the reservation counts against it at once
        assertThat(filesUnder(disk1.resolve("tmp"))).hasSize(1);
        assertThat(store.getReservedBytes()).isEqualTo(6 * MB);
        assertThat(store.getFreeBytes()).isEqualTo(8 * MB);

        FileUpload second = store.beginUpload(randomId(), 4 * MB, "second");
        assertThat(filesUnder(disk2.resolve("tmp"))).hasSize(1);
        assertThat(store.getFreeBytes()).isEqualTo(4 * MB);

        // 3 MB left on disk1 and 1 MB on disk2: a 4 MB file fits on neither, though 14 MB were free at the start
        FileId third = randomId();
        assertThatThrownBy(() -> store.beginUpload(third, 4 * MB, "third"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).isEqualTo(
                            "No data directory has room for file %s of %s bytes: the most is %s bytes in %s (usable %s, still to be written by uploads in progress %s, kept free by storage.reserved-space %s)"
                                    .formatted(third, 4 * MB, 3 * MB, disk1, 10 * MB, 6 * MB, MB));
                });
        // a refused upload holds nothing, not even its id
        assertThat(store.getReservedBytes()).isEqualTo(10 * MB);

        // writing hands the bytes over to the file system: the room stays what it was
        first.write(ByteString.copyFrom(new byte[(int) MB]));
        space1.used(MB);
        assertThat(store.getReservedBytes()).isEqualTo(9 * MB);
        assertThat(store.getFreeBytes()).isEqualTo(4 * MB);

        // an upload that ends, however it ends, returns what it did not write
        first.close();
        space1.used(-MB);
        assertThat(store.getReservedBytes()).isEqualTo(4 * MB);
        FileUpload retried = store.beginUpload(third, 4 * MB, "third");
        retried.close();
        second.close();
        assertThat(store.getReservedBytes()).isZero();
        assertThat(store.getFreeBytes()).isEqualTo(14 * MB);
        assertThat(filesUnder(disk1.resolve("tmp"))).isEmpty();
        assertThat(filesUnder(disk2.resolve("tmp"))).isEmpty();
    }

    @Test
    void testFinishedUploadReleasesItsReservation()
            throws Exception
    {
        FakeSpace space = new FakeSpace(10 * MB);
        ParquetFileStore store = open(0, new DataDirectory(disk1, space));
        byte[] data = fixture("all_types.parquet");
        FileUpload upload = store.beginUpload(randomId(), data.length, "all_types.parquet");
        upload.write(ByteString.copyFrom(data));
        space.used(data.length);
        assertThat(upload.finish().file().sizeBytes()).isEqualTo(data.length);
        assertThat(store.getReservedBytes()).isZero();
        assertThat(store.getFreeBytes()).isEqualTo(10 * MB - data.length);
    }

    @Test
    void testConcurrentUploadsNeverOverbook()
            throws Exception
    {
        // room for exactly ten 1 MB files beside the 2 MB reserve
        ParquetFileStore store = open(2 * MB, new DataDirectory(disk1, new FakeSpace(12 * MB)));
        int uploads = 40;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<FileUpload>> results = new ArrayList<>();
        try (ExecutorService executor = Executors.newFixedThreadPool(8)) {
            for (int i = 0; i < uploads; i++) {
                Callable<FileUpload> begin = () -> {
                    start.await();
                    return store.beginUpload(randomId(), MB, "concurrent");
                };
                results.add(executor.submit(begin));
            }
            start.countDown();
        }
        List<FileUpload> admitted = new ArrayList<>();
        int exhausted = 0;
        for (Future<FileUpload> result : results) {
            try {
                admitted.add(result.get());
            }
            catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOfSatisfying(StatusRuntimeException.class,
                        status -> assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
                exhausted++;
            }
        }
        assertThat(admitted).hasSize(10);
        assertThat(exhausted).isEqualTo(uploads - 10);
        assertThat(store.getReservedBytes()).isEqualTo(10 * MB);
        assertThat(store.getFreeBytes()).isZero();
        admitted.forEach(FileUpload::close);
        assertThat(store.getReservedBytes()).isZero();
    }

    @Test
    void testFreeBytesNeverNegative()
            throws Exception
    {
        // fuller than the reserve allows: no room, and no negative figure for the metadata service
        ParquetFileStore store = open(5 * MB, new DataDirectory(disk1, new FakeSpace(3 * MB)));
        assertThat(store.getFreeBytes()).isZero();
        assertThatThrownBy(() -> store.beginUpload(randomId(), 1, "tiny"))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    }

    private static ParquetFileStore open(long systemReserveBytes, DataDirectory... directories)
    {
        return ParquetFileStore.openDirectories(List.of(directories), StoreOptions.DEFAULT.withReservedSpace(systemReserveBytes));
    }

    private static FileId randomId()
    {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return new FileId("%016x%016x".formatted(random.nextLong(), random.nextLong()));
    }

    /** A file system whose usable bytes the test sets; capacity is twice the initial free space. */
    private static final class FakeSpace
            implements DiskSpace
    {
        private final AtomicLong usable;
        private final long total;

        private FakeSpace(long usable)
        {
            this.usable = new AtomicLong(usable);
            this.total = 2 * usable;
        }

        /** As if {@code bytes} more were written to the disk (negative: freed). */
        void used(long bytes)
        {
            usable.addAndGet(-bytes);
        }

        @Override
        public long usableBytes(Path directory)
        {
            return usable.get();
        }

        @Override
        public long totalBytes(Path directory)
        {
            return total;
        }
    }
}
