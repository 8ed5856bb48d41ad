package io.nsc.tools.tpch;

import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A finished run file of {@link SortedRunWriter}.
 *
 * @param rowCount the rows written, which a reader must find: fewer means the file was cut short
 * @param sizeBytes the file's size
 */
record SortedRun(Path file, long rowCount, long sizeBytes)
{
    SortedRun
    {
        requireNonNull(file, "file is null");
        checkArgument(rowCount >= 0, "rowCount is negative: %s", rowCount);
        checkArgument(sizeBytes >= 0, "sizeBytes is negative: %s", sizeBytes);
    }
}
