package io.nsc.metadata.catalog;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Where a file stands in its table's commit order: the version that committed it, then its place
 * in that commit. Listings resume after a position, so it is all a page token needs to hold.
 */
public record FilePosition(long committedVersion, int commitOrdinal)
{
    /** Before every file: versions start at 1 and ordinals at 0. */
    public static final FilePosition START = new FilePosition(0, -1);

    public FilePosition
    {
        checkArgument(committedVersion >= 0, "committedVersion is negative");
        checkArgument(commitOrdinal >= -1, "commitOrdinal is below -1");
    }
}
