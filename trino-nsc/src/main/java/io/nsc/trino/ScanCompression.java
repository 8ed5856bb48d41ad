package io.nsc.trino;

import io.nsc.protocol.proto.PageCompression;

/** Compression of the pages storage nodes send for near-storage scans. */
public enum ScanCompression
{
    NONE(PageCompression.PAGE_COMPRESSION_NONE),
    LZ4(PageCompression.PAGE_COMPRESSION_LZ4),
    ZSTD(PageCompression.PAGE_COMPRESSION_ZSTD);

    private final PageCompression wire;

    ScanCompression(PageCompression wire)
    {
        this.wire = wire;
    }

    public PageCompression wire()
    {
        return wire;
    }
}
