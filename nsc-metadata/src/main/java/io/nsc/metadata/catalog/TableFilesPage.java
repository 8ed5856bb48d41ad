package io.nsc.metadata.catalog;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Some files of one table version, in commit order.
 *
 * @param next the position of the last file, when files of the version remain after it
 */
public record TableFilesPage(long tableId, long version, List<FileEntry> files, Optional<FilePosition> next)
{
    public TableFilesPage
    {
        files = List.copyOf(requireNonNull(files, "files is null"));
        requireNonNull(next, "next is null");
    }
}
