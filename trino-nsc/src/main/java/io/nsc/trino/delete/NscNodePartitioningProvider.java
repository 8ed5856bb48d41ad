package io.nsc.trino.delete;

import io.airlift.slice.Slice;
import io.trino.spi.Page;
import io.trino.spi.connector.BucketFunction;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Buckets a row-level DELETE's rows by the file of their row id: every deleted row of a file goes
 * to the same merge sink, on one worker.
 */
public class NscNodePartitioningProvider
        implements ConnectorNodePartitioningProvider
{
    @Override
    public BucketFunction getBucketFunction(
            ConnectorTransactionHandle transactionHandle,
            ConnectorSession session,
            ConnectorPartitioningHandle partitioningHandle,
            List<Type> partitionChannelTypes,
            int bucketCount)
    {
        checkArgument(partitioningHandle instanceof NscDeletePartitioningHandle, "not an nsc partitioning: %s", partitioningHandle);
        return new FileBucketFunction(bucketCount);
    }

    private record FileBucketFunction(int bucketCount)
            implements BucketFunction
    {
        @Override
        public int getBucket(Page page, int position)
        {
            // the row id is the only channel the DELETE's layout partitions on
            Slice fileId = RowIds.fileId(page.getBlock(0), position);
            return (fileId.hashCode() & Integer.MAX_VALUE) % bucketCount;
        }
    }
}
