package io.nsc.tools.load;

import com.google.common.collect.ImmutableList;

import java.nio.file.Path;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One local file as the table now holds it.
 *
 * @param fileId the id the metadata service issued
 * @param replicaNodeIds the storage nodes holding a copy, in the order readers try them
 */
public record LoadedFile(Path path, String fileId, long rows, long bytes, List<String> replicaNodeIds)
{
    public LoadedFile
    {
        requireNonNull(path, "path is null");
        requireNonNull(fileId, "fileId is null");
        replicaNodeIds = ImmutableList.copyOf(requireNonNull(replicaNodeIds, "replicaNodeIds is null"));
    }
}
