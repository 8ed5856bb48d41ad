package io.nsc.metadata.catalog;

import com.google.common.collect.ImmutableSet;
import io.nsc.protocol.stats.CompactFileStats;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;

import java.time.Clock;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static com.google.common.collect.ImmutableSet.toImmutableSet;
import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.alreadyExists;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.FileIds.isValidFileId;
import static io.nsc.metadata.catalog.Names.checkSchemaName;
import static io.nsc.metadata.catalog.Names.checkTableName;
import static io.nsc.metadata.catalog.Names.checkViewName;
import static io.nsc.metadata.catalog.TableDefinitions.checkColumnsMatch;
import static io.nsc.metadata.catalog.TableDefinitions.validateColumns;
import static io.nsc.metadata.catalog.TableDefinitions.validateComment;
import static io.nsc.metadata.catalog.TableDefinitions.validateProperties;
import static io.nsc.metadata.catalog.TableRows.findTable;
import static io.nsc.metadata.catalog.TableRows.schemaExists;
import static java.util.Objects.requireNonNull;

/**
 * Commits: the files a write uploaded become a new version of its table, all or nothing.
 *
 * <p>A commit may claim only files of open allocations ({@link AllocationTimeout}), each file
 * once, on the nodes it was allocated to. What the writer expected (the table's id, its version,
 * that the table does not exist yet) is checked in the same transaction as the write, so of two
 * writers that expected the same state only one commits, on one metadata service or several.
 */
public final class CommitCatalog
{
    // the column's declared size in H2; real sketches are about 1 kB per column
    private static final int MAX_COLUMN_SKETCHES_BYTES = 16 * 1024 * 1024;

    private final CatalogDatabase database;
    // wall-clock time: allocation times are persisted and must mean the same after a restart
    private final Clock clock;
    private final AllocationTimeout allocationTimeout;
    private final TableVersionRetention retention;

