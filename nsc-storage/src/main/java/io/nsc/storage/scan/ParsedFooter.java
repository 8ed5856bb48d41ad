package io.nsc.storage.scan;

import io.nsc.parquet.FooterRetainedSize;
import io.trino.parquet.metadata.ParquetMetadata;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A file's footer as trino-parquet parsed it, for the scanner's cache, with what it retains on
 * the heap as {@link FooterRetainedSize} estimates it (the workers' footer cache weighs footers
 * the same way).
 */
record ParsedFooter(ParquetMetadata metadata, long retainedBytes)
{
    ParsedFooter
    {
        requireNonNull(metadata, "metadata is null");
        checkArgument(retainedBytes >= 0, "retainedBytes is negative");
    }

    static ParsedFooter of(ParquetMetadata metadata)
    {
        return new ParsedFooter(metadata, FooterRetainedSize.estimate(metadata));
    }
}
