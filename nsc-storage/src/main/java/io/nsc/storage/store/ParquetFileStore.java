package io.nsc.storage.store;

import com.google.common.annotations.VisibleForTesting;
import com.google.common.collect.ImmutableList;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.airlift.log.Logger;
import io.airlift.stats.CounterStat;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;
import io.nsc.protocol.parquet.ParquetLimits;
import io.nsc.protocol.stats.CompactFileStats;
import io.nsc.storage.cache.BoundedMetadataCache;
import org.weakref.jmx.Managed;
import org.weakref.jmx.Nested;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.collect.ImmutableList.toImmutableList;
import static io.airlift.slice.SizeOf.instanceSize;
import static io.airlift.slice.SizeOf.sizeOfByteArray;
import static io.nsc.storage.store.DataDirectory.CRC_SUFFIX;
import static io.nsc.storage.store.DataDirectory.fsyncDirectory;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.util.Objects.requireNonNull;

/**
 * The Parquet files of this node over its data directories. In memory it keeps a few dozen bytes
 * per file ({@link StoredFile}), whatever the files hold; their compact stats are read from the
 * footer when asked for and kept in a cache bounded in bytes. Files are immutable: a file appears
 * (atomically) when its upload completes and is never modified; it disappears only when the
 * metadata service reports that no commit claims it (see {@link #delete}).
 */
public final class ParquetFileStore
{
    private static final Logger log = Logger.get(ParquetFileStore.class);
    private static final int MAX_DISPLAY_NAME_LENGTH = 200;
    private static final long STATS_INSTANCE_BYTES = instanceSize(CompactFileStats.class);

    private final List<DataDirectory> directories;
    private final ParquetLimits limits;
    private final int checksumBlockSize;
    private final boolean verifyChecksums;
    private final UploadPlacement placement;
    private final Map<FileId, StoredFile> files = new ConcurrentHashMap<>();
    // the column chunks of the files in the map, kept as they come and go rather than summed per request
    private final AtomicLong columnChunks = new AtomicLong();
    private final BoundedMetadataCache<FileId, CompactFileStats> statsCache;
    // quarantined copies not yet reported to the metadata service, oldest first
    private final Queue<DamagedFile> damagedToReport = new ConcurrentLinkedQueue<>();
    // at most one upload per id at a time, so that the final rename never races with another;
    // a deletion holds the id here too, so that it never races with an upload of the same id
    private final Set<FileId> uploadsInProgress = ConcurrentHashMap.newKeySet();
    private final CounterStat bytesUploaded = new CounterStat();
    private final CounterStat filesDeleted = new CounterStat();
    private final CounterStat bytesDeleted = new CounterStat();
    private final CounterStat filesQuarantined = new CounterStat();

    private ParquetFileStore(List<DataDirectory> directories, StoreOptions options)
    {
        this.directories = ImmutableList.copyOf(directories);
        this.limits = options.limits();
        this.checksumBlockSize = options.checksumBlockSize();
        this.verifyChecksums = options.verifyChecksums();
        this.placement = new UploadPlacement(this.directories, options.reservedSpaceBytes());
        this.statsCache = new BoundedMetadataCache<>(options.statsCacheSize(), ParquetFileStore::retainedBytes);
    }

    /**
     * Opens the store: creates the layout where missing, deletes leftovers of interrupted
     * uploads, and loads the metadata of every file (one footer read per file, one thread per
     * data directory so that each disk works on its own files).
     */
    public static ParquetFileStore open(List<Path> dataDirs)
    {
        return open(dataDirs, StoreOptions.DEFAULT);
    }

    public static ParquetFileStore open(List<Path> dataDirs, StoreOptions options)
    {
        return openDirectories(dataDirs.stream().map(DataDirectory::new).collect(toImmutableList()), options);
    }

    /** Opens the store over directories whose {@link DiskSpace} a test may have replaced. */
    @VisibleForTesting
    static ParquetFileStore openDirectories(List<DataDirectory> dataDirs, StoreOptions options)
    {
        checkArgument(!dataDirs.isEmpty(), "no data directories");
        ParquetFileStore store = new ParquetFileStore(dataDirs, options);
        for (StoredFile file : new StoreLoader(store.checksumBlockSize).load(store.directories)) {
            store.addFoundAtStart(file);
        }
        log.info("Serving %s files from %s", store.files.size(), store.directories);
        return store;
    }

