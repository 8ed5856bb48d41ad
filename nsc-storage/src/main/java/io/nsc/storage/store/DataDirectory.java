package io.nsc.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

import static java.nio.file.StandardOpenOption.READ;
import static java.util.Objects.requireNonNull;

/**
 * One data directory (one disk) and its fixed layout:
 * <pre>
 *   files/&lt;first two hex&gt;/&lt;id&gt;.parquet   the served files
 *   files/&lt;first two hex&gt;/&lt;id&gt;.crc       CRC32C and size of each file, so start-up need not re-read whole files
 *   tmp/&lt;id&gt;.&lt;random&gt;.part               uploads in progress (deleted at start-up)
 *   quarantine/                            files whose footer no longer parses (kept for a human)
 * </pre>
 */
public final class DataDirectory
{
    static final String PARQUET_SUFFIX = ".parquet";
    static final String CRC_SUFFIX = ".crc";

    private final Path root;
    private final Path files;
    private final Path tmp;
    private final Path quarantine;

    public DataDirectory(Path root)
    {
        this.root = requireNonNull(root, "root is null").toAbsolutePath().normalize();
        this.files = this.root.resolve("files");
        this.tmp = this.root.resolve("tmp");
        this.quarantine = this.root.resolve("quarantine");
    }

    /** Creates the layout if missing. */
    public void create()
            throws IOException
    {
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

    /** A fresh temporary path; the random part keeps concurrent or retried uploads apart. */
    public Path newTempPath(FileId id, String suffix)
    {
        return tmp.resolve("%s.%016x%s".formatted(id.value(), ThreadLocalRandom.current().nextLong(), suffix));
    }

    public long usableBytes()
    {
        try {
            return Files.getFileStore(root).getUsableSpace();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read free space of " + root, e);
        }
    }

    public long totalBytes()
    {
        try {
            return Files.getFileStore(root).getTotalSpace();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot read capacity of " + root, e);
        }
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
