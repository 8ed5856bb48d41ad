package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableSet;

import java.util.Set;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * Which files of a table version to read: those after a position, at most {@code maxFiles} of
 * them, and no more once their stats and sketches reach {@code maxBytes} (a page holds at least
 * one file, so a single file larger than that still gets through).
 *
 * @param version 0: the table's current version
 * @param fileIds when not empty, only these files of the version (at most {@value #MAX_FILE_IDS})
 */
public record TableFilesPageRequest(long tableId, long version, FilePosition after, int maxFiles, long maxBytes, boolean withColumnSketches, Set<String> fileIds)
{
    public static final int MAX_FILE_IDS = 1000;

    public TableFilesPageRequest
    {
        checkArgument(version >= 0, "version is negative");
        requireNonNull(after, "after is null");
        checkArgument(maxFiles > 0, "maxFiles must be positive");
        checkArgument(maxBytes > 0, "maxBytes must be positive");
        fileIds = ImmutableSet.copyOf(requireNonNull(fileIds, "fileIds is null"));
        checkArgument(fileIds.size() <= MAX_FILE_IDS, "more than %s file ids", MAX_FILE_IDS);
    }

    public TableFilesPageRequest(long tableId, long version, FilePosition after, int maxFiles, long maxBytes, boolean withColumnSketches)
    {
        this(tableId, version, after, maxFiles, maxBytes, withColumnSketches, Set.of());
    }

    /** Every file of the table's current version, in one page. */
    public static TableFilesPageRequest wholeTable(long tableId, boolean withColumnSketches)
    {
        return new TableFilesPageRequest(tableId, 0, FilePosition.START, Integer.MAX_VALUE, Long.MAX_VALUE, withColumnSketches);
    }
}
