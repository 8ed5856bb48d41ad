package io.nsc.trino.optimize;

import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.write.NscInsertTableHandle;
import io.trino.spi.connector.ConnectorTableExecuteHandle;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * An {@code ALTER TABLE ... EXECUTE optimize} in progress.
 *
 * @param table the table version it compacts: the files it rewrites are that version's
 * @param fileSizeThreshold files smaller than this many bytes are rewritten
 * @param rewrite how its page sinks write the new files: as an INSERT into the table would
 */
public record NscOptimizeHandle(NscTableHandle table, long fileSizeThreshold, NscInsertTableHandle rewrite)
        implements ConnectorTableExecuteHandle
{
    public NscOptimizeHandle
    {
        requireNonNull(table, "table is null");
        checkArgument(fileSizeThreshold >= 0, "fileSizeThreshold is negative");
        requireNonNull(rewrite, "rewrite is null");
    }
}
