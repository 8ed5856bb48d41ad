package io.nsc.storage.store;

import io.nsc.protocol.parquet.PositionalReader;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

import static com.google.common.base.Preconditions.checkArgument;
import static java.lang.Math.toIntExact;
import static java.nio.file.StandardOpenOption.READ;
import static java.util.Objects.requireNonNull;

/**
 * Reads a stored file and checks every byte it returns against the block checksums recorded when
 * the file arrived: a read is widened to whole blocks, and all of them must match. With
 * verification off (an operator's choice, for measurement) it reads just the bytes asked for.
 * <p>
 * Open files stay readable after the store quarantines or deletes them (the descriptors keep
 * the inodes), so a read under way finishes on the bytes it started with.
 * Not thread-safe.
 */
public final class ChecksummedReader
        implements PositionalReader, Closeable
{
    private final FileId id;
    private final BlockChecksums checksums;
    private final boolean verify;
    private final FileChannel data;
    private final FileChannel entries;
    private final String displayName;
    private long bytesRead;

    private ChecksummedReader(FileId id, BlockChecksums checksums, boolean verify, FileChannel data, FileChannel entries)
    {
        this.id = requireNonNull(id, "id is null");
        this.checksums = requireNonNull(checksums, "checksums is null");
        this.verify = verify;
        this.data = requireNonNull(data, "data is null");
        this.entries = entries;
        this.displayName = "file " + id;
    }

    /**
     * @throws java.nio.file.NoSuchFileException when the file was deleted meanwhile
     */
    static ChecksummedReader open(StoredFile file, boolean verify)
            throws IOException
    {
        return open(file.id(), file.path(), file.checksumPath(), file.checksums(), verify);
    }

    static ChecksummedReader open(FileId id, Path path, Path checksumPath, BlockChecksums checksums, boolean verify)
            throws IOException
    {
        FileChannel data = FileChannel.open(path, READ);
        if (!verify) {
            return new ChecksummedReader(id, checksums, false, data, null);
        }
        try {
            return new ChecksummedReader(id, checksums, true, data, FileChannel.open(checksumPath, READ));
        }
        catch (IOException | RuntimeException e) {
            data.close();
            throw e;
        }
    }

    public FileId id()
    {
        return id;
    }

    /** Bytes read from the disk so far, including what widening to whole blocks added. */
    public long bytesRead()
    {
        return bytesRead;
    }

    /** Where a read that starts at {@code position} starts on disk. */
    public long readStart(long position)
    {
        return verify ? checksums.blockStart(position) : position;
    }

    /** Where a read that ends at {@code position} ends on disk. */
    public long readEnd(long position)
    {
        return verify ? checksums.blockEnd(position) : position;
    }

    @Override
    public void readFully(long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        checkArgument(position >= 0 && length >= 0, "negative position or length");
        if (position + length > checksums.fileSize()) {
            throw new EOFException("Reading %s bytes at %s goes past the end of %s (%s bytes)".formatted(length, position, displayName, checksums.fileSize()));
        }
        if (length == 0) {
            return;
        }
        long end = position + length;
        // Whole blocks inside the read go straight into the caller's buffer; only a partial first
        // and last block are read aside, checked and copied. (Without verification, every read
        // is "whole blocks".) The last, short block of the file counts as whole.
        long wholeStart = readEnd(position);
        long wholeEnd = Math.max(wholeStart, end == checksums.fileSize() ? end : readStart(end));
        if (position < wholeStart) {
            readPartialBlock(position, Math.min(wholeStart, end), buffer, offset);
        }
        if (wholeStart < wholeEnd) {
            readVerified(wholeStart, buffer, offset + toIntExact(wholeStart - position), toIntExact(wholeEnd - wholeStart));
        }
        if (wholeEnd < end) {
            readPartialBlock(wholeEnd, end, buffer, offset + toIntExact(wholeEnd - position));
        }
    }

    /** Copies {@code [from, to)}, which lies within one block, after checking that whole block. */
    private void readPartialBlock(long from, long to, byte[] buffer, int offset)
            throws IOException
    {
        long blockStart = readStart(from);
        byte[] block = new byte[toIntExact(readEnd(to) - blockStart)];
        readVerified(blockStart, block, 0, block.length);
        System.arraycopy(block, toIntExact(from - blockStart), buffer, offset, toIntExact(to - from));
    }

    /**
     * Reads {@code [start, end)}, which must begin at {@link #readStart} and end at
     * {@link #readEnd} of some positions, and checks it.
     */
    public byte[] readBlocks(long start, long end)
            throws IOException
    {
        byte[] blocks = new byte[toIntExact(end - start)];
        readBlocks(start, end, blocks);
        return blocks;
    }

    /** As {@link #readBlocks(long, long)}, into the start of {@code buffer}. */
    public void readBlocks(long start, long end, byte[] buffer)
            throws IOException
    {
        checkArgument(start == readStart(start) && end == readEnd(end), "[%s, %s) is not a whole number of blocks", start, end);
        checkArgument(end - start <= buffer.length, "[%s, %s) does not fit a buffer of %s bytes", start, end, buffer.length);
        readVerified(start, buffer, 0, toIntExact(end - start));
    }

    private void readVerified(long position, byte[] buffer, int offset, int length)
            throws IOException
    {
        ByteBuffer target = ByteBuffer.wrap(buffer, offset, length);
        while (target.hasRemaining()) {
            int read = data.read(target, position + target.position() - offset);
            if (read < 0) {
                throw new CorruptBlockException("%s: ends at %s, before the %s bytes recorded at upload".formatted(displayName, position + target.position() - offset, checksums.fileSize()));
            }
        }
        bytesRead += length;
        if (verify) {
            checksums.verify(entries, displayName, position, buffer, offset, length);
        }
    }

    @Override
    public void close()
            throws IOException
    {
        try (data; FileChannel _ = entries) {
            // both closed, the first failure reported
        }
    }
}
