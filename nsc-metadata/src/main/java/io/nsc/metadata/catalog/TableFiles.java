package io.nsc.metadata.catalog;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The files of a table as of one version, read in one transaction so that the version and the
 * file list always agree.
 */
public record TableFiles(long tableId, long version, List<FileEntry> files)
{
    public TableFiles
    {
        files = List.copyOf(requireNonNull(files, "files is null"));
    }
}
