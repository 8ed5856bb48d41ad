package io.nsc.protocol.parquet;

import java.io.EOFException;
import java.io.IOException;

import static java.util.Objects.checkFromIndexSize;
import static java.util.Objects.requireNonNull;

/**
 * Random access to a file's bytes, so the footer parser works over local files, uploads in
 * progress and remote byte ranges alike.
 */
@FunctionalInterface
public interface PositionalReader
{
    /**
     * Reads exactly {@code length} bytes at {@code position} into {@code buffer[offset..]}.
     *
     * @throws EOFException when the source ends first
     */
    void readFully(long position, byte[] buffer, int offset, int length)
            throws IOException;

    /**
     * A reader over bytes already in memory.
     */
    static PositionalReader ofBytes(byte[] data)
    {
        requireNonNull(data, "data is null");
        return (position, buffer, offset, length) -> {
            checkFromIndexSize(offset, length, buffer.length);
            if (position < 0 || position + length > data.length) {
                throw new EOFException("Cannot read %s bytes at %s from %s bytes".formatted(length, position, data.length));
            }
            System.arraycopy(data, (int) position, buffer, offset, length);
        };
    }
}
