package io.nsc.storage.scan;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.storage.memory.NodeMemoryPool;
import io.nsc.storage.memory.PoolExhaustedException;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.spi.TrinoException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;

import static io.nsc.protocol.client.NodeBusy.RETRY_AFTER_MILLIS;
import static io.trino.spi.StandardErrorCode.NOT_SUPPORTED;
import static io.trino.spi.StandardErrorCode.NUMERIC_VALUE_OUT_OF_RANGE;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each failure a scan can meet becomes the status, description and trailers the client has
 * always been given for it, and is counted as it always was: the client's retries and the
 * node's metrics depend on them.
 */
final class TestScanStatuses
{
    @TempDir
    private Path directory;

    private ParquetFileStore store;
    private StoredFile file;
    private NearStorageScanner.Counters counters;
    private ScanStatuses statuses;

    @BeforeEach
    void setUp()
            throws IOException
    {
        StoredAllTypes stored = StoredAllTypes.in(directory);
        store = stored.store();
        file = stored.file();
        counters = NearStorageScanner.Counters.zero();
        statuses = new ScanStatuses(store, file, counters);
    }

    @Test
    void testDamagedBytesQuarantineTheCopy()
    {
        CorruptBlockException corruption = new CorruptBlockException("block 3 does not match its checksum");

        // however deep the damage is in the failure's causes, and whichever step met it
        assertDamaged(statuses.openFailed(corruption));
        assertDamaged(statuses.scanFailed(new UncheckedIOException(corruption)));
        assertDamaged(statuses.scanFailed(new TrinoException(NOT_SUPPORTED, "cannot read", corruption)));
        assertDamaged(statuses.scanFailed(new IllegalStateException("reader failed", corruption)));
        assertDamaged(statuses.scanFailed(Status.INTERNAL.withCause(corruption).asRuntimeException()));

        assertThat(counters.corruptScans().getTotalCount()).isEqualTo(5);
        assertThat(store.find(file.id())).isEmpty();
        assertThat(store.takeDamagedFiles()).hasSize(1);
    }

    @Test
    void testFileDeletedSinceTheLookup()
    {
        NoSuchFileException deleted = new NoSuchFileException(file.path().toString());
        assertStatus(statuses.openFailed(deleted), Status.Code.NOT_FOUND, "File 00112233445566778899aabbccddeeff not found on this node");
        // while the scan reads, the file is open: a missing file is not the lookup's
        assertStatus(statuses.scanFailed(deleted), Status.Code.INTERNAL, "Cannot read file 00112233445566778899aabbccddeeff: " + deleted);
        assertThat(counters.corruptScans().getTotalCount()).isZero();
        assertThat(store.find(file.id())).isPresent();
    }

    @Test
    void testOverItsBudget()
    {
        MemoryLimitExceededException overBudget = new MemoryLimitExceededException("Scan of file x exceeds its memory limit of 1kB");
        for (StatusRuntimeException status : List.of(statuses.openFailed(overBudget), statuses.scanFailed(overBudget))) {
            assertStatus(status, Status.Code.RESOURCE_EXHAUSTED, "Scan of file x exceeds its memory limit of 1kB");
            assertThat(status.getTrailers()).isNull();
            statuses.count(status);
        }
        assertThat(counters.refusedMemory().getTotalCount()).isEqualTo(2);
        assertThat(counters.refusedBusy().getTotalCount()).isZero();
    }

    @Test
    void testNodeBusy()
            throws InterruptedException
    {
        try (NodeMemoryPool pool = new NodeMemoryPool(DataSize.ofBytes(1024), 1, new Duration(7, SECONDS))) {
            PoolExhaustedException busy = refusal(pool);
            for (StatusRuntimeException status : List.of(statuses.admissionFailed(busy), statuses.openFailed(busy), statuses.scanFailed(busy))) {
                assertStatus(status, Status.Code.RESOURCE_EXHAUSTED, "Scan of file 00112233445566778899aabbccddeeff: " + busy.getMessage());
                assertThat(status.getTrailers().get(RETRY_AFTER_MILLIS)).isEqualTo("7000");
                statuses.count(status);
            }
        }
        assertThat(counters.refusedBusy().getTotalCount()).isEqualTo(3);
        assertThat(counters.refusedMemory().getTotalCount()).isZero();
    }

