package io.nsc.parquet.scan;

import com.google.common.collect.ImmutableMap;
import io.airlift.slice.Slice;
import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.metadata.BlockMetadata;
import io.trino.parquet.metadata.ColumnChunkMetadata;
import io.trino.parquet.metadata.IndexReference;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.internal.column.columnindex.BoundaryOrder;
import org.apache.parquet.internal.column.columnindex.ColumnIndex;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.apache.parquet.internal.filter2.columnindex.ColumnIndexStore;

import java.io.IOException;
import java.util.Map;
import java.util.Set;

import static io.trino.parquet.ParquetMetadataConverter.fromParquetColumnIndex;
import static io.trino.parquet.ParquetMetadataConverter.fromParquetOffsetIndex;
import static java.util.Objects.requireNonNull;

/**
 * The page indexes (column and offset indexes) of some columns of one row group, decoded and
 * immutable: what trino-parquet's reader asks to skip pages, held so that a storage node reads
 * and decodes a file's indexes once however many scans follow them. A column without an index
 * has none here, as trino-parquet's own store answers (no page of it is skipped).
 */
public final class RowGroupPageIndexes
        implements ColumnIndexStore
{
    // an estimate: a decoded index keeps its pages' offsets, sizes, bounds and null counts in lists
    // of boxed values and buffers, several times its Thrift bytes
    private static final int DECODED_BYTES_PER_ENCODED_BYTE = 4;
    private static final int COLUMN_BYTES = 256;

    private final Map<ColumnPath, ColumnIndex> columnIndexes;
    private final Map<ColumnPath, OffsetIndex> offsetIndexes;
    private final long retainedBytes;

    private RowGroupPageIndexes(Map<ColumnPath, ColumnIndex> columnIndexes, Map<ColumnPath, OffsetIndex> offsetIndexes, long retainedBytes)
    {
        this.columnIndexes = ImmutableMap.copyOf(columnIndexes);
        this.offsetIndexes = ImmutableMap.copyOf(offsetIndexes);
        this.retainedBytes = retainedBytes;
    }

    /**
     * Reads and decodes the indexes the row group's footer entries name for these columns; the
     * footer's references were checked against the file's pages when it was stored.
     */
    public static RowGroupPageIndexes read(ParquetDataSource source, BlockMetadata rowGroup, Set<ColumnPath> columns)
            throws IOException
    {
        requireNonNull(source, "source is null");
        ImmutableMap.Builder<ColumnPath, ColumnIndex> columnIndexes = ImmutableMap.builder();
        ImmutableMap.Builder<ColumnPath, OffsetIndex> offsetIndexes = ImmutableMap.builder();
        long encodedBytes = 0;
        for (ColumnChunkMetadata chunk : rowGroup.columns()) {
            if (!columns.contains(chunk.getPath())) {
                continue;
            }
            IndexReference columnIndex = chunk.getColumnIndexReference();
            if (columnIndex != null) {
                Slice bytes = source.readFully(columnIndex.getOffset(), columnIndex.getLength());
                columnIndexes.put(chunk.getPath(), fromParquetColumnIndex(chunk.getPrimitiveType(), Util.readColumnIndex(bytes.getInput())));
                encodedBytes += bytes.length();
            }
            IndexReference offsetIndex = chunk.getOffsetIndexReference();
            if (offsetIndex != null) {
                Slice bytes = source.readFully(offsetIndex.getOffset(), offsetIndex.getLength());
                offsetIndexes.put(chunk.getPath(), fromParquetOffsetIndex(Util.readOffsetIndex(bytes.getInput())));
                encodedBytes += bytes.length();
            }
        }
        return new RowGroupPageIndexes(columnIndexes.buildOrThrow(), offsetIndexes.buildOrThrow(), encodedBytes * DECODED_BYTES_PER_ENCODED_BYTE + (long) columns.size() * COLUMN_BYTES);
    }

    /**
     * Whether the pages of one of these columns hold their values in order (ascending or
     * descending, as the column index declares). Only then do a range's pages lie together and the
     * others fall outside it; the pages of an unordered column each span about its whole range,
     * so trino-parquet's page filter, which costs as much as the rows it would save on TPC-H's
     * dynamic filters, is not worth starting.
     */
    public boolean ordersAnyOf(Set<ColumnPath> columns)
    {
        for (ColumnPath column : columns) {
            ColumnIndex index = columnIndexes.get(column);
            if (index != null && index.getBoundaryOrder() != BoundaryOrder.UNORDERED) {
                return true;
            }
        }
        return false;
    }

    @Override
    public ColumnIndex getColumnIndex(ColumnPath column)
    {
        return columnIndexes.get(column);
    }

    @Override
    public OffsetIndex getOffsetIndex(ColumnPath column)
    {
        return offsetIndexes.get(column);
    }

    /** What the decoded indexes retain on the heap, estimated from their encoded size. */
    public long retainedBytes()
    {
        return retainedBytes;
    }
}
