package io.nsc.tools.load;

import com.google.common.collect.ImmutableList;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.client.FileUploader;
import io.nsc.protocol.client.FileUploader.Uploaded;
import io.nsc.protocol.client.GrpcChannels;
import io.nsc.protocol.client.MetadataAddresses;
import io.nsc.protocol.parquet.ColumnSpec;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.ParquetFooterParser.Footer;
import io.nsc.protocol.proto.AllocateFilesRequest;
import io.nsc.protocol.proto.AllocateFilesResponse;
import io.nsc.protocol.proto.Column;
import io.nsc.protocol.proto.CommitFilesRequest;
import io.nsc.protocol.proto.CommitFilesResponse;
import io.nsc.protocol.proto.CreateSchemaRequest;
import io.nsc.protocol.proto.DataFile;
import io.nsc.protocol.proto.FileAllocation;
import io.nsc.protocol.proto.GetTableRequest;
import io.nsc.protocol.proto.MetadataServiceGrpc;
import io.nsc.protocol.proto.MetadataServiceGrpc.MetadataServiceBlockingStub;
import io.nsc.protocol.proto.StorageNode;
import io.nsc.protocol.proto.TableInfo;
import io.nsc.protocol.proto.UploadResponse;
import io.nsc.protocol.security.TransportSecurity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.nsc.tools.load.LoadException.nothingLoaded;
import static java.util.Objects.requireNonNull;
import static java.util.concurrent.TimeUnit.MILLISECONDS;

/**
 * Loads existing Parquet files into an nsc table as they are (no rewrite), but for one change of
 * framing: bare LZ4 pages (LZ4_RAW, and Trino's own LZ4), which Trino 476 cannot decode, are
 * stored with Hadoop's LZ4 framing (8 bytes more per page, the values as compressed;
 * {@link Lz4Reframing}) from a temporary copy.
 *
 * <p>A load is all or nothing. Every file is validated before a byte is uploaded: its footer
 * parses into columns nsc can serve, all files share the first file's columns, those match the
 * table's if it exists, and (unless told not to) every value decodes. Only then are file ids
 * allocated, each file streamed to each of its replicas, and all files registered in a single
 * {@code CommitFiles}, so the table's next version has every file of the load or none. The
 * commit names the table version seen during validation: a concurrent change to the table makes
 * it fail rather than mix two loads' assumptions.
 */
public final class ParquetLoader
{
    private static final Duration RPC_TIMEOUT = Duration.ofMinutes(1);
    private static final Duration UPLOAD_TIMEOUT = Duration.ofMinutes(30);

    private final TransportSecurity security;
    private final Consumer<String> progress;

    public ParquetLoader(TransportSecurity security)
    {
        this(security, _ -> {});
    }

    /**
     * @param progress receives a line at each step of a load, for a person watching
     */
    public ParquetLoader(TransportSecurity security, Consumer<String> progress)
    {
        this.security = requireNonNull(security, "security is null");
        this.progress = requireNonNull(progress, "progress is null");
    }

    /**
     * @param metadataAddress host:port of the metadata service's gRPC endpoint, or several, comma-separated, in order of preference
     * @param paths files, and directories whose {@code *.parquet} files (recursively) are loaded
     * @throws LoadException when the load is refused or fails; the message says whether anything was loaded
     */
    public LoadResult load(String metadataAddress, String schema, String table, List<Path> paths, LoadOptions options)
    {
        requireNonNull(metadataAddress, "metadataAddress is null");
        requireNonNull(schema, "schema is null");
        requireNonNull(table, "table is null");
        requireNonNull(paths, "paths is null");
        requireNonNull(options, "options is null");
        NameRules.checkTableName(schema, table);

        List<Path> files = InputFiles.expand(paths);
        progress.accept("validating %s file%s".formatted(files.size(), files.size() == 1 ? "" : "s"));
        try (ReframedCopies copies = new ReframedCopies(progress)) {
            List<LocalFile> localFiles = new ArrayList<>();
            for (Path file : files) {
                localFiles.add(readFooter(file, copies.servedPath(file, localFiles.size())));
            }
            return loadValidated(metadataAddress, schema, table, ImmutableList.copyOf(localFiles), options);
        }
    }

