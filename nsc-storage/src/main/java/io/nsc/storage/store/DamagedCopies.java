package io.nsc.storage.store;

import com.google.common.base.Throwables;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

import java.util.Optional;

/** How a read that met damaged bytes answers: the same for range reads, scans and copies. */
public final class DamagedCopies
{
    private DamagedCopies() {}

    /** The damage somewhere in a failure's causes, if it came from checksums. */
    public static Optional<CorruptBlockException> findCorruption(Throwable failure)
    {
        return Throwables.getCausalChain(failure).stream()
                .filter(CorruptBlockException.class::isInstance)
                .map(CorruptBlockException.class::cast)
                .findFirst();
    }

    /**
     * DATA_LOSS naming the file: this copy is gone, so the caller should read another replica.
     */
    public static StatusRuntimeException dataLoss(StoredFile file, CorruptBlockException e)
    {
        return Status.DATA_LOSS
                .withDescription("Copy of file %s on this node is damaged and now quarantined; read another replica: %s".formatted(file.id(), e.getMessage()))
                .asRuntimeException();
    }
}
