package io.nsc.storage.scan;

import io.airlift.log.Logger;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.parquet.memory.MemoryLimitExceededException;
import io.nsc.parquet.wire.QueryFailures;
import io.nsc.storage.memory.PoolExhaustedException;
import io.nsc.storage.store.CorruptBlockException;
import io.nsc.storage.store.DamagedCopies;
import io.nsc.storage.store.ParquetFileStore;
import io.nsc.storage.store.StoredFile;
import io.trino.spi.TrinoException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.util.Optional;

import static io.nsc.protocol.client.NodeBusy.RETRY_AFTER_MILLIS;
import static java.util.Objects.requireNonNull;

/**
 * How a scan's failure becomes its call's status, so the client can tell what to do next, and
 * how the node counts it:
 * <ul>
 * <li>DATA_LOSS, with the copy quarantined and counted, when the bytes do not match their
 * checksums: read another replica;
 * <li>DATA_LOSS when the file's bytes cannot be decoded as Parquet;
 * <li>NOT_FOUND when the file was deleted after the lookup, as if the lookup had come later;
 * <li>RESOURCE_EXHAUSTED past the scan's budget, or with a retry hint in the trailers when the
 * node's memory pool is exhausted (the node is busy, not the scan too big);
 * <li>OUT_OF_RANGE for the query's own failures (an overflow, a failed expression), with Trino's
 * error code in the trailers for the errors Trino's own operators raise, so the query fails as
 * it would have in Trino;
 * <li>INTERNAL for unreadable files and anything unexpected (logged);
 * <li>and as they are, the statuses the plan and the reader raise themselves (INVALID_ARGUMENT,
 * OUT_OF_RANGE for row groups past the file's).
 * </ul>
 */
final class ScanStatuses
{
    // a call's log lines stay under one name, whichever part of it writes them
    private static final Logger log = Logger.get(ScanCall.class);

    private final ParquetFileStore store;
    private final StoredFile file;
    // damaged copies and refusals are counted by the status the client hears
    private final NearStorageScanner.Counters counters;

    ScanStatuses(ParquetFileStore store, StoredFile file, NearStorageScanner.Counters counters)
    {
        this.store = requireNonNull(store, "store is null");
        this.file = requireNonNull(file, "file is null");
        this.counters = requireNonNull(counters, "counters is null");
    }

    /** The node's memory pool did not admit the call (a cancelled admission is no failure: the caller checks). */
    StatusRuntimeException admissionFailed(Throwable failure)
    {
        if (failure instanceof PoolExhaustedException refused) {
            return nodeBusy(refused);
        }
        return Status.INTERNAL.withDescription("Scan of file %s: admission failed: %s".formatted(file.id(), failure)).withCause(failure).asRuntimeException();
    }

    /** The request could not be planned, or the file or its reader opened. */
    StatusRuntimeException openFailed(Exception failure)
    {
        if (failure instanceof StatusRuntimeException status) {
            return damagedOr(status, status);
        }
        if (failure instanceof MemoryLimitExceededException e) {
            return resourceExhausted(e);
        }
        if (failure instanceof NoSuchFileException) {
            // deleted as an orphan between the lookup and here: as if the lookup had come later
            return Status.NOT_FOUND.withDescription("File %s not found on this node".formatted(file.id())).asRuntimeException();
        }
        return damagedOr(failure, badData(failure));
    }

    /** The scan failed reading, filtering, folding or sending its rows. */
    StatusRuntimeException scanFailed(Exception failure)
    {
        if (failure instanceof StatusRuntimeException status) {
            return damagedOr(status, status);
        }
        if (failure instanceof TrinoException e) {
            if (DamagedCopies.findCorruption(e).isPresent()) {
                return damagedOr(e, null);
            }
            // an aggregate overflowed, or an expression failed, as Trino's own would have: the
            // query's error, not the node's
            String description = "Scan of file %s: %s".formatted(file.id(), e.getMessage());
            return QueryFailures.isQueryFailure(e)
                    ? QueryFailures.toStatus(e, description)
                    : Status.OUT_OF_RANGE.withDescription(description).asRuntimeException();
        }
        if (failure instanceof MemoryLimitExceededException e) {
            return resourceExhausted(e);
        }
        if (failure instanceof IOException || failure instanceof UncheckedIOException) {
            return damagedOr(failure, Status.INTERNAL.withDescription("Cannot read file %s: %s".formatted(file.id(), failure)).withCause(failure).asRuntimeException());
        }
        if (DamagedCopies.findCorruption(failure).isPresent()) {
            return damagedOr(failure, null);
        }
        log.error(failure, "Scan of file %s failed", file.id());
        return Status.INTERNAL.withDescription("Scan of file %s failed: %s".formatted(file.id(), failure)).withCause(failure).asRuntimeException();
    }

    /**
     * Counts a failure the client is about to hear: refused as malformed, as too big for its
     * budget, or because the node is busy (the retry hint tells it).
     */
    void count(StatusRuntimeException failure)
    {
        switch (failure.getStatus().getCode()) {
            case INVALID_ARGUMENT -> counters.refusedInvalid().update(1);
            case RESOURCE_EXHAUSTED -> {
                if (failure.getTrailers() != null && failure.getTrailers().containsKey(RETRY_AFTER_MILLIS)) {
                    counters.refusedBusy().update(1);
                }
                else {
                    counters.refusedMemory().update(1);
                }
            }
            default -> {}
        }
    }

    /** The file's bytes, checked against their checksums, are not Parquet the reader can decode. */
    StatusRuntimeException badData(Throwable e)
    {
        if (e instanceof StatusRuntimeException status) {
            return status;
        }
        return Status.DATA_LOSS.withDescription("Cannot decode file %s: %s".formatted(file.id(), e.getMessage())).withCause(e).asRuntimeException();
    }

    /**
     * DATA_LOSS, with the copy quarantined, when the failure comes from bytes that do not match
     * their checksums; otherwise {@code otherwise}.
     */
    private StatusRuntimeException damagedOr(Throwable failure, StatusRuntimeException otherwise)
    {
        Optional<CorruptBlockException> corruption = DamagedCopies.findCorruption(failure);
        if (corruption.isEmpty()) {
            return otherwise;
        }
        counters.corruptScans().update(1);
        store.quarantine(file, corruption.get().getMessage());
        return DamagedCopies.dataLoss(file, corruption.get());
    }

    private StatusRuntimeException resourceExhausted(MemoryLimitExceededException e)
    {
        if (e instanceof PoolExhaustedException refused) {
            return nodeBusy(refused);
        }
        // the message names the scan, the limit and what asked for more
        return Status.RESOURCE_EXHAUSTED.withDescription(e.getMessage()).asRuntimeException();
    }

    /**
     * The node is busy, not the scan too big: the trailer tells the client so, and when this node
     * may have room again (another replica may have it now).
     */
    private StatusRuntimeException nodeBusy(PoolExhaustedException e)
    {
        Metadata trailers = new Metadata();
        trailers.put(RETRY_AFTER_MILLIS, Long.toString(e.retryAfterMillis()));
        return Status.RESOURCE_EXHAUSTED.withDescription("Scan of file %s: %s".formatted(file.id(), e.getMessage())).asRuntimeException(trailers);
    }
}
