package io.nsc.parquet.scan;

import io.trino.parquet.ParquetDataSource;
import io.trino.parquet.metadata.BlockMetadata;
import org.apache.parquet.hadoop.metadata.ColumnPath;

import java.io.IOException;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Where a scan gets the page indexes of a row group it may skip pages of: read for the scan
 * itself, or held by a storage node for every scan of the file.
 */
@FunctionalInterface
public interface PageIndexLoader
{
    /**
     * The indexes of at least these columns of the row group (those the file has).
     *
     * @param rowGroup the row group's number in the file
     */
    RowGroupPageIndexes load(int rowGroup, BlockMetadata block, Set<ColumnPath> columns)
            throws IOException;

    /** Reads them from the scan's data source each time they are asked for. */
    static PageIndexLoader reading(ParquetDataSource source)
    {
        requireNonNull(source, "source is null");
        return (_, block, columns) -> RowGroupPageIndexes.read(source, block, columns);
    }
}
