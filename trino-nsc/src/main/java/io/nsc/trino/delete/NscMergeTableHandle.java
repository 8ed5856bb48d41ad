package io.nsc.trino.delete;

import io.nsc.trino.metadata.NscTableHandle;
import io.nsc.trino.write.NscInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;

import static java.util.Objects.requireNonNull;

/**
 * A row-level DELETE, UPDATE or MERGE in progress: the table version it reads, and how it writes
 * the surviving rows of the files it rewrites and the rows it inserts (as an INSERT into the
 * table would write them).
 */
public record NscMergeTableHandle(NscTableHandle table, NscInsertTableHandle rewrite)
        implements ConnectorMergeTableHandle
{
    public NscMergeTableHandle
    {
        requireNonNull(table, "table is null");
        requireNonNull(rewrite, "rewrite is null");
    }

    @Override
    public NscTableHandle getTableHandle()
    {
        return table;
    }
}
