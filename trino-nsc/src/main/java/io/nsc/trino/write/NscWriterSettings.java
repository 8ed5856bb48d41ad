package io.nsc.trino.write;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.nsc.parquet.ParquetWriteCodec;

import java.util.List;
import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What every page sink of one write needs to know beyond the columns: the sort order of each
 * file, the row-group size, how many replicas each file gets (checked on the coordinator when
 * the write began against the storage nodes live then), and how many of them must be stored
 * when storage nodes fail during the write, the columns whose row groups get Bloom filters, and
 * the files' compression (the table's, else the catalog's, resolved on the coordinator so that
 * every file of one write has the same).
 */
public record NscWriterSettings(List<String> sortedBy, RowGroupSize rowGroupSize, int replication, int minReplicas, Set<String> bloomFilterColumns, ParquetWriteCodec compressionCodec)
{
    public NscWriterSettings
    {
        sortedBy = ImmutableList.copyOf(requireNonNull(sortedBy, "sortedBy is null"));
        bloomFilterColumns = ImmutableSet.copyOf(requireNonNull(bloomFilterColumns, "bloomFilterColumns is null"));
        requireNonNull(rowGroupSize, "rowGroupSize is null");
        requireNonNull(compressionCodec, "compressionCodec is null");
        checkArgument(replication >= 1, "replication must be at least 1: %s", replication);
        checkArgument(minReplicas >= 1 && minReplicas <= replication, "minReplicas must be between 1 and replication %s: %s", replication, minReplicas);
    }
}
