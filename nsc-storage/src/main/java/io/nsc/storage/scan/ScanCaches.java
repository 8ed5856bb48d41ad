package io.nsc.storage.scan;

import io.nsc.parquet.scan.RowGroupPageIndexes;
import io.nsc.storage.cache.BoundedMetadataCache;
import io.nsc.storage.store.FileId;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What scans of the same file share instead of reading it again: its parsed footer, and the
 * decoded page indexes of the row groups scans skipped pages of.
 */
record ScanCaches(BoundedMetadataCache<FileId, ParsedFooter> footers, BoundedMetadataCache<RowGroup, RowGroupPageIndexes> pageIndexes)
{
    record RowGroup(FileId file, int number)
    {
        RowGroup
        {
            requireNonNull(file, "file is null");
            checkArgument(number >= 0, "row group number is negative");
        }
    }

    ScanCaches
    {
        requireNonNull(footers, "footers is null");
        requireNonNull(pageIndexes, "pageIndexes is null");
    }
}
