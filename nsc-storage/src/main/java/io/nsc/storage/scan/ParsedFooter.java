package io.nsc.storage.scan;

import io.trino.parquet.metadata.ParquetMetadata;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A file's footer as trino-parquet parsed it, for the scanner's cache, with an estimate of what it
 * retains: the Thrift objects of its row groups, column chunks and statistics, and the schema.
 * Those are a few times the footer's serialized bytes (compact Thrift spends a byte or two on
 * what an object spends a header, a reference and padding on); {@code TestParsedFooter}
 * measures the ratio.
 */
record ParsedFooter(ParquetMetadata metadata, long retainedBytes)
{
    // retained bytes per serialized byte of the footer, with room for footers unlike the measured ones
    static final int EXPANSION = 12;
    // the footer's fixed objects (metadata, file metadata, schema root), whatever its size
    static final long BASE_BYTES = 4096;

    ParsedFooter
    {
        requireNonNull(metadata, "metadata is null");
        checkArgument(retainedBytes >= 0, "retainedBytes is negative");
    }

    static ParsedFooter of(ParquetMetadata metadata, int footerLength)
    {
        return new ParsedFooter(metadata, BASE_BYTES + (long) EXPANSION * footerLength);
    }
}
