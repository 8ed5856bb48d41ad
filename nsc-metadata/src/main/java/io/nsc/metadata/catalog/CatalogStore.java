package io.nsc.metadata.catalog;

import com.google.common.base.Joiner;
import com.google.common.base.Splitter;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import io.airlift.units.Duration;
import io.nsc.protocol.stats.CompactFileStats;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import static com.google.common.collect.ImmutableMap.toImmutableMap;
import static io.nsc.metadata.MetadataErrors.aborted;
import static io.nsc.metadata.MetadataErrors.alreadyExists;
import static io.nsc.metadata.MetadataErrors.failedPrecondition;
import static io.nsc.metadata.MetadataErrors.invalidArgument;
import static io.nsc.metadata.MetadataErrors.notFound;
import static io.nsc.metadata.catalog.FileIds.isValidFileId;
import static io.nsc.metadata.catalog.Names.checkColumnName;
import static io.nsc.metadata.catalog.Names.checkSchemaName;
import static io.nsc.metadata.catalog.Names.checkTableName;
import static io.nsc.metadata.catalog.Names.checkTablePropertyName;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.HOURS;

/**
 * The durable catalog: schemas, tables and their columns, committed files with their replicas,
 * storage nodes, and file ids issued but not yet committed.
 *
 * <p>Each public method is one transaction. Methods that change state validate what they can
 * before touching the database, then re-check everything that depends on the database's
 * current state inside the transaction; a method that throws has changed nothing.
 *
 * <p>An allocation is open for the allocation timeout after it was issued. A commit may claim
 * only files of open allocations; a file that is neither committed to a table nor in an open
 * allocation is an orphan, which its storage nodes may delete ({@link #findOrphans}).
 *
 * <p>A table version stays listable for the table version retention after a later commit
 * replaced it or the table was dropped ({@link TableVersionRetention}): a dropped table's files
 * are kept, and are no orphans, until then.
 */
public final class CatalogStore
{
    // Bounds the work one FindOrphans call does while it holds the catalog's lock.
    public static final int MAX_ORPHAN_CHECK_FILE_IDS = 10_000;
    private static final int MAX_TABLE_PROPERTY_VALUE_LENGTH = 65_536;
    // the column's declared size; real sketches are about 1 kB per column
    private static final int MAX_COLUMN_SKETCHES_BYTES = 16 * 1024 * 1024;
    // the declared size of allocations.replica_node_ids
    private static final int MAX_REPLICA_NODE_IDS_LENGTH = 65_536;

    private static final Joiner NODE_ID_JOINER = Joiner.on(',');
    private static final Splitter NODE_ID_SPLITTER = Splitter.on(',').omitEmptyStrings();
    public static final Duration DEFAULT_TABLE_VERSION_RETENTION = new Duration(1, HOURS);

    private final CatalogDatabase database;
    // wall-clock time: allocation times are persisted and must mean the same after a restart
    private final Clock clock;
    private final Duration allocationTimeout;
    private final long allocationTimeoutMillis;
    private final TableVersionRetention retention;

    public CatalogStore(CatalogDatabase database, Clock clock, Duration allocationTimeout)
    {
        this(database, clock, allocationTimeout, DEFAULT_TABLE_VERSION_RETENTION);
    }

