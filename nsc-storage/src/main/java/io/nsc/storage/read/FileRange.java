package io.nsc.storage.read;

import static com.google.common.base.Preconditions.checkArgument;

/** A validated byte range {@code [offset, offset + length)} inside a file. */
public record FileRange(long offset, long length)
{
    public FileRange
    {
        checkArgument(offset >= 0, "offset is negative");
        checkArgument(length >= 0, "length is negative");
    }

    public long end()
    {
        return offset + length;
    }
}
