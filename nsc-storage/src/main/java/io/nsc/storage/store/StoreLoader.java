package io.nsc.storage.store;

import com.google.common.collect.ImmutableList;
import io.airlift.log.Logger;
import io.nsc.protocol.parquet.InvalidParquetFileException;
import io.nsc.protocol.parquet.ParquetFileSummary;
import io.nsc.protocol.parquet.ParquetFooterParser;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static com.google.common.base.Throwables.throwIfUnchecked;
import static io.nsc.storage.store.DataDirectory.CRC_SUFFIX;
import static io.nsc.storage.store.DataDirectory.PARQUET_SUFFIX;

/**
 * What the data directories hold when the node starts: creates their layout where missing,
 * deletes leftovers of interrupted uploads and checksums whose file never arrived, and reads
 * every file's footer (every byte checked against its block checksums), one thread per data
 * directory so that each disk works on its own files. A file whose checksums are missing or whose
 * bytes no longer match them is moved to quarantine, never served.
 */
final class StoreLoader
{
    private static final Logger log = Logger.get(StoreLoader.class);

    private final int checksumBlockSize;

    StoreLoader(int checksumBlockSize)
    {
        this.checksumBlockSize = checksumBlockSize;
    }

    /** The servable files of every directory, directory by directory in the order given. */
    List<StoredFile> load(List<DataDirectory> directories)
    {
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<List<StoredFile>>> scans = new ArrayList<>();
            for (DataDirectory directory : directories) {
                scans.add(executor.submit(() -> load(directory)));
            }
            ImmutableList.Builder<StoredFile> files = ImmutableList.builder();
            for (Future<List<StoredFile>> scan : scans) {
                files.addAll(scan.get());
            }
            return files.build();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException("Interrupted while scanning data directories", e);
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof IOException ioException) {
                throw new UncheckedIOException("Cannot open the data directories: " + ioException.getMessage(), ioException);
            }
            throwIfUnchecked(e.getCause());
            throw new RuntimeException(e.getCause());
        }
    }

    private List<StoredFile> load(DataDirectory directory)
            throws IOException
    {
        directory.create();
        deleteLeftoverUploads(directory);
        List<StoredFile> files = new ArrayList<>();
        try (DirectoryStream<Path> shards = Files.newDirectoryStream(directory.filesDirectory())) {
            for (Path shard : shards) {
                if (!Files.isDirectory(shard)) {
                    log.warn("Ignoring unexpected file %s", shard);
                    continue;
                }
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(shard)) {
                    for (Path entry : entries) {
                        loadEntry(directory, shard, entry).ifPresent(files::add);
                    }
                }
            }
        }
        return files;
    }

    private static void deleteLeftoverUploads(DataDirectory directory)
            throws IOException
    {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(directory.tmpDirectory())) {
            for (Path leftover : leftovers) {
                log.info("Deleting leftover of an interrupted upload: %s", leftover);
                Files.delete(leftover);
            }
        }
    }

    private Optional<StoredFile> loadEntry(DataDirectory directory, Path shard, Path entry)
            throws IOException
    {
        String name = entry.getFileName().toString();
        Optional<FileId> id = idOf(name, PARQUET_SUFFIX)
                .filter(candidate -> directory.parquetPath(candidate).equals(entry));
        if (id.isPresent()) {
            return loadFile(directory, id.get());
        }
        Optional<FileId> crcOf = idOf(name, CRC_SUFFIX)
                .filter(candidate -> directory.crcPath(candidate).equals(entry));
        if (crcOf.isPresent()) {
            // gone already when its file was quarantined earlier in this scan
            if (!Files.exists(directory.parquetPath(crcOf.get())) && Files.deleteIfExists(entry)) {
                log.info("Deleted the checksum of a file that never arrived: %s", entry);
            }
            return Optional.empty();
        }
        log.warn("Ignoring unexpected file %s in %s", name, shard);
        return Optional.empty();
    }

    private static Optional<FileId> idOf(String fileName, String suffix)
    {
        if (!fileName.endsWith(suffix)) {
            return Optional.empty();
        }
        String id = fileName.substring(0, fileName.length() - suffix.length());
        return FileId.isValid(id) ? Optional.of(new FileId(id)) : Optional.empty();
    }

    private Optional<StoredFile> loadFile(DataDirectory directory, FileId id)
            throws IOException
    {
        Path path = directory.parquetPath(id);
        long size = Files.size(path);
        BlockChecksums checksums;
        try {
            checksums = readChecksums(directory, id, size);
        }
        catch (IOException e) {
            // damaged, or no trustworthy checksums and so no way to tell good bytes from bad: another replica has them
            directory.moveToQuarantine(id, e.getMessage());
            return Optional.empty();
        }
        ParquetFileSummary summary;
        try (ChecksummedReader reader = ChecksummedReader.open(id, path, directory.crcPath(id), checksums, true)) {
            summary = ParquetFooterParser.parse(reader, size, "file " + id);
        }
        catch (InvalidParquetFileException | CorruptBlockException e) {
            directory.moveToQuarantine(id, e.getMessage());
            return Optional.empty();
        }
        catch (IOException | UncheckedIOException e) {
            Optional<CorruptBlockException> corruption = DamagedCopies.findCorruption(e);
            if (corruption.isPresent()) {
                directory.moveToQuarantine(id, corruption.get().getMessage());
                return Optional.empty();
            }
            // unreadable rather than invalid (a disk error?): leave it where it is for a human, but do not serve it
            log.error(e, "Cannot read %s; it will not be served", path);
            return Optional.empty();
        }
        return Optional.of(StoredFile.of(directory, id, checksums, summary));
    }

    /**
     * The file's block checksums. A sidecar of version 0 holds only the whole file's CRC32C: the
     * file is read once, and upgraded only if it still has exactly that checksum; bytes that
     * changed since are never blessed with new checksums.
     */
    private BlockChecksums readChecksums(DataDirectory directory, FileId id, long size)
            throws IOException
    {
        Path crcPath = directory.crcPath(id);
        if (!Files.exists(crcPath)) {
            throw new IOException("Checksum file %s is missing".formatted(crcPath));
        }
        try {
            return BlockChecksums.open(crcPath, size);
        }
        catch (BlockChecksums.LegacySidecarException e) {
            ChecksumSidecar legacy = ChecksumSidecar.read(crcPath);
            BlockChecksums.Builder builder = new BlockChecksums.Builder(checksumBlockSize);
            ChecksumSidecar.feed(directory.parquetPath(id), builder);
            if (legacy.sizeBytes() != builder.size() || legacy.crc32c() != builder.fileCrc32c()) {
                throw new CorruptBlockException("file %s no longer matches the checksum recorded at upload (%08x, %s bytes; now %08x, %s bytes)".formatted(
                        id, legacy.crc32c(), legacy.sizeBytes(), builder.fileCrc32c(), builder.size()));
            }
            Files.delete(crcPath);
            log.info("Upgraded the checksums of file %s to blocks of %s bytes", id, checksumBlockSize);
            return builder.write(directory, id);
        }
    }
}
