package io.nsc.storage.store;

import io.nsc.protocol.parquet.PositionalReader;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

import static java.util.Objects.requireNonNull;

/**
 * Positional reads from an open {@link FileChannel}: they never move the channel's position,
 * so one channel can serve reads at any offsets without seeking state.
 */
public record ChannelReader(FileChannel channel, String displayName)
        implements PositionalReader
{
    public ChannelReader
    {
        requireNonNull(channel, "channel is null");
        requireNonNull(displayName, "displayName is null");
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
        while (target.hasRemaining()) {
            int read = channel.read(target, position + target.position() - offset);
            if (read < 0) {
                throw new EOFException("Unexpected end of %s at position %s (wanted %s bytes at %s)".formatted(
                        displayName, position + target.position() - offset, length, position));
            }
        }
    }
}