    /** The file, or NOT_FOUND for the client. */
    public StoredFile require(FileId id)
    {
        StoredFile file = files.get(id);
        if (file == null) {
            throw Status.NOT_FOUND.withDescription("File %s not found on this node".formatted(id)).asRuntimeException();
        }
        return file;
    }

    /** Opens the file for reading; every byte read is checked against its block checksums unless verification is off. */
    public ChecksummedReader openReader(StoredFile file)
            throws IOException
    {
        return ChecksummedReader.open(file, verifyChecksums);
    }

    /**
     * Stops serving a copy whose bytes are damaged, moves it and its checksums to the data
     * directory's {@code quarantine/} (kept for a human), and queues it for the next report to
     * the metadata service, which has the file copied again from a healthy replica.
     *
     * @return false when the node no longer serves this copy (deleted, or quarantined already)
     */
    public boolean quarantine(StoredFile file, String reason)
    {
        if (!uploadsInProgress.add(file.id())) {
            // an upload or a deletion of the id holds it: the copy read is going away anyway
            return false;
        }
        try {
            if (!remove(file)) {
                return false;
            }
            DataDirectory directory = file.directory();
            try {
                directory.moveToQuarantine(file.id(), reason);
            }
            catch (IOException e) {
                // not served any more either way; start-up or the scrubber finds it again
                log.error(e, "Cannot move damaged file %s to %s", file.path(), directory.quarantineDirectory());
            }
            filesQuarantined.update(1);
            damagedToReport.add(new DamagedFile(file.id(), reason));
            return true;
        }
        finally {
            uploadsInProgress.remove(file.id());
        }
    }

    /** Damaged copies not reported yet; the caller reports them, or gives back what it could not report. */
    public List<DamagedFile> takeDamagedFiles()
    {
        ImmutableList.Builder<DamagedFile> taken = ImmutableList.builder();
        for (DamagedFile damaged = damagedToReport.poll(); damaged != null; damaged = damagedToReport.poll()) {
            taken.add(damaged);
        }
        return taken.build();
    }

    public void returnDamagedFiles(List<DamagedFile> damaged)
    {
        damagedToReport.addAll(damaged);
    }

    /** The files served right now. */
    public List<StoredFile> files()
    {
        return ImmutableList.copyOf(files.values());
    }

    /** The file if the node serves it. */
    public Optional<StoredFile> find(FileId id)
    {
        return Optional.ofNullable(files.get(id));
    }

    /**
     * The file's compact stats, read from its footer (every byte checked against its block
     * checksums) unless a recent request left them in the cache.
     *
     * @throws io.grpc.StatusRuntimeException DATA_LOSS when the copy's bytes are damaged (it is
     * quarantined), NOT_FOUND when it was deleted meanwhile, INTERNAL when it cannot be read
     */
    public CompactFileStats stats(StoredFile file)
    {
        try {
            return statsCache.get(file.id(), () -> readStats(file));
        }
        catch (ExecutionException | UncheckedExecutionException e) {
            throw statsFailure(file, e.getCause());
        }
    }

    private static long retainedBytes(CompactFileStats stats)
    {
        return STATS_INSTANCE_BYTES + sizeOfByteArray(stats.sizeInBytes());
    }

    private CompactFileStats readStats(StoredFile file)
            throws IOException, InvalidParquetFileException
    {
        try (ChecksummedReader reader = openReader(file)) {
            return ParquetFooterParser.parse(reader, file.sizeBytes(), "file " + file.id()).stats();
        }
    }

    private StatusRuntimeException statsFailure(StoredFile file, Throwable failure)
    {
        Optional<CorruptBlockException> corruption = DamagedCopies.findCorruption(failure);
        if (corruption.isPresent()) {
            quarantine(file, corruption.get().getMessage());
            return DamagedCopies.dataLoss(file, corruption.get());
        }
        if (failure instanceof NoSuchFileException) {
            return Status.NOT_FOUND.withDescription("File %s not found on this node".formatted(file.id())).asRuntimeException();
        }
        if (failure instanceof InvalidParquetFileException) {
            // it parsed when it arrived and its bytes still match their checksums: not the file's fault
            log.error(failure, "Footer of file %s no longer parses", file.id());
        }
        return Status.INTERNAL.withDescription("Cannot read the footer of file %s: %s".formatted(file.id(), failure.getMessage())).withCause(failure).asRuntimeException();
    }

