package io.nsc.storage.store;

import io.airlift.log.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

import static io.nsc.protocol.host.OwnerOnlyFiles.ownerOnlyDirectory;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardCopyOption.REPLACE_EXISTING;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

/**
 * One data directory (one disk) and its fixed layout:
 * <pre>
 *   files/&lt;first two hex&gt;/&lt;id&gt;.parquet   the served files
 *   files/&lt;first two hex&gt;/&lt;id&gt;.crc       CRC32C and size of each file, so start-up need not re-read whole files
 *   tmp/&lt;id&gt;.&lt;random&gt;.part               uploads in progress (deleted at start-up)
 *   quarantine/                            files whose footer no longer parses (kept for a human)
 *   cluster-id                             the cluster the files belong to (see ClusterIdentity)
 * </pre>
 */
public final class DataDirectory
{
    private static final Logger log = Logger.get(DataDirectory.class);
    static final String PARQUET_SUFFIX = ".parquet";
    static final String CRC_SUFFIX = ".crc";
    private static final String CLUSTER_ID_FILE = "cluster-id";

    private final Path root;
    private final Path files;
    private final Path tmp;
    private final Path quarantine;
    private final Path clusterIdFile;
    private final DiskSpace space;
    // bytes that uploads in progress here have announced and not written yet; guarded by UploadPlacement's lock
    private long reservedBytes;

    public DataDirectory(Path root)
    {
        this(root, DiskSpace.FILE_SYSTEM);
    }

    public DataDirectory(Path root, DiskSpace space)
    {
        this.space = requireNonNull(space, "space is null");
        this.root = requireNonNull(root, "root is null").toAbsolutePath().normalize();
        this.files = this.root.resolve("files");
        this.tmp = this.root.resolve("tmp");
        this.quarantine = this.root.resolve("quarantine");
        this.clusterIdFile = this.root.resolve(CLUSTER_ID_FILE);
    }

    /** Creates the layout if missing, the directory readable by the service's user only. */
    public void create()
            throws IOException
    {
        ownerOnlyDirectory(root);
        Files.createDirectories(files);
        Files.createDirectories(tmp);
        Files.createDirectories(quarantine);
    }

    public Path filesDirectory()
    {
        return files;
    }

    public Path tmpDirectory()
    {
        return tmp;
    }

    public Path quarantineDirectory()
    {
        return quarantine;
    }

    public Path parquetPath(FileId id)
    {
        return files.resolve(id.shard()).resolve(id.value() + PARQUET_SUFFIX);
    }

    public Path crcPath(FileId id)
    {
        return files.resolve(id.shard()).resolve(id.value() + CRC_SUFFIX);
    }

    public Path clusterIdPath()
    {
        return clusterIdFile;
    }

    /**
     * The content of the cluster id file, stripped; empty when there is none.
     *
     * @throws IOException when the file exists but cannot be read
     */
    public Optional<String> readClusterId()
            throws IOException
    {
        try {
            return Optional.of(Files.readString(clusterIdFile, US_ASCII).strip());
        }
        catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes the cluster id file durably: to a temporary file under {@code tmp/} (same file
     * system, so the rename is atomic; start-up deletes a leftover), then renamed into place, so
     * a crash never leaves a half-written id that would make the node refuse to reclaim.
     */
    public void writeClusterId(String clusterId)
            throws IOException
    {
        Files.createDirectories(tmp);
        Path temp = tmp.resolve("%s.%016x.tmp".formatted(CLUSTER_ID_FILE, ThreadLocalRandom.current().nextLong()));
        try {
            try (FileChannel channel = FileChannel.open(temp, CREATE_NEW, WRITE)) {
                ByteBuffer content = ByteBuffer.wrap((clusterId + "\n").getBytes(US_ASCII));
                while (content.hasRemaining()) {
                    channel.write(content);
                }
                channel.force(true);
            }
            Files.move(temp, clusterIdFile, ATOMIC_MOVE);
            fsyncDirectory(root);
        }
        finally {
            Files.deleteIfExists(temp);
        }
    }

    /** A fresh temporary path; the random part keeps concurrent or retried uploads apart. */
    public Path newTempPath(FileId id, String suffix)
    {
        return tmp.resolve("%s.%016x%s".formatted(id.value(), ThreadLocalRandom.current().nextLong(), suffix));
    }

    public long usableBytes()
    {
        try {
            return space.usableBytes(root);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read free space of " + root, e);
        }
    }

    public long totalBytes()
    {
        try {
            return space.totalBytes(root);
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read capacity of " + root, e);
        }
    }

    long reservedBytes()
    {
        return reservedBytes;
    }

    void addReservedBytes(long bytes)
    {
        reservedBytes += bytes;
    }

    /**
     * Moves a damaged file and its checksums out of {@code files/} into {@code quarantine/}, kept
     * for a human; the node no longer serves it.
     */
    void moveToQuarantine(FileId id, String reason)
            throws IOException
    {
        Path target = quarantine.resolve(id.value() + PARQUET_SUFFIX);
        log.error("File %s is damaged and will not be served; moving it to %s: %s", id, target, reason);
        Files.move(parquetPath(id), target, REPLACE_EXISTING);
        Path crcPath = crcPath(id);
        if (Files.exists(crcPath)) {
            Files.move(crcPath, quarantine.resolve(id.value() + CRC_SUFFIX), REPLACE_EXISTING);
        }
        fsyncDirectory(parquetPath(id).getParent());
    }

    /** Makes a rename or creation inside {@code directory} durable. */
    static void fsyncDirectory(Path directory)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(directory, READ)) {
            channel.force(true);
        }
    }

    @Override
    public String toString()
    {
        return root.toString();
    }
}
