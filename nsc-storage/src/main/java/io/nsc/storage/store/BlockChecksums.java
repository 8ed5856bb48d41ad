package io.nsc.storage.store;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static com.google.common.base.Preconditions.checkArgument;
import static io.airlift.slice.SizeOf.instanceSize;
import static java.lang.Math.toIntExact;
import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.file.StandardCopyOption.ATOMIC_MOVE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

/**
 * The {@code <id>.crc} file next to each Parquet file: the CRC32C of every fixed-size block of
 * the file, as computed when its bytes arrived (like HDFS's block meta files), plus the whole
 * file's CRC32C and size.
 * <p>
 * Layout, big-endian: magic {@code "NSC1"}, block size (int), file size (long), file CRC32C
 * (int), CRC32C of those 20 header bytes (int), then one CRC32C (int) per block, the last block
 * possibly short. Readers check the header once and look up the entries of just the blocks they
 * read, so the node keeps no per-block state in memory: a 64 KiB block costs 4 bytes on disk.
 * <p>
 * Version 0 of the sidecar was one line of text, {@code "<crc32c hex> <size>"}; {@link #open}
 * reports it as {@link LegacySidecarException} so that the store can upgrade it after checking
 * the file against the whole-file checksum it recorded.
 */
public final class BlockChecksums
{
    static final int MAGIC = 0x4E534331;
    static final int HEADER_BYTES = 24;
    static final long INSTANCE_BYTES = instanceSize(BlockChecksums.class);
    private static final int ENTRY_BYTES = Integer.BYTES;

    private final int blockSize;
    private final long fileSize;
    private final int fileCrc32c;

    BlockChecksums(int blockSize, long fileSize, int fileCrc32c)
    {
        checkArgument(blockSize > 0, "blockSize must be positive");
        checkArgument(fileSize >= 0, "fileSize is negative");
        this.blockSize = blockSize;
        this.fileSize = fileSize;
        this.fileCrc32c = fileCrc32c;
    }

    public int blockSize()
    {
        return blockSize;
    }

    public long fileSize()
    {
        return fileSize;
    }

    public int fileCrc32c()
    {
        return fileCrc32c;
    }

    public int blockCount()
    {
        return toIntExact((fileSize + blockSize - 1) / blockSize);
    }

    /** The start of the block holding {@code position}. */
    public long blockStart(long position)
    {
        return position / blockSize * blockSize;
    }

    /** The end of the block holding byte {@code position - 1}: the end of a read rounded up to whole blocks. */
    public long blockEnd(long position)
    {
        return Math.min(fileSize, (position + blockSize - 1) / blockSize * blockSize);
    }