    public CatalogStore(CatalogDatabase database, Clock clock, Duration allocationTimeout, Duration tableVersionRetention)
    {
        this.database = requireNonNull(database, "database is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.allocationTimeout = requireNonNull(allocationTimeout, "allocationTimeout is null");
        this.allocationTimeoutMillis = allocationTimeout.toMillis();
        this.retention = new TableVersionRetention(tableVersionRetention);
    }

    // ---------------------------------------------------------------- cluster

    /**
     * The id of the cluster this catalog belongs to: created with the database (schema version 3)
     * and never changed, so it survives restarts and tells storage nodes whether they still talk
     * to the catalog that knows their files.
     */
    public String clusterId()
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT cluster_id FROM cluster");
                    ResultSet resultSet = statement.executeQuery()) {
                if (!resultSet.next()) {
                    throw new CatalogDatabaseException("The catalog database has no cluster id");
                }
                return resultSet.getString(1);
            }
        });
    }

    // ---------------------------------------------------------------- schemas and tables

    public List<String> listSchemas()
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement("SELECT schema_name FROM schemas ORDER BY schema_name");
                    ResultSet resultSet = statement.executeQuery()) {
                ImmutableList.Builder<String> names = ImmutableList.builder();
                while (resultSet.next()) {
                    names.add(resultSet.getString(1));
                }
                return names.build();
            }
        });
    }

    /**
     * @return whether the schema was created; false when it existed and {@code ifNotExists} is set
     */
    public boolean createSchema(String schemaName, boolean ifNotExists)
    {
        checkSchemaName(schemaName);
        return database.inTransaction(connection -> {
            if (schemaExists(connection, schemaName)) {
                if (ifNotExists) {
                    return false;
                }
                throw alreadyExists("Schema %s already exists", schemaName);
            }
            try (PreparedStatement statement = connection.prepareStatement("INSERT INTO schemas (schema_name, created_millis) VALUES (?, ?)")) {
                statement.setString(1, schemaName);
                statement.setLong(2, clock.millis());
                statement.executeUpdate();
            }
            return true;
        });
    }

    /**
     * Drops an empty schema. A name that breaks the naming rule cannot exist, so it is not found.
     *
     * @return whether the schema was dropped; false when it did not exist and {@code ifExists} is set
     */
    public boolean dropSchema(String schemaName, boolean ifExists)
    {
        requireNonNull(schemaName, "schemaName is null");
        return database.inTransaction(connection -> {
            if (!schemaExists(connection, schemaName)) {
                if (ifExists) {
                    return false;
                }
                throw notFound("Schema %s does not exist", schemaName);
            }
            try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM tables WHERE schema_name = ? LIMIT 1")) {
                if (queryOptional(statement, schemaName, _ -> true).isPresent()) {
                    throw failedPrecondition("Schema %s is not empty", schemaName);
                }
            }
            executeUpdate(connection, "DELETE FROM schemas WHERE schema_name = ?", schemaName);
            return true;
        });
    }

    /**
     * Tables of one schema, or of every schema when {@code schemaName} is empty, ordered by name.
     */
    public List<SchemaTableName> listTables(Optional<String> schemaName)
    {
        return database.inTransaction(connection -> {
            // a name that breaks the naming rule cannot exist: that is NOT_FOUND, not a bad request
            if (schemaName.isPresent() && !schemaExists(connection, schemaName.get())) {
                throw notFound("Schema %s does not exist", schemaName.get());
            }
            String sql = "SELECT schema_name, table_name FROM tables" +
                    (schemaName.isPresent() ? " WHERE schema_name = ?" : "") +
                    " ORDER BY schema_name, table_name";
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                if (schemaName.isPresent()) {
                    statement.setString(1, schemaName.get());
                }
                try (ResultSet resultSet = statement.executeQuery()) {
                    ImmutableList.Builder<SchemaTableName> tables = ImmutableList.builder();
                    while (resultSet.next()) {
                        tables.add(new SchemaTableName(resultSet.getString(1), resultSet.getString(2)));
                    }
                    return tables.build();
                }
            }
        });
    }

    public Optional<TableEntry> getTable(SchemaTableName table)
    {
        requireNonNull(table, "table is null");
        return database.inTransaction(connection -> findTable(connection, table));
    }

    /**
     * Creates an empty table. It starts at version 1, like a table after its first commit, so
     * that every existing table has a version a commit can expect.
     *
     * @param properties stored as given: their values are the connector's to validate
     */
    public CreateTableResult createTable(SchemaTableName name, List<TableColumn> columns, Map<String, String> properties, boolean ifNotExists)
    {
        checkSchemaName(name.schemaName());
        checkTableName(name.tableName());
        validateColumns(columns);
        validateProperties(properties);
        return database.inTransaction(connection -> {
            if (!schemaExists(connection, name.schemaName())) {
                throw notFound("Schema %s does not exist", name.schemaName());
            }
            Optional<TableEntry> existing = findTable(connection, name);
            if (existing.isPresent()) {
                if (ifNotExists) {
                    return new CreateTableResult(existing.get(), false);
                }
                throw alreadyExists("Table %s already exists", name);
            }
            long now = clock.millis();
            long tableId = insertTable(connection, name, columns, properties, now);
            updateTable(connection, tableId, 1, List.of());
            retention.recordVersion(connection, tableId, 1, now);
            return new CreateTableResult(findTable(connection, name).orElseThrow(), true);
        });
    }

    /**
     * Removes the table with its columns, properties and files in one transaction. Its files stay
     * listable by the versions of the table for the table version retention (a query that planned
     * before the drop reads on); after it their ids belong to no table, and storage nodes reclaim
     * them as orphans.
     *
     * @return the dropped table; empty when it did not exist and {@code ifExists} is set
     */
    public Optional<DroppedTable> dropTable(SchemaTableName name, boolean ifExists)
    {
        requireNonNull(name, "name is null");
        return database.inTransaction(connection -> {
            Optional<TableEntry> table = findTable(connection, name);
            if (table.isEmpty()) {
                if (ifExists) {
                    return Optional.empty();
                }
                throw notFound("Table %s does not exist", name);
            }
            long tableId = table.get().tableId();
            long now = clock.millis();
            retention.purgeExpiredDrops(connection, now);
            int filesKept = TableVersionRetention.keepDropped(connection, table.get(), now);
            // children first: they reference the rows deleted after them
            executeUpdate(connection, "DELETE FROM file_replicas WHERE file_id IN (SELECT file_id FROM files WHERE table_id = ?)", tableId);
            executeUpdate(connection, "DELETE FROM files WHERE table_id = ?", tableId);
            executeUpdate(connection, "DELETE FROM table_properties WHERE table_id = ?", tableId);
            executeUpdate(connection, "DELETE FROM columns WHERE table_id = ?", tableId);
            executeUpdate(connection, "DELETE FROM tables WHERE table_id = ?", tableId);
            return Optional.of(new DroppedTable(tableId, filesKept));
        });
    }

    /**
     * The table's files at its current version, each with its replicas in the order readers
     * should try them (the order the writer committed), all at once: for small tables and tests;
     * a listing of a table of any size pages through it with {@link #getTableFilesPage}.
     */
    public Optional<TableFiles> getTableFiles(long tableId)
    {
        return getTableFilesPage(TableFilesPageRequest.wholeTable(tableId, true))
                .map(page -> new TableFiles(page.tableId(), page.version(), page.files()));
    }

    /**
     * Some files of a table version, in commit order, each with its replicas in the order readers
     * should try them (see {@link TableFileListing} for why the pages of one version never mix
     * versions).
     *
     * @return empty when the table does not exist (a dropped table's versions are listed for the
     *         table version retention, its current one is not)
     * @throws io.grpc.StatusRuntimeException OUT_OF_RANGE for a version the table has not reached;
     *         FAILED_PRECONDITION for a version replaced the retention ago or longer
     */
    public Optional<TableFilesPage> getTableFilesPage(TableFilesPageRequest request)
    {
        requireNonNull(request, "request is null");
        return database.inTransaction(connection -> TableFileListing.read(connection, request, retention, clock.millis()));
    }

    // ---------------------------------------------------------------- allocations and commits

    public void addAllocations(List<Allocation> allocations)
    {
        for (Allocation allocation : allocations) {
            if (!isValidFileId(allocation.fileId())) {
                throw new IllegalArgumentException("Invalid file id: " + allocation.fileId());
            }
        }
        database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "INSERT INTO allocations (file_id, created_millis, replica_node_ids) VALUES (?, ?, ?)")) {
                for (Allocation allocation : allocations) {
                    statement.setString(1, allocation.fileId());
                    statement.setLong(2, allocation.createdMillis());
                    statement.setString(3, NODE_ID_JOINER.join(allocation.replicaNodeIds()));
                    statement.addBatch();
                }
                statement.executeBatch();
            }
            return null;
        });
    }

    /** File ids issued and not yet committed, oldest first. */
    public List<Allocation> listAllocations()
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT file_id, created_millis, replica_node_ids FROM allocations ORDER BY created_millis, file_id");
                    ResultSet resultSet = statement.executeQuery()) {
                ImmutableList.Builder<Allocation> allocations = ImmutableList.builder();
                while (resultSet.next()) {
                    allocations.add(new Allocation(resultSet.getString(1), resultSet.getLong(2), NODE_ID_SPLITTER.splitToList(resultSet.getString(3))));
                }
                return allocations.build();
            }
        });
    }

    /**
     * Adds a node to the replicas of an open allocation, so that a commit may name it: the writer's
     * upload to a node of the allocation failed and it places that replica elsewhere. The node is
     * chosen inside the transaction, so two replacements for one file never pick the same node.
     * Nodes are only ever added: a node whose upload failed may still have stored the file.
     *
     * @param chooser the new node, given the nodes already allocated (none of which it may return);
     *        a status it throws goes to the caller, with nothing changed
     * @return the allocation with the new node last
     * @throws io.grpc.StatusRuntimeException NOT_FOUND unless the allocation is open
     */
    public Allocation addReplica(String fileId, Function<List<String>, String> chooser)
    {
        if (!isValidFileId(fileId)) {
            throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters issued by AllocateFiles", fileId);
        }
        return database.inTransaction(connection -> {
            AllocationState allocation = openAllocation(connection, fileId, clock.millis());
            String nodeId = chooser.apply(allocation.replicaNodeIds());
            if (allocation.replicaNodeIds().contains(nodeId)) {
                throw new IllegalStateException("Node %s already holds a replica of file %s".formatted(nodeId, fileId));
            }
            List<String> replicas = ImmutableList.<String>builder().addAll(allocation.replicaNodeIds()).add(nodeId).build();
            String joined = NODE_ID_JOINER.join(replicas);
            if (joined.length() > MAX_REPLICA_NODE_IDS_LENGTH) {
                throw failedPrecondition("File %s cannot take another replica: its allocation already names %s nodes", fileId, allocation.replicaNodeIds().size());
            }
            try (PreparedStatement statement = connection.prepareStatement("UPDATE allocations SET replica_node_ids = ? WHERE file_id = ?")) {
                statement.setString(1, joined);
                statement.setString(2, fileId);
                statement.executeUpdate();
            }
            return new Allocation(fileId, allocation.createdMillis(), replicas);
        });
    }

    /** The allocation of a file that a commit could still claim, or NOT_FOUND saying why there is none. */
    private AllocationState openAllocation(Connection connection, String fileId, long now)
            throws SQLException
    {
        Optional<AllocationState> allocation;
        try (PreparedStatement statement = connection.prepareStatement("SELECT " + AllocationState.COLUMNS + " FROM allocations WHERE file_id = ?")) {
            allocation = queryOptional(statement, fileId, AllocationState::read);
        }
        if (allocation.isEmpty()) {
            try (PreparedStatement committed = connection.prepareStatement(
                    "SELECT t.schema_name, t.table_name FROM files f JOIN tables t ON f.table_id = t.table_id WHERE f.file_id = ?")) {
                Optional<String> owner = queryOptional(committed, fileId, resultSet -> resultSet.getString(1) + "." + resultSet.getString(2));
                if (owner.isPresent()) {
                    throw notFound("File %s has no open allocation: it is committed to table %s, and its replicas no longer change", fileId, owner.get());
                }
            }
            throw notFound("File %s has no open allocation: its id was not issued by AllocateFiles, or its table was dropped", fileId);
        }
        if (!isOpen(allocation.get(), now)) {
            // its storage nodes may have deleted it as an orphan already
            throw notFound("File %s has no open allocation: it was allocated too long ago (allocation timeout %s); write it again under a new id", fileId, succinct(allocationTimeout));
        }
        return allocation.get();
    }

    /**
     * The ids among {@code fileIds} that no commit claims on {@code nodeId} or can still claim:
     * neither committed to an existing table with a replica on that node, nor a file of a table
     * dropped within the table version retention (on any node: a query may still read it), nor in
     * an open allocation. A committed file whose replica the catalog dropped from the node (one too
     * many after a repair, or a drained node) is an orphan there; one that has no replica row at
     * all is never an orphan, as the node's copy may be the last. An expired allocation reported
     * here is marked, so that no later commit can claim a file that a node may already have
     * deleted, whatever the clock does.
     */
    public List<String> findOrphans(String nodeId, Collection<String> fileIds)
    {
        requireNonNull(nodeId, "nodeId is null");
        if (fileIds.size() > MAX_ORPHAN_CHECK_FILE_IDS) {
            throw invalidArgument("At most %s file ids per orphan check, got %s", MAX_ORPHAN_CHECK_FILE_IDS, fileIds.size());
        }
        for (String fileId : fileIds) {
            if (!isValidFileId(fileId)) {
                // a node that sends such an id is confused: better it deletes nothing
                throw invalidArgument("Invalid file id '%s': file ids are 32 lower-case hex characters", fileId);
            }
        }
        Set<String> distinct = ImmutableSet.copyOf(fileIds);
        return database.inTransaction(connection -> {
            long now = clock.millis();
            // the files of tables dropped longer than the retention ago are orphans from here on
            retention.purgeExpiredDrops(connection, now);
            ImmutableList.Builder<String> orphans = ImmutableList.builder();
            List<String> newlyOrphaned = new ArrayList<>();
            try (PreparedStatement committed = connection.prepareStatement(
                    "SELECT (SELECT COUNT(*) FROM file_replicas r WHERE r.file_id = f.file_id AND r.node_id = ?) > 0 "
                            + "OR NOT EXISTS (SELECT 1 FROM file_replicas r WHERE r.file_id = f.file_id) FROM files f WHERE f.file_id = ?");
                    PreparedStatement allocated = connection.prepareStatement("SELECT " + AllocationState.COLUMNS + " FROM allocations WHERE file_id = ?")) {
                for (String fileId : distinct) {
                    committed.setString(1, nodeId);
                    committed.setString(2, fileId);
                    Optional<Boolean> claimedHere;
                    try (ResultSet row = committed.executeQuery()) {
                        claimedHere = row.next() ? Optional.of(row.getBoolean(1)) : Optional.empty();
                    }
                    if (claimedHere.isPresent()) {
                        if (!claimedHere.get()) {
                            orphans.add(fileId);
                        }
                        continue;
                    }
                    if (TableVersionRetention.isKeptDroppedFile(connection, fileId)) {
                        continue;
                    }
                    Optional<AllocationState> allocation = queryOptional(allocated, fileId, AllocationState::read);
                    if (allocation.isPresent() && isOpen(allocation.get(), now)) {
                        continue;
                    }
                    orphans.add(fileId);
                    if (allocation.isPresent() && !allocation.get().orphaned()) {
                        newlyOrphaned.add(fileId);
                    }
                }
            }
            markOrphaned(connection, newlyOrphaned);
            return orphans.build();
        });
    }

    /**
     * Adds the request's files to the table as one new version, creating the table first when
     * asked. Either everything is written or, when any check fails, nothing.
     */
    public CommitResult commit(CommitRequest request)
    {
        validate(request);
        return database.inTransaction(connection -> {
            SchemaTableName name = request.table();
            if (!schemaExists(connection, name.schemaName())) {
                throw notFound("Schema %s does not exist", name.schemaName());
            }
            Optional<TableEntry> existing = findTable(connection, name);
            checkExpectedTableId(name, existing, request);
            if (existing.isPresent() && request.mustCreate()) {
                // a CREATE TABLE AS that lost a race with another CREATE must not append to its table
                throw alreadyExists("Table %s already exists", name);
            }
            if (existing.isEmpty() && !request.createsTableIfAbsent()) {
                throw notFound("Table %s does not exist", name);
            }
            if (existing.isPresent() && request.files().isEmpty()) {
                return appendNothing(name, existing.get(), request);
            }
            checkExpectedVersion(name, existing.map(TableEntry::version), request);
            existing.ifPresent(table -> checkColumnsMatch(name, table.columns(), request.columns()));
            long now = clock.millis();
            checkFilesCommittable(connection, request.files(), now);

            long tableId = existing.isPresent() ? existing.get().tableId() : insertTable(connection, name, request.columns(), request.tableProperties(), now);
            long version = existing.map(TableEntry::version).orElse(0L) + 1;
            insertFiles(connection, tableId, version, request.files());
            deleteAllocations(connection, request.files());
            updateTable(connection, tableId, version, request.files());
            retention.recordVersion(connection, tableId, version, now);
            return new CommitResult(tableId, version, existing.isEmpty());
        });
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

    // ---------------------------------------------------------------- storage nodes

    /**
     * Upserts the node and makes its replicas of committed files match what it reports: the node
     * is the source of truth for which files it holds. Files the catalog does not know (not
     * committed, or not ours) are ignored.
     */
    public ReplicaSync registerNode(NodeEntry node, Collection<String> fileIds)
    {
        requireNonNull(node, "node is null");
        Set<String> reported = ImmutableSet.copyOf(fileIds);
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "MERGE INTO nodes (node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis) KEY (node_id) VALUES (?, ?, ?, ?, ?, ?)")) {
                statement.setString(1, node.nodeId());
                statement.setString(2, node.address());
                statement.setLong(3, node.capacityBytes());
                statement.setLong(4, node.freeBytes());
                statement.setLong(5, node.fileCount());
                statement.setLong(6, node.lastHeartbeatMillis());
                statement.executeUpdate();
            }
            return syncReplicas(connection, node.nodeId(), reported);
        });
    }

    /** @return false when the node is not in the catalog */
    public boolean updateNodeHeartbeat(String nodeId, long freeBytes, long fileCount, long heartbeatMillis)
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "UPDATE nodes SET free_bytes = ?, file_count = ?, last_heartbeat_millis = ? WHERE node_id = ?")) {
                statement.setLong(1, freeBytes);
                statement.setLong(2, fileCount);
                statement.setLong(3, heartbeatMillis);
                statement.setString(4, nodeId);
                return statement.executeUpdate() == 1;
            }
        });
    }

    /**
     * Records the newest heartbeat of each of several nodes in one transaction; beats of nodes no
     * longer in the catalog are ignored.
     */
    public void recordHeartbeats(Collection<NodeHeartbeat> heartbeats)
    {
        database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "UPDATE nodes SET free_bytes = ?, file_count = ?, last_heartbeat_millis = ? WHERE node_id = ?")) {
                for (NodeHeartbeat heartbeat : heartbeats) {
                    statement.setLong(1, heartbeat.freeBytes());
                    statement.setLong(2, heartbeat.fileCount());
                    statement.setLong(3, heartbeat.heartbeatMillis());
                    statement.setString(4, heartbeat.nodeId());
                    statement.addBatch();
                }
                statement.executeBatch();
            }
            return null;
        });
    }

    public List<NodeEntry> listNodes()
    {
        return database.inTransaction(connection -> {
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT node_id, address, capacity_bytes, free_bytes, file_count, last_heartbeat_millis, draining FROM nodes ORDER BY node_id");
                    ResultSet resultSet = statement.executeQuery()) {
                ImmutableList.Builder<NodeEntry> nodes = ImmutableList.builder();
                while (resultSet.next()) {
                    nodes.add(new NodeEntry(
                            resultSet.getString(1),
                            resultSet.getString(2),
                            resultSet.getLong(3),
                            resultSet.getLong(4),
                            resultSet.getLong(5),
                            resultSet.getLong(6),
                            resultSet.getBoolean(7)));
                }
                return nodes.build();
            }
        });
    }

    // ---------------------------------------------------------------- validation without the database

    private static void validate(CommitRequest request)
    {
        checkSchemaName(request.table().schemaName());
        checkTableName(request.table().tableName());
        validateColumns(request.columns());
        validateProperties(request.tableProperties());
        Set<String> fileIds = new HashSet<>();
        for (FileEntry file : request.files()) {
            validateFile(file);
            if (!fileIds.add(file.fileId())) {
                throw invalidArgument("File %s appears twice in the commit", file.fileId());
            }
        }
    }

    private static void validateColumns(List<TableColumn> columns)
    {
        if (columns.isEmpty()) {
            throw invalidArgument("A table needs at least one column");
        }
        Set<String> names = new HashSet<>();
        for (TableColumn column : columns) {
            checkColumnName(column.name());
            if (column.type().isBlank()) {
                throw invalidArgument("Column %s has no type", column.name());
            }
            if (!names.add(column.name())) {
                throw invalidArgument("Duplicate column name %s", column.name());
            }
        }
    }

    private static void validateProperties(Map<String, String> properties)
    {
        properties.forEach((name, value) -> {
            checkTablePropertyName(name);
            if (value.length() > MAX_TABLE_PROPERTY_VALUE_LENGTH) {
                throw invalidArgument("The value of table property %s is longer than %s characters", name, MAX_TABLE_PROPERTY_VALUE_LENGTH);
            }
        });
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

    // ---------------------------------------------------------------- checks against the database

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

    static void checkColumnsMatch(SchemaTableName name, List<TableColumn> tableColumns, List<TableColumn> fileColumns)
    {
        int count = Math.max(tableColumns.size(), fileColumns.size());
        for (int i = 0; i < count; i++) {
            Optional<TableColumn> table = i < tableColumns.size() ? Optional.of(tableColumns.get(i)) : Optional.empty();
            Optional<TableColumn> files = i < fileColumns.size() ? Optional.of(fileColumns.get(i)) : Optional.empty();
            if (!table.equals(files)) {
                throw failedPrecondition(
                        "Columns of table %s do not match the files: column %s: table has %s, files have %s",
                        name,
                        i + 1,
                        table.map(TableColumn::toString).orElse("no such column"),
                        files.map(TableColumn::toString).orElse("no such column"));
            }
        }
    }

    private void checkFilesCommittable(Connection connection, List<FileEntry> files, long now)
            throws SQLException
    {
        Set<String> knownNodes = nodeIds(connection);
        try (PreparedStatement allocated = connection.prepareStatement("SELECT " + AllocationState.COLUMNS + " FROM allocations WHERE file_id = ?");
                PreparedStatement committed = connection.prepareStatement(
                        "SELECT t.schema_name, t.table_name FROM files f JOIN tables t ON f.table_id = t.table_id WHERE f.file_id = ?")) {
            for (FileEntry file : files) {
                Optional<String> owner = queryOptional(committed, file.fileId(), resultSet -> resultSet.getString(1) + "." + resultSet.getString(2));
                if (owner.isPresent()) {
                    throw failedPrecondition("File %s is already committed to table %s", file.fileId(), owner.get());
                }
                Optional<AllocationState> allocation = queryOptional(allocated, file.fileId(), AllocationState::read);
                if (allocation.isEmpty()) {
                    throw failedPrecondition("File %s has no open allocation: its id was not issued by AllocateFiles", file.fileId());
                }
                if (!isOpen(allocation.get(), now)) {
                    // its storage nodes may have deleted it as an orphan already
                    throw failedPrecondition("Cannot commit: file id %s was allocated too long ago (allocation timeout %s)", file.fileId(), succinct(allocationTimeout));
                }
                for (String nodeId : file.replicaNodeIds()) {
                    if (!knownNodes.contains(nodeId)) {
                        throw failedPrecondition("File %s names replica node %s, which is not a registered storage node", file.fileId(), nodeId);
                    }
                    // only nodes AllocateFiles or ReplaceReplica chose (and granted the upload) hold a replica
                    if (!allocation.get().replicaNodeIds().contains(nodeId)) {
                        throw failedPrecondition("File %s names replica node %s, which was not allocated to hold it (allocated: %s)",
                                file.fileId(), nodeId, String.join(", ", allocation.get().replicaNodeIds()));
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- writes

    /** A table at version 0, with no files: the caller sets the version it starts at. */
    private static long insertTable(Connection connection, SchemaTableName name, List<TableColumn> columns, Map<String, String> properties, long createdMillis)
            throws SQLException
    {
        long tableId;
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO tables (schema_name, table_name, version, created_millis, row_count, file_count, size_bytes) VALUES (?, ?, 0, ?, 0, 0, 0)",
                Statement.RETURN_GENERATED_KEYS)) {
            statement.setString(1, name.schemaName());
            statement.setString(2, name.tableName());
            statement.setLong(3, createdMillis);
            statement.executeUpdate();
            try (ResultSet keys = statement.getGeneratedKeys()) {
                if (!keys.next()) {
                    throw new SQLException("No table id was generated");
                }
                tableId = keys.getLong(1);
            }
        }
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO columns (table_id, ordinal, column_name, column_type) VALUES (?, ?, ?, ?)")) {
            for (int ordinal = 0; ordinal < columns.size(); ordinal++) {
                statement.setLong(1, tableId);
                statement.setInt(2, ordinal);
                statement.setString(3, columns.get(ordinal).name());
                statement.setString(4, columns.get(ordinal).type());
                statement.addBatch();
            }
            statement.executeBatch();
        }
        try (PreparedStatement statement = connection.prepareStatement(
                "INSERT INTO table_properties (table_id, property_name, property_value) VALUES (?, ?, ?)")) {
            for (Map.Entry<String, String> property : properties.entrySet()) {
                statement.setLong(1, tableId);
                statement.setString(2, property.getKey());
                statement.setString(3, property.getValue());
                statement.addBatch();
            }
            statement.executeBatch();
        }
        return tableId;
    }

    private static void insertFiles(Connection connection, long tableId, long version, List<FileEntry> files)
            throws SQLException
    {
        try (PreparedStatement fileStatement = connection.prepareStatement(
                "INSERT INTO files (file_id, table_id, committed_version, commit_ordinal, size_bytes, row_count, crc32c, compact_stats, column_sketches) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
                PreparedStatement replicaStatement = connection.prepareStatement(
                        "INSERT INTO file_replicas (file_id, node_id, ordinal) VALUES (?, ?, ?)")) {
            for (int ordinal = 0; ordinal < files.size(); ordinal++) {
                FileEntry file = files.get(ordinal);
                fileStatement.setString(1, file.fileId());
                fileStatement.setLong(2, tableId);
                fileStatement.setLong(3, version);
                fileStatement.setInt(4, ordinal);
                fileStatement.setLong(5, file.sizeBytes());
                fileStatement.setLong(6, file.rowCount());
                fileStatement.setInt(7, file.crc32c());
                fileStatement.setBytes(8, file.compactStats().toByteArray());
                fileStatement.setBytes(9, file.columnSketches().isEmpty() ? null : file.columnSketches().toByteArray());
                fileStatement.addBatch();
                for (int replica = 0; replica < file.replicaNodeIds().size(); replica++) {
                    replicaStatement.setString(1, file.fileId());
                    replicaStatement.setString(2, file.replicaNodeIds().get(replica));
                    replicaStatement.setInt(3, replica);
                    replicaStatement.addBatch();
                }
            }
            // files first: the replicas reference them
            fileStatement.executeBatch();
            replicaStatement.executeBatch();
        }
    }

    private static void markOrphaned(Connection connection, List<String> fileIds)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("UPDATE allocations SET orphaned = TRUE WHERE file_id = ?")) {
            for (String fileId : fileIds) {
                statement.setString(1, fileId);
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    private static void deleteAllocations(Connection connection, List<FileEntry> files)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("DELETE FROM allocations WHERE file_id = ?")) {
            for (FileEntry file : files) {
                statement.setString(1, file.fileId());
                statement.addBatch();
            }
            statement.executeBatch();
        }
    }

    private static void updateTable(Connection connection, long tableId, long version, List<FileEntry> files)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement(
                "UPDATE tables SET version = ?, row_count = row_count + ?, file_count = file_count + ?, size_bytes = size_bytes + ? WHERE table_id = ?")) {
            statement.setLong(1, version);
            statement.setLong(2, files.stream().mapToLong(FileEntry::rowCount).sum());
            statement.setLong(3, files.size());
            statement.setLong(4, files.stream().mapToLong(FileEntry::sizeBytes).sum());
            statement.setLong(5, tableId);
            statement.executeUpdate();
        }
    }

    /**
     * Makes the node's replicas match its report, except that a replica the node no longer
     * reports is marked missing rather than forgotten: a disk that is unmounted or replaced
     * shows as an empty directory, and its files may come back. Missing replicas are not read
     * and do not count towards replication (they are repaired elsewhere); reported again, they
     * count again.
     */
    private static ReplicaSync syncReplicas(Connection connection, String nodeId, Set<String> reported)
            throws SQLException
    {
        Map<String, Boolean> current = new HashMap<>();
        try (PreparedStatement statement = connection.prepareStatement("SELECT file_id, missing FROM file_replicas WHERE node_id = ?")) {
            statement.setString(1, nodeId);
            try (ResultSet resultSet = statement.executeQuery()) {
                while (resultSet.next()) {
                    current.put(resultSet.getString(1), resultSet.getBoolean(2));
                }
            }
        }

        int added = 0;
        try (PreparedStatement isCommitted = connection.prepareStatement("SELECT 1 FROM files WHERE file_id = ?");
                PreparedStatement found = connection.prepareStatement("UPDATE file_replicas SET missing = FALSE WHERE file_id = ? AND node_id = ?");
                PreparedStatement insert = connection.prepareStatement(
                        // a re-discovered replica goes last: the writer's order stays the preferred one
                        "INSERT INTO file_replicas (file_id, node_id, ordinal) SELECT ?, ?, COALESCE(MAX(ordinal), -1) + 1 FROM file_replicas WHERE file_id = ?")) {
            for (String fileId : reported) {
                Boolean missing = current.get(fileId);
                if (missing != null) {
                    if (missing) {
                        found.setString(1, fileId);
                        found.setString(2, nodeId);
                        found.executeUpdate();
                        added++;
                    }
                    continue;
                }
                if (!isValidFileId(fileId) || queryOptional(isCommitted, fileId, _ -> true).isEmpty()) {
                    continue;
                }
                insert.setString(1, fileId);
                insert.setString(2, nodeId);
                insert.setString(3, fileId);
                insert.executeUpdate();
                added++;
            }
        }

        int missing = 0;
        try (PreparedStatement markMissing = connection.prepareStatement("UPDATE file_replicas SET missing = TRUE WHERE file_id = ? AND node_id = ?")) {
            for (Map.Entry<String, Boolean> replica : current.entrySet()) {
                if (!replica.getValue() && !reported.contains(replica.getKey())) {
                    markMissing.setString(1, replica.getKey());
                    markMissing.setString(2, nodeId);
                    markMissing.addBatch();
                    missing++;
                }
            }
            markMissing.executeBatch();
        }
        return new ReplicaSync(added, missing);
    }

    // ---------------------------------------------------------------- reads inside a transaction

    private static boolean schemaExists(Connection connection, String schemaName)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM schemas WHERE schema_name = ?")) {
            return queryOptional(statement, schemaName, _ -> true).isPresent();
        }
    }

    private static Optional<TableEntry> findTable(Connection connection, SchemaTableName name)
            throws SQLException
    {
        long tableId;
        long version;
        long createdMillis;
        long rowCount;
        long fileCount;
        long sizeBytes;
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT table_id, version, created_millis, row_count, file_count, size_bytes FROM tables WHERE schema_name = ? AND table_name = ?")) {
            statement.setString(1, name.schemaName());
            statement.setString(2, name.tableName());
            try (ResultSet resultSet = statement.executeQuery()) {
                if (!resultSet.next()) {
                    return Optional.empty();
                }
                tableId = resultSet.getLong(1);
                version = resultSet.getLong(2);
                createdMillis = resultSet.getLong(3);
                rowCount = resultSet.getLong(4);
                fileCount = resultSet.getLong(5);
                sizeBytes = resultSet.getLong(6);
            }
        }
        return Optional.of(new TableEntry(tableId, name, version, createdMillis, columns(connection, tableId), properties(connection, tableId), rowCount, fileCount, sizeBytes));
    }

    private static Map<String, String> properties(Connection connection, long tableId)
            throws SQLException
    {
        return rowsOfTable(
                connection,
                "SELECT property_name, property_value FROM table_properties WHERE table_id = ? ORDER BY property_name",
                tableId,
                row -> Map.entry(row.getString(1), row.getString(2)))
                .stream()
                .collect(toImmutableMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static List<TableColumn> columns(Connection connection, long tableId)
            throws SQLException
    {
        return rowsOfTable(
                connection,
                "SELECT column_name, column_type FROM columns WHERE table_id = ? ORDER BY ordinal",
                tableId,
                row -> new TableColumn(row.getString(1), row.getString(2)));
    }

    private interface RowReader<T>
    {
        T read(ResultSet row)
                throws SQLException;
    }

    /** Every row of a query whose only parameter is a table id, read in order. */
    private static <T> List<T> rowsOfTable(Connection connection, String sql, long tableId, RowReader<T> reader)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, tableId);
            try (ResultSet resultSet = statement.executeQuery()) {
                ImmutableList.Builder<T> rows = ImmutableList.builder();
                while (resultSet.next()) {
                    rows.add(reader.read(resultSet));
                }
                return rows.build();
            }
        }
    }

    private static Set<String> nodeIds(Connection connection)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement("SELECT node_id FROM nodes");
                ResultSet resultSet = statement.executeQuery()) {
            Set<String> nodeIds = new HashSet<>();
            while (resultSet.next()) {
                nodeIds.add(resultSet.getString(1));
            }
            return nodeIds;
        }
    }

    @FunctionalInterface
    private interface RowMapper<T>
    {
        T map(ResultSet resultSet)
                throws SQLException;
    }

    /** Runs an update with one parameter; returns the number of rows it changed. */
    private static int executeUpdate(Connection connection, String sql, Object parameter)
            throws SQLException
    {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, parameter);
            return statement.executeUpdate();
        }
    }

    /** "1h" rather than Duration's "1.00h", for messages. */
    static String succinct(Duration duration)
    {
        Duration succinct = duration.convertToMostSuccinctTimeUnit();
        double value = succinct.getValue();
        if (value == Math.rint(value)) {
            return "%d%s".formatted((long) value, Duration.timeUnitToString(succinct.getUnit()));
        }
        return succinct.toString();
    }

    /** What a commit, an orphan check or a replacement needs to know about an allocation. */
    private record AllocationState(long createdMillis, boolean orphaned, List<String> replicaNodeIds)
    {
        // the columns read() expects, in order
        static final String COLUMNS = "created_millis, orphaned, replica_node_ids";

        static AllocationState read(ResultSet resultSet)
                throws SQLException
        {
            return new AllocationState(resultSet.getLong(1), resultSet.getBoolean(2), NODE_ID_SPLITTER.splitToList(resultSet.getString(3)));
        }
    }

    /** Open: issued no longer than the allocation timeout ago, and never reported as an orphan. */
    private boolean isOpen(AllocationState allocation, long now)
    {
        return !allocation.orphaned() && now - allocation.createdMillis() <= allocationTimeoutMillis;
    }

    /** Runs a statement with one string parameter and maps its first row, if any. */
    private static <T> Optional<T> queryOptional(PreparedStatement statement, String parameter, RowMapper<T> mapper)
            throws SQLException
    {
        statement.setString(1, parameter);
        try (ResultSet resultSet = statement.executeQuery()) {
            return resultSet.next() ? Optional.of(mapper.map(resultSet)) : Optional.empty();
        }
    }
}