    @Test
    void testAdmissionFailedOtherwise()
    {
        IllegalStateException failure = new IllegalStateException("pool closed");
        assertStatus(statuses.admissionFailed(failure), Status.Code.INTERNAL, "Scan of file 00112233445566778899aabbccddeeff: admission failed: java.lang.IllegalStateException: pool closed", failure);
    }

    @Test
    void testQueryFailuresPassedOnAsTrinoRaisedThem()
    {
        StatusRuntimeException overflow = statuses.scanFailed(new TrinoException(NUMERIC_VALUE_OUT_OF_RANGE, "bigint addition overflow"));
        assertStatus(overflow, Status.Code.OUT_OF_RANGE, "Scan of file 00112233445566778899aabbccddeeff: bigint addition overflow");
        assertThat(QueryFailures.fromStatus(overflow)).hasValueSatisfying(failure -> {
            assertThat(failure.getErrorCode()).isEqualTo(NUMERIC_VALUE_OUT_OF_RANGE.toErrorCode());
            assertThat(failure.getMessage()).isEqualTo("bigint addition overflow");
        });

        // Trino's other errors are the node's: the same status, without Trino's error to raise again
        StatusRuntimeException other = statuses.scanFailed(new TrinoException(NOT_SUPPORTED, "unsupported"));
        assertStatus(other, Status.Code.OUT_OF_RANGE, "Scan of file 00112233445566778899aabbccddeeff: unsupported");
        assertThat(QueryFailures.fromStatus(other)).isEmpty();
    }

    @Test
    void testUndecodableFile()
    {
        IllegalArgumentException malformed = new IllegalArgumentException("bad page header");
        assertStatus(statuses.openFailed(malformed), Status.Code.DATA_LOSS, "Cannot decode file 00112233445566778899aabbccddeeff: bad page header", malformed);
        assertStatus(statuses.badData(malformed), Status.Code.DATA_LOSS, "Cannot decode file 00112233445566778899aabbccddeeff: bad page header", malformed);
        // not damage: the copy stays
        assertThat(store.find(file.id())).isPresent();
    }

    @Test
    void testUnexpectedScanFailure()
    {
        IllegalStateException bug = new IllegalStateException("no more pages");
        StatusRuntimeException status = statuses.scanFailed(bug);
        assertStatus(status, Status.Code.INTERNAL, "Scan of file 00112233445566778899aabbccddeeff failed: java.lang.IllegalStateException: no more pages", bug);
        statuses.count(status);
        assertThat(counters.refusedInvalid().getTotalCount() + counters.refusedMemory().getTotalCount() + counters.refusedBusy().getTotalCount()).isZero();
    }

    @Test
    void testStatusesRaisedOnPassAsTheyAre()
    {
        StatusRuntimeException invalid = ScanPlan.invalid("Scan of file x names no row group");
        assertThat(statuses.openFailed(invalid)).isSameAs(invalid);
        assertThat(statuses.scanFailed(invalid)).isSameAs(invalid);
        assertThat(statuses.badData(invalid)).isSameAs(invalid);
        statuses.count(invalid);
        assertThat(counters.refusedInvalid().getTotalCount()).isEqualTo(1);
    }

    private void assertDamaged(StatusRuntimeException status)
    {
        assertStatus(status, Status.Code.DATA_LOSS,
                "Copy of file 00112233445566778899aabbccddeeff on this node is damaged and now quarantined; read another replica: block 3 does not match its checksum");
    }

    private static void assertStatus(StatusRuntimeException status, Status.Code code, String description)
    {
        assertThat(status.getStatus().getCode()).isEqualTo(code);
        assertThat(status.getStatus().getDescription()).isEqualTo(description);
    }

    private static void assertStatus(StatusRuntimeException status, Status.Code code, String description, Throwable cause)
    {
        assertStatus(status, code, description);
        assertThat(status.getCause()).isSameAs(cause);
    }

    private static PoolExhaustedException refusal(NodeMemoryPool pool)
            throws InterruptedException
    {
        try {
            pool.admit(pool.getMaxBytes() + 1).get();
            throw new AssertionError("admitted more than the pool holds");
        }
        catch (ExecutionException e) {
            return (PoolExhaustedException) e.getCause();
        }
    }
}