    private LoadResult loadValidated(String metadataAddress, String schema, String table, List<LocalFile> localFiles, LoadOptions options)
    {
        List<Column> columns = commonColumns(localFiles);
        NameRules.checkColumnNames(localFiles.getFirst().path(), columns);

        ManagedChannel metadataChannel = openMetadataChannel(metadataAddress, security);
        StorageChannels storageChannels = new StorageChannels(security);
        try {
            MetadataServiceBlockingStub metadata = MetadataServiceGrpc.newBlockingStub(metadataChannel);
            Optional<TableInfo> existing = getTable(metadata, metadataAddress, schema, table);
            existing.ifPresent(info -> checkMatchesTable(schema + "." + table, info, localFiles.getFirst().path(), columns));
            // without verification no value is decoded, so the files get no distinct-value sketches
            List<byte[]> sketches = Collections.nCopies(localFiles.size(), new byte[0]);
            if (options.verify()) {
                progress.accept("decoding every column of every row group");
                sketches = verifyData(localFiles, columns);
            }

            List<FileAllocation> allocations = allocate(metadata, localFiles.size(), options.replication());
            List<DataFile> dataFiles = new ArrayList<>();
            for (int i = 0; i < localFiles.size(); i++) {
                dataFiles.add(uploadToReplicas(localFiles.get(i), allocations.get(i), columns, storageChannels).toBuilder()
                        .setColumnSketches(ByteString.copyFrom(sketches.get(i)))
                        .build());
                progress.accept("uploaded %s (%s/%s)".formatted(localFiles.get(i).path(), i + 1, localFiles.size()));
            }

            // the commit needs the schema; created only now so that a refused load leaves none behind
            createSchema(metadata, schema);
            // expected_version 0 means "no check": right for a table that does not exist yet
            long expectedVersion = existing.map(TableInfo::getVersion).orElse(0L);
            CommitFilesResponse commit = commit(metadata, schema, table, columns, dataFiles, expectedVersion);
            return result(schema, table, localFiles, dataFiles, commit);
        }
        finally {
            storageChannels.close();
            GrpcChannels.close(metadataChannel);
        }
    }

    /** A local file whose footer has been read. */
    /**
     * @param path the file as given, which messages name
     * @param servedPath what is verified and uploaded: the file, or its reframed copy
     */
    private record LocalFile(Path path, Path servedPath, long sizeBytes, long rowCount, List<Column> columns) {}

    private static LocalFile readFooter(Path file, Path servedPath)
    {
        ParquetFileSummary summary;
        try {
            summary = ParquetFooterParser.parse(servedPath);
        }
        catch (InvalidParquetFileException e) {
            // the parser names the file by its file name; the full path tells apart equal names in different directories
            throw nothingLoaded("%s (%s)".formatted(e.getMessage(), file), e);
        }
        catch (IOException e) {
            throw nothingLoaded("cannot read %s: %s".formatted(file, e.getMessage()), e);
        }
        long size;
        try {
            size = Files.size(servedPath);
        }
        catch (IOException e) {
            throw nothingLoaded("cannot read %s: %s".formatted(file, e.getMessage()), e);
        }
        List<Column> columns = summary.columns().stream()
                .map(ParquetLoader::toColumn)
                .collect(toImmutableList());
        return new LocalFile(file, servedPath, size, summary.rowCount(), columns);
    }

