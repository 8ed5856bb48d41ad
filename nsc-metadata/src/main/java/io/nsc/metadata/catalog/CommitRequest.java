package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableMap;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * Files to add to a table in one transaction. The metadata service's RPC maps every field of its
 * request onto the canonical constructor; elsewhere the factories name what a statement commits
 * ({@link #append}, {@link #insert}, {@link #createTableAs}, {@link #delete}...).
 *
 * @param columns the files' schema: a created table gets it, an existing table must match it
 * @param createTable create the table when it does not exist
 * @param expectedVersion when present, the commit is aborted unless the table is at this version
 * @param tableProperties properties of a table the commit creates; ignored for an existing table,
 *        like the columns' comments and {@code tableComment}
 * @param mustCreate fail instead of appending when the table exists (CREATE TABLE AS); implies
 *        {@code createTable}
 * @param replace with {@code mustCreate}: drop a table of that name in the same transaction
 *        instead of failing (CREATE OR REPLACE TABLE AS)
 * @param removals a DELETE's: what leaves the existing table in the same transaction
 * @param viewRefresh a REFRESH MATERIALIZED VIEW's: the view's new definition, recorded in the same
 *        transaction as the storage table's files
 */
public record CommitRequest(
        SchemaTableName table,
        List<TableColumn> columns,
        boolean createTable,
        List<FileEntry> files,
        OptionalLong expectedVersion,
        Map<String, String> tableProperties,
        boolean mustCreate,
        OptionalLong expectedTableId,
        Optional<String> tableComment,
        boolean replace,
        Optional<FileRemovals> removals,
        Optional<ViewRefresh> viewRefresh)
{
    public CommitRequest
    {
        requireNonNull(table, "table is null");
        columns = List.copyOf(requireNonNull(columns, "columns is null"));
        files = List.copyOf(requireNonNull(files, "files is null"));
        requireNonNull(expectedVersion, "expectedVersion is null");
        tableProperties = ImmutableMap.copyOf(requireNonNull(tableProperties, "tableProperties is null"));
        requireNonNull(expectedTableId, "expectedTableId is null");
        requireNonNull(tableComment, "tableComment is null");
        requireNonNull(removals, "removals is null");
        requireNonNull(viewRefresh, "viewRefresh is null");
    }

    /** An append to the table of that name, whatever its id; it must exist. */
    public static CommitRequest append(SchemaTableName table, List<TableColumn> columns, List<FileEntry> files)
    {
        return new CommitRequest(table, columns, false, files, OptionalLong.empty(), Map.of(), false, OptionalLong.empty(), Optional.empty(), false, Optional.empty(), Optional.empty());
    }

    /** An append to the table of that name, or the first commit of a new one with these properties. */
    public static CommitRequest createOrAppend(SchemaTableName table, List<TableColumn> columns, List<FileEntry> files, Map<String, String> tableProperties)
    {
        return new CommitRequest(table, columns, true, files, OptionalLong.empty(), tableProperties, false, OptionalLong.empty(), Optional.empty(), false, Optional.empty(), Optional.empty());
    }

    /** An INSERT's commit: files appended to the table with id {@code tableId}, not another created under its name since. */
    public static CommitRequest insert(SchemaTableName table, List<TableColumn> columns, long tableId, List<FileEntry> files)
    {
        return new CommitRequest(table, columns, false, files, OptionalLong.empty(), Map.of(), false, OptionalLong.of(tableId), Optional.empty(), false, Optional.empty(), Optional.empty());
    }

    /** A CREATE TABLE AS's commit: the table with its first files, failing when a table of that name exists. */
    public static CommitRequest createTableAs(SchemaTableName table, List<TableColumn> columns, List<FileEntry> files, Map<String, String> tableProperties)
    {
        return new CommitRequest(table, columns, true, files, OptionalLong.empty(), tableProperties, true, OptionalLong.empty(), Optional.empty(), false, Optional.empty(), Optional.empty());
    }

    /** A CREATE OR REPLACE TABLE AS's commit: a table of that name is dropped in the same transaction. */
    public static CommitRequest createOrReplaceTableAs(SchemaTableName table, List<TableColumn> columns, List<FileEntry> files, Map<String, String> tableProperties)
    {
        return new CommitRequest(table, columns, true, files, OptionalLong.empty(), tableProperties, true, OptionalLong.empty(), Optional.empty(), true, Optional.empty(), Optional.empty());
    }

    /** A DELETE's commit into the table with id {@code tableId}: the removals, and the rewritten files' surviving rows. */
    public static CommitRequest delete(SchemaTableName table, List<TableColumn> columns, long tableId, List<FileEntry> files, FileRemovals removals)
    {
        return new CommitRequest(table, columns, false, files, OptionalLong.empty(), Map.of(), false, OptionalLong.of(tableId), Optional.empty(), false, Optional.of(removals), Optional.empty());
    }

    /** This commit, aborted unless the table is at {@code version} when it is applied. */
    public CommitRequest withExpectedVersion(long version)
    {
        return new CommitRequest(table, columns, createTable, files, OptionalLong.of(version), tableProperties, mustCreate, expectedTableId, tableComment, replace, removals, viewRefresh);
    }

    /** This commit, giving the table it creates this comment. */
    public CommitRequest withTableComment(String comment)
    {
        return new CommitRequest(table, columns, createTable, files, expectedVersion, tableProperties, mustCreate, expectedTableId, Optional.of(comment), replace, removals, viewRefresh);
    }

    /** This commit, recording {@code refresh} in its materialized view in the same transaction. */
    public CommitRequest withViewRefresh(ViewRefresh refresh)
    {
        return new CommitRequest(table, columns, createTable, files, expectedVersion, tableProperties, mustCreate, expectedTableId, tableComment, replace, removals, Optional.of(refresh));
    }

    public boolean createsTableIfAbsent()
    {
        return createTable || mustCreate;
    }
}
