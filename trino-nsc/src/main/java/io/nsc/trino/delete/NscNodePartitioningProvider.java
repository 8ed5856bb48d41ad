package io.nsc.trino.delete;

import io.airlift.slice.Slice;
import io.trino.spi.Page;
import io.trino.spi.block.Block;
import io.trino.spi.connector.BucketFunction;
import io.trino.spi.connector.ConnectorNodePartitioningProvider;
import io.trino.spi.connector.ConnectorPartitioningHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.type.Type;

import java.util.List;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Buckets the rows of a row-level DELETE, UPDATE or MERGE by the file of their row id: every
 * deleted row of a file goes to the same merge sink, on one worker.
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
            // the row id is the only channel the layout partitions on; a MERGE's inserted row has none, and any sink takes it
            Block rowIds = page.getBlock(0);
            if (rowIds.isNull(position)) {
                return position % bucketCount;
            }
            Slice fileId = RowIds.fileId(rowIds, position);
            return (fileId.hashCode() & Integer.MAX_VALUE) % bucketCount;
        }
    }
}