    /** The reframed copies of a load's files of bare LZ4 pages, in a temporary directory deleted when the load ends. */
    private static final class ReframedCopies
            implements AutoCloseable
    {
        private final Consumer<String> progress;
        private Path directory;

        ReframedCopies(Consumer<String> progress)
        {
            this.progress = requireNonNull(progress, "progress is null");
        }

        /** The file, or a copy of it with its bare LZ4 pages reframed. */
        Path servedPath(Path file, int index)
        {
            Footer footer;
            try {
                footer = ParquetFooterParser.readFooter(file);
            }
            catch (InvalidParquetFileException e) {
                // the full parse of the file names the problem
                return file;
            }
            catch (IOException e) {
                throw nothingLoaded("cannot read %s: %s".formatted(file, e.getMessage()), e);
            }
            if (!Lz4Reframing.isNeeded(footer.metadata())) {
                return file;
            }
            try {
                if (directory == null) {
                    directory = Files.createTempDirectory("nsc-load-");
                }
                // the file's own name, so that what names the copy still names the file
                Path copy = Files.createDirectory(directory.resolve(Integer.toString(index))).resolve(file.getFileName());
                progress.accept("giving the bare LZ4 pages of %s Hadoop's LZ4 framing, the LZ4 Trino reads (a copy in %s)".formatted(file, directory));
                Lz4Reframing.reframe(file, footer, copy);
                return copy;
            }
            catch (IOException e) {
                throw nothingLoaded("cannot reframe the LZ4 pages of %s: %s".formatted(file, e.getMessage()), e);
            }
        }

        @Override
        public void close()
        {
            if (directory == null) {
                return;
            }
            try (Stream<Path> paths = Files.walk(directory)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
            catch (IOException e) {
                progress.accept("could not delete the reframed copies in %s: %s".formatted(directory, e.getMessage()));
            }
        }
    }

    private static Column toColumn(ColumnSpec column)
    {
        return Column.newBuilder()
                .setName(column.name())
                .setType(column.type())
                .build();
    }

    private static List<Column> commonColumns(List<LocalFile> files)
    {
        LocalFile first = files.getFirst();
        for (LocalFile file : files.subList(1, files.size())) {
            Optional<String> difference = TableColumns.firstDifference("file " + first.path(), first.columns(), "file " + file.path(), file.columns());
            if (difference.isPresent()) {
                throw nothingLoaded("files %s and %s have different columns: %s".formatted(first.path(), file.path(), difference.get()));
            }
        }
        return first.columns();
    }

    private static void checkMatchesTable(String tableName, TableInfo table, Path firstFile, List<Column> columns)
    {
        Optional<String> difference = TableColumns.firstDifference("table " + tableName, table.getColumnsList(), "file " + firstFile, columns);
        if (difference.isPresent()) {
            throw nothingLoaded("the files do not match table %s: %s".formatted(tableName, difference.get()));
        }
    }

    private static List<byte[]> verifyData(List<LocalFile> files, List<Column> columns)
    {
        int threads = Math.min(files.size(), Runtime.getRuntime().availableProcessors());
        ExecutorService executor = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "nsc-load-verify");
            thread.setDaemon(true);
            return thread;
        });
        try {
            List<Future<DataVerifier.Verified>> results = files.stream()
                    .map(file -> executor.submit(() -> DataVerifier.verify(file.servedPath(), columns)))
                    .collect(toImmutableList());
            // report the first bad file in the order given, not whichever finished first
            List<byte[]> sketches = new ArrayList<>();
            for (Future<DataVerifier.Verified> result : results) {
                DataVerifier.Verified verified = result.get();
                if (verified.problem().isPresent()) {
                    throw nothingLoaded(verified.problem().get());
                }
                sketches.add(verified.sketches());
            }
            return sketches;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw nothingLoaded("interrupted while verifying", e);
        }
        catch (ExecutionException e) {
            throw nothingLoaded("verifying the files failed: " + DataVerifier.describe(e.getCause()), e.getCause());
        }
        finally {
            executor.shutdownNow();
        }
    }

    private static Optional<TableInfo> getTable(MetadataServiceBlockingStub metadata, String metadataAddress, String schema, String table)
    {
        try {
            return Optional.of(withDeadline(metadata).getTable(GetTableRequest.newBuilder()
                    .setSchemaName(schema)
                    .setTableName(table)
                    .build()));
        }
        catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
                return Optional.empty();
            }
            throw nothingLoaded("cannot look up table %s.%s at the metadata service %s: %s".formatted(schema, table, metadataAddress, describe(e)), e);
        }
    }

    private static void createSchema(MetadataServiceBlockingStub metadata, String schema)
    {
        try {
            withDeadline(metadata).createSchema(CreateSchemaRequest.newBuilder()
                    .setSchemaName(schema)
                    .setIfNotExists(true)
                    .build());
        }
        catch (StatusRuntimeException e) {
            throw nothingLoaded("cannot create schema %s: %s".formatted(schema, describe(e)), e);
        }
    }

    private static List<FileAllocation> allocate(MetadataServiceBlockingStub metadata, int fileCount, int replication)
    {
        AllocateFilesResponse response;
        try {
            response = withDeadline(metadata).allocateFiles(AllocateFilesRequest.newBuilder()
                    .setFileCount(fileCount)
                    .setReplication(replication)
                    .build());
        }
        catch (StatusRuntimeException e) {
            throw nothingLoaded("cannot allocate %s file%s%s: %s".formatted(
                    fileCount,
                    fileCount == 1 ? "" : "s",
                    replication == 0 ? "" : " with %s replicas".formatted(replication),
                    describe(e)), e);
        }
        if (response.getFilesCount() != fileCount) {
            throw nothingLoaded("the metadata service allocated %s files, %s were asked for".formatted(response.getFilesCount(), fileCount));
        }
        for (FileAllocation allocation : response.getFilesList()) {
            List<String> nodeIds = allocation.getReplicasList().stream().map(StorageNode::getNodeId).collect(toImmutableList());
            if (nodeIds.isEmpty() || new HashSet<>(nodeIds).size() != nodeIds.size()) {
                throw nothingLoaded("the metadata service placed file %s on %s: need one or more distinct nodes".formatted(allocation.getFileId(), nodeIds));
            }
            if (replication > 0 && nodeIds.size() != replication) {
                throw nothingLoaded("the metadata service placed file %s on %s nodes, %s were asked for".formatted(allocation.getFileId(), nodeIds.size(), replication));
            }
        }
        return response.getFilesList();
    }

    // A failure from here until the commit leaves copies on storage nodes that no table claims.
    // They are not deleted here: the storage nodes reclaim files that no commit names after a
    // timeout (orphan reclaim), which also covers a loader that dies mid-way.
    private DataFile uploadToReplicas(LocalFile file, FileAllocation allocation, List<Column> columns, StorageChannels channels)
    {
        List<Uploaded> uploads = new ArrayList<>();
        for (StorageNode node : allocation.getReplicasList()) {
            uploads.add(uploadToNode(file, allocation, node, channels));
        }
        checkReplicas(file, allocation, columns, uploads);

        UploadResponse answer = uploads.getFirst().response();
        return DataFile.newBuilder()
                .setFileId(allocation.getFileId())
                .setSizeBytes(file.sizeBytes())
                .setRowCount(answer.getRowCount())
                .addAllReplicaNodeIds(allocation.getReplicasList().stream().map(StorageNode::getNodeId).toList())
                .setCompactStats(answer.getCompactStats())
                .setCrc32C(answer.getCrc32C())
                // what each node stored, in its own words: the metadata service commits only attested stats
                .addAllAttestations(uploads.stream().map(Uploaded::response).filter(UploadResponse::hasAttestation).map(UploadResponse::getAttestation).toList())
                .build();
    }

    private static Uploaded uploadToNode(LocalFile file, FileAllocation allocation, StorageNode node, StorageChannels channels)
    {
        String where = "storage node %s (%s)".formatted(node.getNodeId(), node.getAddress());
        try {
            return FileUploader.upload(channels.forNode(node), allocation.getFileId(), FileUploader.grantFor(allocation, node.getNodeId()), file.servedPath(), file.sizeBytes(), UPLOAD_TIMEOUT);
        }
        catch (StatusRuntimeException e) {
            throw nothingLoaded("uploading %s to %s failed: %s".formatted(file.path(), where, describe(e)), e);
        }
        catch (IOException e) {
            throw nothingLoaded("reading %s for %s failed: %s".formatted(file.path(), where, e.getMessage()), e);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw nothingLoaded("interrupted while uploading %s to %s".formatted(file.path(), where), e);
        }
    }

    /**
     * Every replica must have received the same bytes we sent and read them the same way:
     * otherwise queries would answer differently depending on the replica they hit.
     */
    private static void checkReplicas(LocalFile file, FileAllocation allocation, List<Column> columns, List<Uploaded> uploads)
    {
        for (int i = 0; i < uploads.size(); i++) {
            String node = allocation.getReplicas(i).getNodeId();
            Uploaded upload = uploads.get(i);
            UploadResponse answer = upload.response();
            List<String> problems = new ArrayList<>();
            if (!answer.getFileId().isEmpty() && !answer.getFileId().equals(allocation.getFileId())) {
                problems.add("file id %s, expected %s".formatted(answer.getFileId(), allocation.getFileId()));
            }
            if (answer.getSizeBytes() != file.sizeBytes()) {
                problems.add("%s bytes, the file has %s".formatted(answer.getSizeBytes(), file.sizeBytes()));
            }
            if (answer.getCrc32C() != upload.crc32c()) {
                problems.add("CRC32C %08x, the bytes sent have %08x".formatted(answer.getCrc32C(), upload.crc32c()));
            }
            if (answer.getRowCount() != file.rowCount()) {
                problems.add("%s rows, the footer says %s".formatted(answer.getRowCount(), file.rowCount()));
            }
            if (answer.getColumnsCount() > 0 && !answer.getColumnsList().equals(columns)) {
                problems.add("columns %s, the loader read %s".formatted(TableColumns.describe(answer.getColumnsList()), TableColumns.describe(columns)));
            }
            if (!problems.isEmpty()) {
                throw nothingLoaded("storage node %s answered the upload of %s with %s".formatted(node, file.path(), String.join(", ", problems)));
            }
        }
        UploadResponse first = uploads.getFirst().response();
        for (int i = 1; i < uploads.size(); i++) {
            if (!uploads.get(i).response().getCompactStats().equals(first.getCompactStats())) {
                throw nothingLoaded("storage nodes %s and %s computed different statistics for %s".formatted(
                        allocation.getReplicas(0).getNodeId(), allocation.getReplicas(i).getNodeId(), file.path()));
            }
        }
    }

    private static CommitFilesResponse commit(MetadataServiceBlockingStub metadata, String schema, String table, List<Column> columns, List<DataFile> files, long expectedVersion)
    {
        try {
            return withDeadline(metadata).commitFiles(CommitFilesRequest.newBuilder()
                    .setSchemaName(schema)
                    .setTableName(table)
                    .addAllColumns(columns)
                    .setCreateTable(true)
                    .addAllFiles(files)
                    .setExpectedVersion(expectedVersion)
                    .build());
        }
        catch (StatusRuntimeException e) {
            throw commitFailure(schema + "." + table, expectedVersion, e);
        }
    }

    private static LoadException commitFailure(String tableName, long expectedVersion, StatusRuntimeException e)
    {
        return switch (e.getStatus().getCode()) {
            case ABORTED -> nothingLoaded("table %s changed while loading (it was at version %s); run the load again".formatted(tableName, expectedVersion), e);
            case INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNIMPLEMENTED ->
                    nothingLoaded("the metadata service refused the commit to %s: %s".formatted(tableName, describe(e)), e);
            // the request may have been applied before the failure: do not claim either outcome
            default -> new LoadException("the commit to %s failed with %s, so whether the files were registered is unknown: check the table's version before loading again".formatted(tableName, describe(e)), e);
        };
    }

    private static LoadResult result(String schema, String table, List<LocalFile> localFiles, List<DataFile> dataFiles, CommitFilesResponse commit)
    {
        ImmutableList.Builder<LoadedFile> loaded = ImmutableList.builder();
        long rows = 0;
        long bytes = 0;
        for (int i = 0; i < localFiles.size(); i++) {
            DataFile dataFile = dataFiles.get(i);
            loaded.add(new LoadedFile(localFiles.get(i).path(), dataFile.getFileId(), dataFile.getRowCount(), dataFile.getSizeBytes(), dataFile.getReplicaNodeIdsList()));
            rows += dataFile.getRowCount();
            bytes += dataFile.getSizeBytes();
        }
        return new LoadResult(schema, table, loaded.build(), rows, bytes, commit.getVersion(), commit.getTableCreated());
    }

    private static MetadataServiceBlockingStub withDeadline(MetadataServiceBlockingStub metadata)
    {
        return metadata.withDeadlineAfter(RPC_TIMEOUT.toMillis(), MILLISECONDS);
    }

    private static ManagedChannel openMetadataChannel(String addresses, TransportSecurity security)
    {
        try {
            return GrpcChannels.forMetadataService(MetadataAddresses.parse(addresses), security);
        }
        catch (IllegalArgumentException e) {
            throw nothingLoaded("bad metadata service address '%s': %s".formatted(addresses, e.getMessage()), e);
        }
    }

    private static ManagedChannel openChannel(String address, String what, TransportSecurity security)
    {
        try {
            return GrpcChannels.forAddress(address, security);
        }
        catch (IllegalArgumentException e) {
            throw nothingLoaded("bad %s address '%s': %s".formatted(what, address, e.getMessage()), e);
        }
    }

    static String describe(StatusRuntimeException e)
    {
        Status status = e.getStatus();
        return status.getDescription() == null ? status.getCode().toString() : status.getCode() + ": " + status.getDescription();
    }

    /** One channel per storage node address, shared by all uploads of a load. */
    private static final class StorageChannels
    {
        private final Map<String, ManagedChannel> channels = new HashMap<>();
        private final TransportSecurity security;

        StorageChannels(TransportSecurity security)
        {
            this.security = requireNonNull(security, "security is null");
        }

        ManagedChannel forNode(StorageNode node)
        {
            return channels.computeIfAbsent(node.getAddress(), address -> openChannel(address, "storage node " + node.getNodeId(), security));
        }

        void close()
        {
            channels.values().forEach(GrpcChannels::close);
            channels.clear();
        }
    }
}