    /**
     * Reads and checks the header of a sidecar.
     *
     * @throws LegacySidecarException for a sidecar of version 0
     * @throws IOException when it is missing, damaged or does not describe {@code expectedFileSize} bytes
     */
    public static BlockChecksums open(Path path, long expectedFileSize)
            throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, READ)) {
            ByteBuffer magic = ByteBuffer.allocate(Integer.BYTES).order(BIG_ENDIAN);
            if (channel.size() < Integer.BYTES || channel.read(magic, 0) != Integer.BYTES || magic.getInt(0) != MAGIC) {
                throw new LegacySidecarException(path);
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(BIG_ENDIAN);
            readFully(channel, header, 0, path.toString());
            CRC32C crc = new CRC32C();
            crc.update(header.array(), 0, HEADER_BYTES - Integer.BYTES);
            if ((int) crc.getValue() != header.getInt(20)) {
                throw new IOException("Checksum file %s has a damaged header".formatted(path));
            }
            BlockChecksums checksums = new BlockChecksums(header.getInt(4), header.getLong(8), header.getInt(16));
            if (checksums.fileSize != expectedFileSize) {
                throw new IOException("Checksum file %s describes %s bytes, the file has %s".formatted(path, checksums.fileSize, expectedFileSize));
            }
            long expectedLength = HEADER_BYTES + (long) checksums.blockCount() * ENTRY_BYTES;
            if (channel.size() != expectedLength) {
                throw new IOException("Checksum file %s has %s bytes, expected %s".formatted(path, channel.size(), expectedLength));
            }
            return checksums;
        }
    }

    /**
     * Checks {@code data[offset..offset+length)}, which holds the file's bytes from the start of
     * a block on, ending at a block end or the end of the file.
     *
     * @param entries the open sidecar, to look up the blocks' checksums
     * @throws CorruptBlockException naming the first block whose bytes do not match
     */
    void verify(FileChannel entries, String displayName, long filePosition, byte[] data, int offset, int length)
            throws IOException
    {
        checkArgument(filePosition % blockSize == 0, "position %s is not at a block start", filePosition);
        checkArgument(filePosition + length == fileSize || length % blockSize == 0, "read of %s bytes at %s does not end at a block end", length, filePosition);
        if (length == 0) {
            return;
        }
        int firstBlock = toIntExact(filePosition / blockSize);
        int blocks = toIntExact((length + (long) blockSize - 1) / blockSize);
        ByteBuffer expected = ByteBuffer.allocate(blocks * ENTRY_BYTES).order(BIG_ENDIAN);
        readFully(entries, expected, HEADER_BYTES + (long) firstBlock * ENTRY_BYTES, "the checksums of " + displayName);
        CRC32C crc = new CRC32C();
        for (int block = 0; block < blocks; block++) {
            int start = block * blockSize;
            int size = Math.min(blockSize, length - start);
            crc.reset();
            crc.update(data, offset + start, size);
            if ((int) crc.getValue() != expected.getInt(block * ENTRY_BYTES)) {
                long blockOffset = filePosition + start;
                throw new CorruptBlockException("%s: block %s (bytes %s to %s) does not match its checksum".formatted(
                        displayName, firstBlock + block, blockOffset, blockOffset + size - 1));
            }
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer target, long position, String name)
            throws IOException
    {
        long at = position;
        while (target.hasRemaining()) {
            int read = channel.read(target, at);
            if (read < 0) {
                throw new EOFException("Checksum file %s ends at %s".formatted(name, at));
            }
            at += read;
        }
    }

    /**
     * Checksums bytes as they arrive, in pieces of any size, block by block.
     * Not thread-safe.
     */
    public static final class Builder
    {
        private final int blockSize;
        private final CRC32C file = new CRC32C();
        private final CRC32C block = new CRC32C();
        private int inBlock;
        private long size;
        private int[] entries = new int[16];
        private int entryCount;

        public Builder(int blockSize)
        {
            checkArgument(blockSize > 0, "blockSize must be positive");
            this.blockSize = blockSize;
        }

        public void update(ByteBuffer data)
        {
            file.update(data.duplicate());
            ByteBuffer rest = data.duplicate();
            while (rest.hasRemaining()) {
                int take = Math.min(rest.remaining(), blockSize - inBlock);
                ByteBuffer piece = rest.slice(rest.position(), take);
                block.update(piece);
                rest.position(rest.position() + take);
                inBlock += take;
                size += take;
                if (inBlock == blockSize) {
                    endBlock();
                }
            }
        }

        public void update(byte[] data, int offset, int length)
        {
            update(ByteBuffer.wrap(data, offset, length));
        }

        public long size()
        {
            return size;
        }

        public int fileCrc32c()
        {
            return (int) file.getValue();
        }

        private void endBlock()
        {
            if (entryCount == entries.length) {
                entries = Arrays.copyOf(entries, entries.length * 2);
            }
            entries[entryCount++] = (int) block.getValue();
            block.reset();
            inBlock = 0;
        }

        /**
         * Writes the sidecar durably (a temporary file under {@code tmp/}, forced, then renamed
         * into place) and returns its header. Ends the builder.
         */
        public BlockChecksums write(DataDirectory directory, FileId id)
                throws IOException
        {
            if (inBlock > 0) {
                endBlock();
            }
            BlockChecksums checksums = new BlockChecksums(blockSize, size, fileCrc32c());
            ByteBuffer content = ByteBuffer.allocate(HEADER_BYTES + entryCount * ENTRY_BYTES).order(BIG_ENDIAN);
            content.putInt(MAGIC).putInt(blockSize).putLong(size).putInt(fileCrc32c());
            CRC32C headerCrc = new CRC32C();
            headerCrc.update(content.array(), 0, HEADER_BYTES - Integer.BYTES);
            content.putInt((int) headerCrc.getValue());
            for (int i = 0; i < entryCount; i++) {
                content.putInt(entries[i]);
            }
            content.flip();
            Path temp = directory.newTempPath(id, DataDirectory.CRC_SUFFIX);
            try {
                try (FileChannel channel = FileChannel.open(temp, CREATE_NEW, WRITE)) {
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
            return checksums;
        }
    }

    /** A sidecar of version 0 (whole-file checksum only), which the store upgrades at start-up. */
    public static final class LegacySidecarException
            extends IOException
    {
        LegacySidecarException(Path path)
        {
            super("Checksum file %s is of version 0 (whole-file checksum only)".formatted(path));
        }
    }
}
