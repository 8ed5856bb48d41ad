package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableMap;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static java.util.Objects.requireNonNull;

/**
 * What a DELETE, UPDATE or MERGE takes out of a table in its commit, beside the files it adds:
 * the rewritten files' surviving rows and, for UPDATE and MERGE, the rows they insert. An
 * OPTIMIZE only rewrites files, and keeps every row of them.
 *
 * @param readVersion the table version the statement read its rows from: a file it names must
 *        still be in the table, with the row groups it had then
 * @param removedFileIds files every remaining row of which the statement deleted
 * @param rewrittenFileIds files whose surviving rows the commit's new files hold
 * @param removedRowGroups row groups (by place in the file) every row of which the statement
 *        deleted, of files that otherwise stay
 * @param insertedFileIds the commit's files that hold new rows rather than survivors
 * @param optimize an OPTIMIZE's: the commit's files hold every row of the rewritten files, and
 *        nothing else leaves the table
 */
public record FileRemovals(long readVersion, List<String> removedFileIds, List<String> rewrittenFileIds, Map<String, List<Integer>> removedRowGroups, Set<String> insertedFileIds, boolean optimize)
{
    /** A DELETE's removals: every file the commit adds holds survivors. */
    public FileRemovals(long readVersion, List<String> removedFileIds, List<String> rewrittenFileIds, Map<String, List<Integer>> removedRowGroups)
    {
        this(readVersion, removedFileIds, rewrittenFileIds, removedRowGroups, Set.of());
    }

    /** A DELETE's, UPDATE's or MERGE's removals. */
    public FileRemovals(long readVersion, List<String> removedFileIds, List<String> rewrittenFileIds, Map<String, List<Integer>> removedRowGroups, Set<String> insertedFileIds)
    {
        this(readVersion, removedFileIds, rewrittenFileIds, removedRowGroups, insertedFileIds, false);
    }

    /** An OPTIMIZE's removals: the files it rewrites into the commit's files. */
    public static FileRemovals optimize(long readVersion, List<String> rewrittenFileIds)
    {
        return new FileRemovals(readVersion, List.of(), rewrittenFileIds, Map.of(), Set.of(), true);
    }

    public FileRemovals
    {
        insertedFileIds = Set.copyOf(requireNonNull(insertedFileIds, "insertedFileIds is null"));
        removedFileIds = List.copyOf(requireNonNull(removedFileIds, "removedFileIds is null"));
        rewrittenFileIds = List.copyOf(requireNonNull(rewrittenFileIds, "rewrittenFileIds is null"));
        removedRowGroups = ImmutableMap.copyOf(requireNonNull(removedRowGroups, "removedRowGroups is null"))
                .entrySet().stream()
                .collect(toImmutableMap(Map.Entry::getKey, entry -> List.copyOf(entry.getValue())));
    }

    /** Every file the removals name, each once when the removals are valid. */
    public List<String> fileIds()
    {
        return Stream.of(removedFileIds.stream(), rewrittenFileIds.stream(), removedRowGroups.keySet().stream())
                .flatMap(ids -> ids)
                .collect(toImmutableList());
    }

    public boolean isEmpty()
    {
        return removedFileIds.isEmpty() && rewrittenFileIds.isEmpty() && removedRowGroups.isEmpty();
    }
}
