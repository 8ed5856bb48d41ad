package io.nsc.protocol.parquet;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What nsc accepts in a Parquet file's metadata, checked before anything is allocated by the
 * size a file declares. A file is served by readers with a modest heap (storage nodes run with
 * -Xmx1g), so a page or footer that declares a huge size must be refused at upload, not found
 * by the first scan.
 *
 * @param maxFooterBytes the largest footer (serialized); what it decodes to is bounded at
 * {@link #FOOTER_EXPANSION} times that
 * @param maxPageBytes the largest page, compressed or uncompressed (what a reader allocates to
 * decompress it); also bounds a page header
 */
public record ParquetLimits(int maxFooterBytes, int maxPageBytes)
{
    // decoded Thrift objects are a few times their compact encoding (a 1-byte empty struct is a 60-byte object)
    public static final int FOOTER_EXPANSION = 8;
    public static final ParquetLimits DEFAULT = new ParquetLimits(64 * 1024 * 1024, 64 * 1024 * 1024);

    public ParquetLimits
    {
        checkArgument(maxFooterBytes > 0, "maxFooterBytes must be positive");
        checkArgument(maxPageBytes > 0, "maxPageBytes must be positive");
    }

    public long maxFooterDecodedBytes()
    {
        return (long) maxFooterBytes * FOOTER_EXPANSION;
    }
}