    public List<FileId> fileIds()
    {
        return ImmutableList.copyOf(files.keySet());
    }

    /**
     * Files whose upload completed before {@code cutoff}, judged by the file's modification time
     * (the last write of its upload; the final rename keeps it).
     */
    public List<FileId> filesUploadedBefore(Instant cutoff)
    {
        ImmutableList.Builder<FileId> ids = ImmutableList.builder();
        for (StoredFile file : files.values()) {
            try {
                if (Files.getLastModifiedTime(file.path()).toInstant().isBefore(cutoff)) {
                    ids.add(file.id());
                }
            }
            catch (IOException e) {
                // deleted meanwhile, or unreadable: not a candidate this time
                log.debug("Cannot read the modification time of %s: %s", file.path(), e);
            }
        }
        return ids.build();
    }

    /**
     * Stops serving the file and deletes it and its checksum. Reads already under way keep their
     * open channel (an unlinked file stays readable until its last descriptor closes); new reads
     * get NOT_FOUND.
     *
     * @return false when the node does not hold the file, or an upload of its id is in progress
     * (a later call may try again)
     * @throws IOException when the file cannot be deleted; it is served on as before
     */
    public boolean delete(FileId id)
            throws IOException
    {
        if (!uploadsInProgress.add(id)) {
            return false;
        }
        try {
            StoredFile file = files.get(id);
            if (file == null || !remove(file)) {
                return false;
            }
            try {
                Files.deleteIfExists(file.path());
            }
            catch (IOException e) {
                add(file);
                throw e;
            }
            // the checksum second: after a crash in between, start-up deletes the lone .crc
            Path crcPath = file.path().resolveSibling(id.value() + CRC_SUFFIX);
            try {
                Files.deleteIfExists(crcPath);
                fsyncDirectory(file.path().getParent());
            }
            catch (IOException e) {
                log.warn(e, "Deleted %s but not its checksum %s; start-up will", file.path(), crcPath);
            }
            filesDeleted.update(1);
            bytesDeleted.update(file.sizeBytes());
            return true;
        }
        finally {
            uploadsInProgress.remove(id);
        }
    }

    /**
     * Starts an upload into the data directory with the most room, and reserves the announced
     * size there until the upload ends, so concurrent uploads never count on the same free bytes.
     * A directory's room is its usable space, less what uploads in progress there still have to
     * write, less the space kept free for the system ({@code storage.reserved-space}).
     *
     * @throws io.grpc.StatusRuntimeException ALREADY_EXISTS when the id is taken by a different
     * file or another upload of it is in progress, RESOURCE_EXHAUSTED when no data directory has
     * room for the file (the writer places the replica on another node)
     */
    public FileUpload beginUpload(FileId id, long sizeBytes, String displayName)
            throws IOException
    {
        if (sizeBytes < 0) {
            throw Status.INVALID_ARGUMENT.withDescription("Upload of %s: negative size %s".formatted(id, sizeBytes)).asRuntimeException();
        }
        StoredFile existing = files.get(id);
        // the same bytes again (a retried upload) may go ahead and succeed; anything else cannot
        if (existing != null && existing.sizeBytes() != sizeBytes) {
            throw alreadyExists(id);
        }
        if (!uploadsInProgress.add(id)) {
            throw Status.ALREADY_EXISTS.withDescription("Another upload of file %s is in progress".formatted(id)).asRuntimeException();
        }
        UploadPlacement.Reservation reservation = null;
        try {
            reservation = placement.reserve(id, sizeBytes);
            return new FileUpload(this, id, reservation, sizeBytes, displayName(id, displayName));
        }
        catch (IOException | RuntimeException e) {
            if (reservation != null) {
                reservation.release();
            }
            uploadsInProgress.remove(id);
            throw e;
        }
    }

