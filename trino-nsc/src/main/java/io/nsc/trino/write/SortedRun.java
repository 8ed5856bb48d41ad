package io.nsc.trino.write;

import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Rows in sorted order, spilled to a local temporary file by {@link SortedRunWriter}.
 *
 * @param sizeBytes the file's size: the disk the run takes until it is merged
 */
public record SortedRun(Path path, long rowCount, long sizeBytes)
{
    public SortedRun
    {
        requireNonNull(path, "path is null");
        checkArgument(rowCount >= 0, "rowCount is negative: %s", rowCount);
        checkArgument(sizeBytes >= 0, "sizeBytes is negative: %s", sizeBytes);
    }
}
