package io.nsc.storage.store;

import com.google.common.collect.ImmutableList;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.stats.CompactFileStats;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of a successful upload: the stored file, and what the writer needs to commit it
 * (its compact stats and schema), which the node does not keep.
 */
public record UploadedFile(StoredFile file, CompactFileStats stats, List<ColumnSpec> columns)
{
    public UploadedFile
    {
        requireNonNull(file, "file is null");
        requireNonNull(stats, "stats is null");
        columns = ImmutableList.copyOf(columns);
    }
}
