package io.nsc.metadata.catalog;

import org.h2.store.fs.FileBase;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.util.Objects.requireNonNull;

/**
 * An H2 file system ({@code nsc-sync-tracking:} before a path) over the real one that counts,
 * per file, the bytes written since the last {@code force} and the forces: what a power loss
 * would take back is exactly what was written and not forced since.
 */
public final class SyncTrackingFileSystem
        extends FilePathWrapper
{
    public static final String PREFIX = "nsc-sync-tracking:";

    private static final Map<String, FileState> FILES = new ConcurrentHashMap<>();

    public static void register()
    {
        FilePath.register(new SyncTrackingFileSystem());
    }

    /** The state of the file at {@code path} (without the prefix), created on first use. */
    public static FileState file(String path)
    {
        return FILES.computeIfAbsent(path, _ -> new FileState());
    }

    @Override
    public String getScheme()
    {
        return PREFIX.substring(0, PREFIX.length() - 1);
    }

    @Override
    public FileChannel open(String mode)
            throws IOException
    {
        return new TrackingChannel(getBase().open(mode), file(getBase().toString()));
    }

    public static final class FileState
    {
        private long unforcedBytes;
        private long forces;
        private boolean failForces;

        public synchronized long unforcedBytes()
        {
            return unforcedBytes;
        }

        public synchronized long forces()
        {
            return forces;
        }

        /** From now on every force fails, as an fsync does on a failing disk. */
        public synchronized void failForces()
        {
            failForces = true;
        }

        private synchronized void written(int bytes)
        {
            unforcedBytes += bytes;
        }

        private synchronized void forcing()
                throws IOException
        {
            if (failForces) {
                throw new IOException("Input/output error (injected by the test)");
            }
        }

        private synchronized void forced()
        {
            unforcedBytes = 0;
            forces++;
        }
    }

    private static final class TrackingChannel
            extends FileBase
    {
        private final FileChannel base;
        private final FileState state;

        private TrackingChannel(FileChannel base, FileState state)
        {
            this.base = requireNonNull(base, "base is null");
            this.state = requireNonNull(state, "state is null");
        }

        @Override
        public int read(ByteBuffer destination)
                throws IOException
        {
            return base.read(destination);
        }

        @Override
        public int read(ByteBuffer destination, long position)
                throws IOException
        {
            return base.read(destination, position);
        }

        @Override
        public int write(ByteBuffer source)
                throws IOException
        {
            int written = base.write(source);
            state.written(written);
            return written;
        }

        @Override
        public int write(ByteBuffer source, long position)
                throws IOException
        {
            int written = base.write(source, position);
            state.written(written);
            return written;
        }

        @Override
        public long position()
                throws IOException
        {
            return base.position();
        }

        @Override
        public FileChannel position(long newPosition)
                throws IOException
        {
            base.position(newPosition);
            return this;
        }

        @Override
        public long size()
                throws IOException
        {
            return base.size();
        }

        @Override
        public FileChannel truncate(long size)
                throws IOException
        {
            base.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData)
                throws IOException
        {
            state.forcing();
            base.force(metaData);
            state.forced();
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared)
                throws IOException
        {
            return base.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel()
                throws IOException
        {
            base.close();
        }
    }
}
