package io.nsc.tools.load;

import com.google.common.collect.ImmutableList;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What one committed load registered.
 *
 * @param tableVersion the table's version after the commit
 * @param tableCreated whether the commit created the table
 */
public record LoadResult(String schema, String table, List<LoadedFile> files, long rows, long bytes, long tableVersion, boolean tableCreated)
{
    public LoadResult
    {
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        files = ImmutableList.copyOf(requireNonNull(files, "files is null"));
    }
}