    public CommitCatalog(CatalogDatabase database, Clock clock, AllocationTimeout allocationTimeout, TableVersionRetention retention)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.allocationTimeout = requireNonNull(allocationTimeout, "allocationTimeout is null");
        this.retention = requireNonNull(retention, "retention is null");
    }

    /**
     * Adds the request's files to the table as one new version, creating the table first when
     * asked, and records a refresh's new definition in its materialized view. Either everything
     * is written or, when any check fails, nothing.
     */
    public CommitResult commit(CommitRequest request)
    {
        validate(request);
        return database.inTransaction(handle -> {
            CommitResult result = commitFiles(handle, request);
            // after the files: a refresh sent again after a failover is refused for its files,
            // already committed, which tells the connector the first attempt went through
            return request.viewRefresh()
                    .map(refresh -> result.withView(ViewCatalog.update(handle, refresh.view(), refresh.definition(), refresh.comment(), refresh.expectedVersion(), true)))
                    .orElse(result);
        });
    }

    private CommitResult commitFiles(Handle handle, CommitRequest request)
    {
        SchemaTableName name = request.table();
        if (!schemaExists(handle, name.schemaName())) {
            throw notFound("Schema %s does not exist", name.schemaName());
        }
        Optional<TableEntry> existing = findTable(handle, name);
        checkExpectedTableId(name, existing, request);
        long now = clock.millis();
        Optional<DroppedTable> replaced = Optional.empty();
        if (existing.isPresent() && request.replace()) {
            // CREATE OR REPLACE TABLE AS: the old table goes as a DROP TABLE would take it
            replaced = Optional.of(retention.drop(handle, existing.get(), now));
            existing = Optional.empty();
        }
        if (existing.isPresent() && request.mustCreate()) {
            // a CREATE TABLE AS that lost a race with another CREATE must not append to its table
            throw alreadyExists("Table %s already exists", name);
        }
        if (existing.isEmpty() && !request.createsTableIfAbsent()) {
            throw notFound("Table %s does not exist", name);
        }
        if (existing.isPresent() && request.files().isEmpty() && request.removals().isEmpty()) {
            return appendNothing(name, existing.get(), request);
        }
        checkExpectedVersion(name, existing.map(TableEntry::version), request);
        if (!request.files().isEmpty()) {
            // a DELETE that only removes writes no file: a column change since it began does not concern it
            existing.ifPresent(table -> checkColumnsMatch(name, table.columns(), request.columns()));
        }
        checkFilesCommittable(handle, request.files(), now);

        long tableId = existing.isPresent() ? existing.get().tableId() : TableRows.insertTable(handle, name, request.columns(), request.tableProperties(), request.tableComment(), now);
        long version = existing.map(TableEntry::version).orElse(0L) + 1;
        RemovalCounts removed = RemovalCounts.NONE;
        if (request.removals().isPresent()) {
            // removals name only an existing table's files (validated: no removals with create_table)
            FileRemovals removals = request.removals().get();
            long survivingRows = survivors(request.files(), removals).stream().mapToLong(FileEntry::rowCount).sum();
            removed = TableFileRemoval.remove(handle, existing.orElseThrow(), removals, version, survivingRows);
        }
        insertFiles(handle, tableId, version, request.files());
        deleteAllocations(handle, request.files());
        TableRows.updateTable(handle, tableId, version, request.files());
        retention.recordVersion(handle, tableId, version, now, operation(request, existing.isEmpty()));
        return new CommitResult(tableId, version, existing.isEmpty(), replaced, removed);
    }

    /** What the history calls the commit: a row change inserts rows beside the survivors only in UPDATE and MERGE. */
    private static TableOperation operation(CommitRequest request, boolean creates)
    {
        if (creates) {
            return TableOperation.CREATE_TABLE_AS;
        }
        if (request.removals().isPresent()) {
            FileRemovals removals = request.removals().get();
            if (removals.optimize()) {
                return TableOperation.OPTIMIZE;
            }
            return removals.insertedFileIds().isEmpty() ? TableOperation.DELETE : TableOperation.MERGE;
        }
        return TableOperation.INSERT;
    }

    private static void checkExpectedTableId(SchemaTableName name, Optional<TableEntry> existing, CommitRequest request)
    {
        if (request.expectedTableId().isEmpty()) {
            return;
        }
        if (existing.isEmpty()) {
            throw aborted("Table %s was dropped while the write ran; nothing was committed", name);
        }
        if (existing.get().tableId() != request.expectedTableId().getAsLong()) {
            throw aborted("Table %s was dropped and created again while the write ran; nothing was committed", name);
        }
    }

    /**
     * An INSERT that wrote no rows: nothing changes, so the version stays (readers keep their
     * cached file lists). The expected version is not checked: a write of nothing cannot conflict
     * with a commit that came in between, it serializes before it.
     */
    private static CommitResult appendNothing(SchemaTableName name, TableEntry table, CommitRequest request)
    {
        checkColumnsMatch(name, table.columns(), request.columns());
        return new CommitResult(table.tableId(), table.version(), false);
    }

    private static void checkExpectedVersion(SchemaTableName name, Optional<Long> version, CommitRequest request)
    {
        if (request.expectedVersion().isEmpty()) {
            return;
        }
        long expected = request.expectedVersion().getAsLong();
        if (version.isEmpty()) {
            throw aborted("Table %s does not exist, but the commit expects it at version %s", name, expected);
        }
        if (version.get() != expected) {
            throw aborted("Table %s is at version %s, but the commit expects version %s", name, version.get(), expected);
        }
    }

    private void checkFilesCommittable(Handle handle, List<FileEntry> files, long now)
    {
        Set<String> knownNodes = ImmutableSet.copyOf(handle.createQuery("SELECT node_id FROM nodes").mapTo(String.class).list());
        for (FileEntry file : files) {
            Optional<String> owner = TableRows.committedTo(handle, file.fileId());
            if (owner.isPresent()) {
                throw failedPrecondition("File %s is already committed to table %s", file.fileId(), owner.get());
            }
            AllocationState allocation = AllocationState.find(handle, file.fileId())
                    .orElseThrow(() -> failedPrecondition("File %s has no open allocation: its id was not issued by AllocateFiles, or its allocation expired and was purged", file.fileId()));
            if (!allocationTimeout.isOpen(allocation, now)) {
                // its storage nodes may have deleted it as an orphan already
                throw failedPrecondition("Cannot commit: file id %s was allocated too long ago (allocation timeout %s)", file.fileId(), allocationTimeout);
            }
            for (String nodeId : file.replicaNodeIds()) {
                if (!knownNodes.contains(nodeId)) {
                    throw failedPrecondition("File %s names replica node %s, which is not a registered storage node", file.fileId(), nodeId);
                }
                // only nodes AllocateFiles or ReplaceReplica chose (and granted the upload) hold a replica
                if (!allocation.replicaNodeIds().contains(nodeId)) {
                    throw failedPrecondition("File %s names replica node %s, which was not allocated to hold it (allocated: %s)",
                            file.fileId(), nodeId, String.join(", ", allocation.replicaNodeIds()));
                }
            }
        }
    }

    private static void insertFiles(Handle handle, long tableId, long version, List<FileEntry> files)
    {
        if (files.isEmpty()) {
            return;
        }
        PreparedBatch fileBatch = handle.prepareBatch(
                """
                INSERT INTO files (file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches)
                VALUES (:file_id, :table_id, :committed_version, :commit_ordinal, :size_bytes, :row_count, :crc32c, :compact_stats, :column_sketches)
                """);
        PreparedBatch replicaBatch = handle.prepareBatch("INSERT INTO file_replicas (file_id, node_id, ordinal) VALUES (:file_id, :node_id, :ordinal)");
        for (int ordinal = 0; ordinal < files.size(); ordinal++) {
            FileEntry file = files.get(ordinal);
            fileBatch.bind("file_id", file.fileId())
                    .bind("table_id", tableId)
                    .bind("committed_version", version)
                    .bind("commit_ordinal", ordinal)
                    .bind("size_bytes", file.sizeBytes())
                    .bind("row_count", file.rowCount())
                    .bind("crc32c", file.crc32c())
                    .bind("compact_stats", file.compactStats().toByteArray())
                    .bind("column_sketches", file.columnSketches().isEmpty() ? null : file.columnSketches().toByteArray())
                    .add();
            for (int replica = 0; replica < file.replicaNodeIds().size(); replica++) {
                replicaBatch.bind("file_id", file.fileId())
                        .bind("node_id", file.replicaNodeIds().get(replica))
                        .bind("ordinal", replica)
                        .add();
            }
        }
        // files first: the replicas reference them
        fileBatch.execute();
        replicaBatch.execute();
    }

    private static void deleteAllocations(Handle handle, List<FileEntry> files)
    {
        if (files.isEmpty()) {
            return;
        }
        PreparedBatch batch = handle.prepareBatch("DELETE FROM allocations WHERE file_id = :file_id");
        for (FileEntry file : files) {
            batch.bind("file_id", file.fileId()).add();
        }
        batch.execute();
    }

    // ---------------------------------------------------------------- validation without the database

    private static void validate(CommitRequest request)
    {
        checkSchemaName(request.table().schemaName());
        checkTableName(request.table().tableName());
        validateColumns(request.columns());
        validateProperties(request.tableProperties());
        validateComment(request.tableComment());
        if (request.replace() && !request.mustCreate()) {
            throw invalidArgument("A commit that replaces a table must create it (must_create)");
        }
        Set<String> fileIds = new HashSet<>();
        for (FileEntry file : request.files()) {
            validateFile(file);
            if (!fileIds.add(file.fileId())) {
                throw invalidArgument("File %s appears twice in the commit", file.fileId());
            }
        }
        request.removals().ifPresent(removals -> validateRemovals(request, removals));
        request.viewRefresh().ifPresent(refresh -> validateViewRefresh(request, refresh));
    }

    private static void validateViewRefresh(CommitRequest request, ViewRefresh refresh)
    {
        if (request.createsTableIfAbsent() || request.replace()) {
            throw invalidArgument("A commit that refreshes a materialized view cannot create or replace its table");
        }
        checkViewName(refresh.view().tableName());
        // the storage table of a materialized view is in the view's schema
        if (!refresh.view().schemaName().equals(request.table().schemaName())) {
            throw invalidArgument("The materialized view %s is not in the schema of table %s", refresh.view(), request.table());
        }
        ViewCatalog.validateUpdate(refresh.definition(), refresh.comment());
    }

    /** The commit's files that hold rewritten files' surviving rows: all but those of inserted rows. */
    private static List<FileEntry> survivors(List<FileEntry> files, FileRemovals removals)
    {
        return files.stream()
                .filter(file -> !removals.insertedFileIds().contains(file.fileId()))
                .toList();
    }

    private static void validateRemovals(CommitRequest request, FileRemovals removals)
    {
        if (request.createsTableIfAbsent() || request.replace()) {
            throw invalidArgument("A commit that removes files cannot create or replace its table");
        }
        if (removals.readVersion() < 1) {
            throw invalidArgument("The removals read version %s: tables start at version 1", removals.readVersion());
        }
        if (removals.isEmpty()) {
            throw invalidArgument("The commit's removals name no file");
        }
        if (removals.optimize() && (!removals.removedFileIds().isEmpty() || !removals.removedRowGroups().isEmpty() || !removals.insertedFileIds().isEmpty())) {
            // an OPTIMIZE keeps every row: it only rewrites files
            throw invalidArgument("An OPTIMIZE only rewrites files, but the commit removes %s files and row groups of %s, and names %s files of inserted rows",
                    removals.removedFileIds().size(), removals.removedRowGroups().size(), removals.insertedFileIds().size());
        }
        Set<String> added = request.files().stream().map(FileEntry::fileId).collect(toImmutableSet());
        for (String inserted : removals.insertedFileIds()) {
            if (!added.contains(inserted)) {
                throw invalidArgument("File %s is named as holding inserted rows, but the commit does not add it", inserted);
            }
        }
        List<FileEntry> survivors = survivors(request.files(), removals);
        if (!removals.rewrittenFileIds().isEmpty() && survivors.isEmpty()) {
            throw invalidArgument("The commit rewrites %s files but adds none", removals.rewrittenFileIds().size());
        }
        if (removals.rewrittenFileIds().isEmpty() && !survivors.isEmpty()) {
            // files that are not named as inserted hold the rewritten files' survivors, nothing else
            throw invalidArgument("The commit removes files and adds %s files, but rewrites none", survivors.size());
        }
        Set<String> named = new HashSet<>();
        for (String fileId : removals.fileIds()) {
            if (!isValidFileId(fileId)) {
                throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters issued by AllocateFiles", fileId);
            }
            if (!named.add(fileId)) {
                throw invalidArgument("File %s is named twice in the commit's removals", fileId);
            }
        }
    }

    private static void validateFile(FileEntry file)
    {
        String fileId = file.fileId();
        if (!isValidFileId(fileId)) {
            throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters issued by AllocateFiles", fileId);
        }
        if (file.sizeBytes() < 0 || file.rowCount() < 0) {
            throw invalidArgument("File %s has a negative size or row count", fileId);
        }
        if (file.replicaNodeIds().isEmpty()) {
            throw invalidArgument("File %s has no replicas", fileId);
        }
        if (ImmutableSet.copyOf(file.replicaNodeIds()).size() != file.replicaNodeIds().size()) {
            throw invalidArgument("File %s names a replica node twice: %s", fileId, file.replicaNodeIds());
        }
        long statsRowCount = compactStatsRowCount(file);
        if (statsRowCount != file.rowCount()) {
            throw invalidArgument("File %s has row count %s but its compact stats say %s", fileId, file.rowCount(), statsRowCount);
        }
        if (file.columnSketches().size() > MAX_COLUMN_SKETCHES_BYTES) {
            throw invalidArgument("File %s has %s bytes of column sketches, more than %s", fileId, file.columnSketches().size(), MAX_COLUMN_SKETCHES_BYTES);
        }
    }

    // The service only stores the stats, but a blob the connector cannot parse would break every
    // query over the table, so it is rejected at the door.
    private static long compactStatsRowCount(FileEntry file)
    {
        try {
            return CompactFileStats.wrap(file.compactStats().toByteArray()).rowCount();
        }
        catch (RuntimeException e) {
            throw invalidArgument("File %s has invalid compact stats: %s", file.fileId(), e.getMessage());
        }
    }
}
