package io.nsc.trino.write;

import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * What a worker's catalog configuration gives each page sink: the memory it may hold
 * ({@code nsc.writer-buffer-size}), the size at which it closes a file
 * ({@code nsc.writer-target-file-size}), and the local directory it writes files and sorted
 * runs to ({@code nsc.writer-temp-dir}).
 */
public record WriterResources(long memoryBytes, long targetFileBytes, Path tempDirectory)
{
    public WriterResources
    {
        checkArgument(memoryBytes > 0, "memoryBytes must be positive: %s", memoryBytes);
        checkArgument(targetFileBytes > 0, "targetFileBytes must be positive: %s", targetFileBytes);
        requireNonNull(tempDirectory, "tempDirectory is null");
    }
}
