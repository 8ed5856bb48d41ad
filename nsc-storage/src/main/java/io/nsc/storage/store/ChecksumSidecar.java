package io.nsc.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * The small {@code <id>.crc} file next to each Parquet file: its CRC32C and size as computed at
 * upload, one line of text ({@code "1a2b3c4d 12345"}). It lets start-up know every checksum
 * without reading whole files; the size catches a file that was truncated or replaced since.
 */
record ChecksumSidecar(int crc32c, long sizeBytes)
{
    private static final int READ_BUFFER_BYTES = 1024 * 1024;

    /** Writes the sidecar durably: to a temporary file first, then renamed into place. */
    void write(DataDirectory directory, FileId id)
            throws IOException
    {
        Path temp = directory.newTempPath(id, DataDirectory.CRC_SUFFIX);
        try {
            try (FileChannel channel = FileChannel.open(temp, CREATE_NEW, WRITE)) {
                ByteBuffer content = ByteBuffer.wrap("%08x %d\n".formatted(crc32c, sizeBytes).getBytes(US_ASCII));
                while (content.hasRemaining()) {
                    channel.write(content);
                }
                channel.force(true);
            }
            Path target = directory.crcPath(id);
            Files.createDirectories(target.getParent());
            Files.move(temp, target, ATOMIC_MOVE);
        }
        finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Reads a sidecar; IOException when it is missing or malformed. */
    static ChecksumSidecar read(Path path)
            throws IOException
    {
        List<String> parts = List.of(Files.readString(path, US_ASCII).strip().split(" "));
        try {
            if (parts.size() != 2) {
                throw new NumberFormatException("expected two fields");
            }
            return new ChecksumSidecar(Integer.parseUnsignedInt(parts.get(0), 16), Long.parseLong(parts.get(1)));
        }
        catch (NumberFormatException e) {
            throw new IOException("Malformed checksum file %s: %s".formatted(path, e.getMessage()), e);
        }
    }

    /** Reads a whole file to checksum it; only for files whose sidecar went missing. */
    static ChecksumSidecar compute(Path path)
            throws IOException
    {
        CRC32C crc = new CRC32C();
        long size = 0;
        ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER_BYTES);
        try (FileChannel channel = FileChannel.open(path, READ)) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                size += buffer.remaining();
                crc.update(buffer);
                buffer.clear();
            }
        }
        return new ChecksumSidecar((int) crc.getValue(), size);
    }
}
