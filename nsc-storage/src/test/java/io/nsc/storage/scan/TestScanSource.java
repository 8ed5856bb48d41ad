package io.nsc.storage.scan;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.memory.MemoryBudget;
import io.nsc.parquet.scan.RowGroupPageIndexes;
import io.nsc.parquet.wire.RequestLimits;
import io.nsc.protocol.proto.ScanColumn;
import io.nsc.protocol.proto.ScanRequest;
import io.nsc.storage.cache.BoundedMetadataCache;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.memory.PoolReservation;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.Page;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The file a scan reads is held from the moment it is opened, so that a scan whose open fails
 * half-way still closes it and counts its disk reads; the reader's buffers are charged to the
 * scan's budget as they come and go.
 */
final class TestScanSource
{
    private static final ScanLimits LIMITS = new ScanLimits(1024 * 1024, 100, RequestLimits.DEFAULT, 64 * 1024 * 1024, 1024 * 1024);
    private static final ScanRequest REQUEST = ScanRequest.newBuilder()
            .addColumns(ScanColumn.newBuilder().setOrdinal(0).setType("integer").setOutput(true))
            .addRowGroups(0)
            .build();

    @TempDir
    private Path directory;

    private ParquetFileStore store;
    private StoredFile file;
    private NodeMemoryPool pool;
    private PoolReservation reservation;
    private MemoryBudget memory;
    private ScanSource source;

    @BeforeEach
    void setUp()
            throws Exception
    {
        StoredAllTypes stored = StoredAllTypes.in(directory);
        store = stored.store();
        file = stored.file();
        pool = new NodeMemoryPool(DataSize.of(256, DataSize.Unit.MEGABYTE), 10, new Duration(1, MINUTES));
        reservation = new PoolReservation(pool, LIMITS.admissionBytes());
        pool.admit(reservation.initialBytes()).get();
        reservation.admitted();
        memory = new MemoryBudget("Scan of file %s".formatted(file.id()), LIMITS.memoryBytes(), reservation);
        ScanCaches caches = new ScanCaches(
                new BoundedMetadataCache<>(DataSize.of(1, DataSize.Unit.MEGABYTE), ParsedFooter::retainedBytes),
                new BoundedMetadataCache<>(DataSize.of(1, DataSize.Unit.MEGABYTE), RowGroupPageIndexes::retainedBytes));
        ScanStatuses statuses = new ScanStatuses(store, file, NearStorageScanner.Counters.zero());
        source = new ScanSource(store, file, caches, ParquetReaderOptions.defaultOptions(), memory, reservation, statuses);
    }

    @AfterEach
    void tearDown()
    {
        reservation.close();
        assertThat(pool.getReservedBytes()).isZero();
        pool.close();
    }

    @Test
    void testReadsThePlansRows()
            throws Exception
    {
        assertThat(source.fileOpened()).isFalse();
        assertThat(source.readerOpened()).isFalse();

        source.open(plan(REQUEST), REQUEST.getRowGroupsList());
        assertThat(source.fileOpened()).isTrue();
        assertThat(source.readerOpened()).isTrue();
        long rows = 0;
        for (Page page = source.nextPage(); page != null; page = source.nextPage()) {
            assertThat(page.getChannelCount()).isEqualTo(1);
            rows += page.getPositionCount();
        }
        assertThat(rows).isPositive();
        assertThat(source.rowsScanned()).isEqualTo(rows);
        assertThat(source.diskBytesRead()).isPositive();
        // the footer, then the reader's buffers, were the scan's
        assertThat(memory.peakBytes()).isPositive();
        source.close();
    }

    @Test
    void testHoldsTheFileWhenTheOpenFailsHalfWay()
            throws Exception
    {
        ScanRequest pastTheEnd = REQUEST.toBuilder().setRowGroups(0, 1_000).build();
        assertThatThrownBy(() -> source.open(plan(pastTheEnd), pastTheEnd.getRowGroupsList()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.OUT_OF_RANGE));

        // the footer was read: the file is open, its reads count, and it is closed with the scan
        assertThat(source.fileOpened()).isTrue();
        assertThat(source.readerOpened()).isFalse();
        assertThat(source.diskBytesRead()).isPositive();
        assertThatThrownBy(source::rowsScanned).isInstanceOf(IllegalStateException.class);
        source.close();
    }

    @Test
    void testClosedBeforeItOpened()
            throws Exception
    {
        source.close();
        assertThat(source.fileOpened()).isFalse();
    }

    private ScanPlan plan(ScanRequest request)
    {
        return new ScanPlan(request, file.id(), LIMITS, memory, LIMITS.memoryBytes() / 2);
    }
}
