package io.nsc.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.file.StandardOpenOption.READ;

/**
 * The checksum file of version 0: one line of text, {@code "1a2b3c4d 12345"}, the CRC32C and size
 * of the whole file. Only read, to upgrade a data directory to {@link BlockChecksums}.
 */
record ChecksumSidecar(int crc32c, long sizeBytes)
{
    private static final int READ_BUFFER_BYTES = 1024 * 1024;

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

    /** Feeds a whole file to a checksum builder. */
    static void feed(Path path, BlockChecksums.Builder builder)
            throws IOException
    {
        ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER_BYTES);
        try (FileChannel channel = FileChannel.open(path, READ)) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                builder.update(buffer);
                buffer.clear();
            }
        }
    }
}