    /** Moves a verified upload into place and starts serving it. */
    UploadedFile commit(DataDirectory directory, FileId id, Path tempPath, BlockChecksums.Builder checksum, ParquetFileSummary summary)
            throws IOException
    {
        StoredFile existing = files.get(id);
        if (existing != null) {
            if (existing.sizeBytes() == checksum.size() && existing.crc32c() == checksum.fileCrc32c()) {
                // identical bytes: the earlier upload stands; the caller deletes the temporary file
                return new UploadedFile(existing, summary.stats(), summary.columns());
            }
            throw alreadyExists(id);
        }
        Path target = directory.parquetPath(id);
        Files.createDirectories(target.getParent());
        // sidecar first: a crash between the two renames leaves an orphan .crc that start-up deletes
        BlockChecksums checksums = checksum.write(directory, id);
        Files.move(tempPath, target, ATOMIC_MOVE);
        fsyncDirectory(target.getParent());

        StoredFile file = StoredFile.of(directory, id, checksums, summary);
        add(file);
        return new UploadedFile(file, summary.stats(), summary.columns());
    }

    ParquetLimits limits()
    {
        return limits;
    }

    int checksumBlockSize()
    {
        return checksumBlockSize;
    }

    void uploadEnded(FileId id)
    {
        uploadsInProgress.remove(id);
    }

    void recordBytesUploaded(long bytes)
    {
        bytesUploaded.update(bytes);
    }

    public long capacityBytes()
    {
        return placement.capacityBytes();
    }

    /**
     * The bytes new files may still take on this node: each data directory's room (usable, less
     * what uploads in progress will still write, less the system reserve). What the node reports
     * to the metadata service, which places files by it.
     */
    @Managed
    public long getFreeBytes()
    {
        return placement.freeBytes();
    }

    /** Bytes that uploads in progress announced and have not written yet. */
    @Managed
    public long getReservedBytes()
    {
        return placement.reservedBytes();
    }

    @Managed
    public int getFileCount()
    {
        return files.size();
    }

    /** The compact stats held in memory: those in the cache, with its entries. */
    @Managed
    public long getCompactStatsBytes()
    {
        return statsCache.getRetainedBytes();
    }

    /** What the per-file metadata of the files served retains: a constant per file. */
    @Managed
    public long getFileMetadataBytes()
    {
        return files.size() * StoredFile.RETAINED_BYTES_PER_FILE;
    }

    @Managed
    @Nested
    public BoundedMetadataCache<FileId, CompactFileStats> getStatsCache()
    {
        return statsCache;
    }

    @Managed
    public long getColumnChunkCount()
    {
        return columnChunks.get();
    }

    @Managed
    @Nested
    public CounterStat getBytesUploaded()
    {
        return bytesUploaded;
    }

    @Managed
    @Nested
    public CounterStat getFilesDeleted()
    {
        return filesDeleted;
    }

    @Managed
    @Nested
    public CounterStat getBytesDeleted()
    {
        return bytesDeleted;
    }

    @Managed
    @Nested
    public CounterStat getFilesQuarantined()
    {
        return filesQuarantined;
    }

    private void addFoundAtStart(StoredFile file)
    {
        StoredFile previous = files.putIfAbsent(file.id(), file);
        if (previous != null) {
            log.warn("File %s is in two data directories: serving %s, ignoring %s", file.id(), previous.path(), file.path());
            return;
        }
        columnChunks.addAndGet(file.columnChunkCount());
    }

    private void add(StoredFile file)
    {
        files.put(file.id(), file);
        columnChunks.addAndGet(file.columnChunkCount());
    }

    /** Stops serving the file if it is still this copy; its stats leave the cache with it. */
    private boolean remove(StoredFile file)
    {
        if (!files.remove(file.id(), file)) {
            return false;
        }
        columnChunks.addAndGet(-file.columnChunkCount());
        statsCache.invalidate(file.id());
        return true;
    }

    private static String displayName(FileId id, String clientName)
    {
        // the client's name only decorates messages; it never touches the file system
        String name = requireNonNull(clientName, "clientName is null").strip();
        if (name.isEmpty()) {
            return "file " + id;
        }
        if (name.length() > MAX_DISPLAY_NAME_LENGTH) {
            name = name.substring(0, MAX_DISPLAY_NAME_LENGTH) + "...";
        }
        return "%s (file %s)".formatted(name, id);
    }

    private static StatusRuntimeException alreadyExists(FileId id)
    {
        return Status.ALREADY_EXISTS.withDescription("File %s already exists with different content".formatted(id)).asRuntimeException();
    }
}
